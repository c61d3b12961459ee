// Layer blending, one SoA×4 group (four joints) per iteration, every layer
// of the group in turn so that the ten accumulated fields stay in registers.
// Semantics: `blendLayers` of simd/scalar/layers.ts.
//
// Each lane carries its own weights (the layer's weight times its mask, one
// for each of translation, rotation and scale, so that a layer drives only
// the properties its clip animates), so masks cost three loads and
// multiplies per layer and group; lanes stay independent and no shuffles
// are needed, quaternion products included.

import {
  JOB_BYTES, LAYER_ENTRY_BYTES, LAYERS_BLEND_COUNT, LAYERS_ENTRIES, LAYERS_JOINT_COUNT, LAYERS_OUT,
  LAYERS_REST, LAYERS_THRESHOLD, LAYERS_TOP_COUNT,
} from "./abi";
import { field, madd } from "./common";
import { blendPosesBatch } from "./blend";

// @ts-ignore: decorator
@inline function signMask(v: v128): v128 {
  // The compare mask shifted to the sign bit: -0 keeps +, as in the reference.
  return i32x4.shl(f32x4.lt(v, f32x4.splat(0)), 31);
}

/**
 * Blends the layers of one pose over all `ceil(jointCount / 4)` groups: the
 * normalized weighted sum of the `blendCount` blended layers, the rest pose
 * filling the weight up to `threshold`, then the `topCount` layers after
 * them in order, each on the result so far: an entry without a reference
 * (0) overrides, one with a reference adds. `layers` holds entries of pose,
 * mask, weight (f32 bits) and reference.
 */
function blendLayers(
  out: usize,
  jointCount: i32,
  rest: usize,
  layers: usize,
  blendCount: i32,
  topCount: i32,
  threshold: f32,
): void {
  const groups = (jointCount + 3) >> 2;
  const zero = f32x4.splat(0);
  const one = f32x4.splat(1);
  const half = f32x4.splat(0.5);
  const limit = f32x4.splat(threshold);
  // Masks hold three weight arrays of `groups` vectors: translation, rotation, scale.
  const maskStride = <usize>groups * 16;
  for (let g = 0; g < groups; g++) {
    const poseAt = <usize>g * 160, maskAt = <usize>g * 16;
    let tx = zero, ty = zero, tz = zero, sx = zero, sy = zero, sz = zero;
    let qx = zero, qy = zero, qz = zero, qw = zero;
    let totalT = zero, totalR = zero, totalS = zero;
    for (let i = 0; i <= blendCount; i++) {
      let p: usize, wt: v128, wr: v128, ws: v128;
      if (i < blendCount) {
        const entry = layers + <usize>i * LAYER_ENTRY_BYTES;
        p = <usize>load<u32>(entry) + poseAt;
        const weight = f32x4.splat(load<f32>(entry, 8));
        const mask = load<u32>(entry, 4) + maskAt;
        wt = f32x4.mul(weight, v128.load(mask));
        wr = f32x4.mul(weight, v128.load(mask + maskStride));
        ws = f32x4.mul(weight, v128.load(mask + 2 * maskStride));
      } else {
        // The rest pose takes the weight missing up to the threshold.
        p = rest + poseAt;
        wt = f32x4.max(f32x4.sub(limit, totalT), zero);
        wr = f32x4.max(f32x4.sub(limit, totalR), zero);
        ws = f32x4.max(f32x4.sub(limit, totalS), zero);
      }
      const px = v128.load(p, 48), py = v128.load(p, 64);
      const pz = v128.load(p, 80), pw = v128.load(p, 96);
      const dot = f32x4.add(madd(qx, px, f32x4.mul(qy, py)), madd(qz, pz, f32x4.mul(qw, pw)));
      const wq = v128.xor(wr, signMask(dot));
      qx = madd(px, wq, qx);
      qy = madd(py, wq, qy);
      qz = madd(pz, wq, qz);
      qw = madd(pw, wq, qw);
      tx = madd(v128.load(p, 0), wt, tx);
      ty = madd(v128.load(p, 16), wt, ty);
      tz = madd(v128.load(p, 32), wt, tz);
      sx = madd(v128.load(p, 112), ws, sx);
      sy = madd(v128.load(p, 128), ws, sy);
      sz = madd(v128.load(p, 144), ws, sz);
      totalT = f32x4.add(totalT, wt);
      totalR = f32x4.add(totalR, wr);
      totalS = f32x4.add(totalS, ws);
    }
    // The totals are >= threshold > 0 here.
    const invT = f32x4.div(one, totalT), invS = f32x4.div(one, totalS);
    tx = f32x4.mul(tx, invT);
    ty = f32x4.mul(ty, invT);
    tz = f32x4.mul(tz, invT);
    sx = f32x4.mul(sx, invS);
    sy = f32x4.mul(sy, invS);
    sz = f32x4.mul(sz, invS);
    let l = f32x4.add(madd(qx, qx, f32x4.mul(qy, qy)), madd(qz, qz, f32x4.mul(qw, qw)));
    let n = f32x4.div(one, f32x4.sqrt(l));
    let m = f32x4.gt(l, zero);
    qx = v128.and(f32x4.mul(qx, n), m);
    qy = v128.and(f32x4.mul(qy, n), m);
    qz = v128.and(f32x4.mul(qz, n), m);
    qw = v128.bitselect(f32x4.mul(qw, n), one, m);
    for (let i = 0; i < topCount; i++) {
      const entry = layers + <usize>(blendCount + i) * LAYER_ENTRY_BYTES;
      const p = load<u32>(entry) + poseAt, reference = load<u32>(entry, 12);
      const weight = f32x4.splat(load<f32>(entry, 8));
      const mask = load<u32>(entry, 4) + maskAt;
      const wt = f32x4.mul(weight, v128.load(mask));
      const w = f32x4.mul(weight, v128.load(mask + maskStride));
      const wsc = f32x4.mul(weight, v128.load(mask + 2 * maskStride));
      let rx: v128, ry: v128, rz: v128, rw: v128;
      const bx = v128.load(p, 48), by = v128.load(p, 64);
      const bz = v128.load(p, 80), bw = v128.load(p, 96);
      if (reference == 0) {
        // Override: lerp to the layer's translation and scale by w.
        tx = madd(f32x4.sub(v128.load(p, 0), tx), wt, tx);
        ty = madd(f32x4.sub(v128.load(p, 16), ty), wt, ty);
        tz = madd(f32x4.sub(v128.load(p, 32), tz), wt, tz);
        sx = madd(f32x4.sub(v128.load(p, 112), sx), wsc, sx);
        sy = madd(f32x4.sub(v128.load(p, 128), sy), wsc, sy);
        sz = madd(f32x4.sub(v128.load(p, 144), sz), wsc, sz);
        // nlerp to its rotation, the lighter side negated across 180°.
        const dot = f32x4.add(madd(qx, bx, f32x4.mul(qy, by)), madd(qz, bz, f32x4.mul(qw, bw)));
        const flip = f32x4.lt(dot, zero), heavy = f32x4.ge(w, half);
        const wb = v128.xor(f32x4.sub(one, w), i32x4.shl(v128.and(flip, heavy), 31));
        const wl = v128.xor(w, i32x4.shl(v128.andnot(flip, heavy), 31));
        rx = madd(bx, wl, f32x4.mul(qx, wb));
        ry = madd(by, wl, f32x4.mul(qy, wb));
        rz = madd(bz, wl, f32x4.mul(qz, wb));
        rw = madd(bw, wl, f32x4.mul(qw, wb));
      } else {
        const r = reference + poseAt;
        tx = madd(f32x4.sub(v128.load(p, 0), v128.load(r, 0)), wt, tx);
        ty = madd(f32x4.sub(v128.load(p, 16), v128.load(r, 16)), wt, ty);
        tz = madd(f32x4.sub(v128.load(p, 32), v128.load(r, 32)), wt, tz);
        sx = madd(f32x4.sub(v128.load(p, 112), v128.load(r, 112)), wsc, sx);
        sy = madd(f32x4.sub(v128.load(p, 128), v128.load(r, 128)), wsc, sy);
        sz = madd(f32x4.sub(v128.load(p, 144), v128.load(r, 144)), wsc, sz);
        // d = conjugate(r) * p: the clip's rotation relative to the reference.
        const ax = v128.load(r, 48), ay = v128.load(r, 64);
        const az = v128.load(r, 80), aw = v128.load(r, 96);
        const dx = f32x4.sub(madd(aw, bx, f32x4.mul(az, by)), madd(ax, bw, f32x4.mul(ay, bz)));
        const dy = f32x4.sub(madd(aw, by, f32x4.mul(ax, bz)), madd(ay, bw, f32x4.mul(az, bx)));
        const dz = f32x4.sub(madd(aw, bz, f32x4.mul(ay, bx)), madd(ax, by, f32x4.mul(az, bw)));
        const dw = madd(aw, bw, madd(ax, bx, madd(ay, by, f32x4.mul(az, bz))));
        // nlerp from the identity to d by w, along the shorter arc.
        const ws = v128.xor(w, signMask(dw));
        const ex = f32x4.mul(dx, ws), ey = f32x4.mul(dy, ws), ez = f32x4.mul(dz, ws);
        const ew = madd(dw, ws, f32x4.sub(one, w));
        // q * e
        rx = f32x4.sub(madd(qw, ex, madd(qx, ew, f32x4.mul(qy, ez))), f32x4.mul(qz, ey));
        ry = f32x4.sub(madd(qw, ey, madd(qy, ew, f32x4.mul(qz, ex))), f32x4.mul(qx, ez));
        rz = f32x4.sub(madd(qw, ez, madd(qz, ew, f32x4.mul(qx, ey))), f32x4.mul(qy, ex));
        rw = f32x4.sub(f32x4.mul(qw, ew), madd(qx, ex, madd(qy, ey, f32x4.mul(qz, ez))));
      }
      l = f32x4.add(madd(rx, rx, f32x4.mul(ry, ry)), madd(rz, rz, f32x4.mul(rw, rw)));
      n = f32x4.div(one, f32x4.sqrt(l));
      m = f32x4.gt(l, zero);
      qx = v128.and(f32x4.mul(rx, n), m);
      qy = v128.and(f32x4.mul(ry, n), m);
      qz = v128.and(f32x4.mul(rz, n), m);
      qw = v128.bitselect(f32x4.mul(rw, n), one, m);
    }
    const o = out + poseAt;
    v128.store(o, tx, 0);
    v128.store(o, ty, 16);
    v128.store(o, tz, 32);
    v128.store(o, qx, 48);
    v128.store(o, qy, 64);
    v128.store(o, qz, 80);
    v128.store(o, qw, 96);
    v128.store(o, sx, 112);
    v128.store(o, sy, 128);
    v128.store(o, sz, 144);
  }
}

/**
 * The layer stage of a frame in one call: first the `sampleCount` jobs of
 * {@link blendPosesBatch} (clips sampled into the layers' poses), then the
 * `layerCount` jobs of {@link blendLayers}, words `out, jointCount, rest,
 * layers, blendCount, topCount, threshold` (f32 bits).
 */
export function blendLayersBatch(
  sampleJobs: usize,
  sampleCount: i32,
  layerJobs: usize,
  layerCount: i32,
): void {
  blendPosesBatch(sampleJobs, sampleCount);
  for (let j = 0; j < layerCount; j++, layerJobs += JOB_BYTES) {
    blendLayers(
      field<u32>(layerJobs, LAYERS_OUT),
      field<i32>(layerJobs, LAYERS_JOINT_COUNT),
      field<u32>(layerJobs, LAYERS_REST),
      field<u32>(layerJobs, LAYERS_ENTRIES),
      field<i32>(layerJobs, LAYERS_BLEND_COUNT),
      field<i32>(layerJobs, LAYERS_TOP_COUNT),
      field<f32>(layerJobs, LAYERS_THRESHOLD),
    );
  }
}
