// Shared-timeline compact clips (`CLIP_SHARED_KEYS`): every keyed path is
// a four-lane sync block of floats keyed at the same times, so one interval
// search per playback and one weight serve every group, and the keys are
// read where they lie, as the baked frames of earlier versions were: no
// refill, no decode, no per-lane interval. Rotations follow slerp's curve
// between keys by a per-lane correction of the weight (`SLERP_FIT_C0` in
// `abi.ts`) in the groups that need it (`SHARED_SLERP`), where the general
// path plainly nlerps. Scalar twin:
// `sampleShared` in `simd/scalar/sample.ts`. The clip's group records
// (`CLIP_SHARED_GROUPS`) say where each path's keys are and hold the held
// paths' values, which every playback of the clip shares; a playback's
// cache (`SHARED_CACHE_BYTES`) is the interval's left key, as a cursor.

import {
  CLIP_SHARED_GROUPS,
  SHARED_GROUP_BYTES,
  SHARED_GROUP_FLAGS,
  SHARED_GROUP_VALUES,
  SHARED_SLERP,
  SLERP_FIT_C0,
  SLERP_FIT_C1,
  SLERP_FIT_C2,
  SLERP_FIT_C3,
} from "./abi";
import { madd } from "./common";
import { findKey, lerpVector, nlerpLanes, nlerpRotations } from "./sample_keys";

/**
 * The four lanes of rotations at `a` and `b` interpolated on slerp's curve
 * into `dst`: normalized-lerped at the weights `w + g e (p + e q)`, `e = 1 -
 * |dot(a, b)|`, with the frame's `g, p, q` (`SLERP_FIT_C0`).
 */
// @ts-ignore: decorator
@inline function slerpRotations(a: usize, b: usize, w: v128, g: v128, p: v128, q: v128, dst: usize): void {
  const ax = v128.load(a), ay = v128.load(a, 16), az = v128.load(a, 32), aw = v128.load(a, 48);
  const bx = v128.load(b), by = v128.load(b, 16), bz = v128.load(b, 32), bw = v128.load(b, 48);
  const d = f32x4.add(madd(ax, bx, f32x4.mul(ay, by)), madd(az, bz, f32x4.mul(aw, bw)));
  const e = f32x4.sub(f32x4.splat(1), f32x4.abs(d));
  nlerpLanes(ax, ay, az, aw, bx, by, bz, bw, madd(g, f32x4.mul(e, madd(e, q, p)), w), dst);
}

/**
 * Path `p` (translation 0, scale 2) of the group whose record is at
 * `record` into the pose group at `o`: lerped between its block's keys at
 * byte offsets `vl` and `vr`, or its held values copied.
 */
// @ts-ignore: decorator
@inline function vectorPath(clip: usize, record: usize, p: usize, o: usize, vl: usize, vr: usize, w: v128): void {
  const at: usize = p == 0 ? 0 : 112;
  const values = <usize>load<u32>(record + SHARED_GROUP_VALUES + (p << 2));
  if (values == 0) {
    v128.store(o + at, v128.load(record + at));
    v128.store(o + at, v128.load(record + at, 16), 16);
    v128.store(o + at, v128.load(record + at, 32), 32);
  } else lerpVector(clip + values + vl, clip + values + vr, w, o + at);
}

/**
 * Samples the shared-timeline clip at `clip` (`keys` keys, at the times of
 * its first block) at time `t` into the pose at `out`: the keys `kl, kr`
 * around `t` and the weight `w` between them (before the first key or from
 * the last on, that key with weight 0).
 */
export function sampleShared(clip: usize, cache: usize, out: usize, groupCount: i32, t: f32, keys: u32): void {
  const times = clip + load<u32>(clip + load<u32>(clip, 20));
  let kl: u32 = 0, kr: u32 = 0, w: f32 = 0;
  if (keys > 1 && t >= load<f32>(times)) {
    if (t >= load<f32>(times + (<usize>(keys - 1) << 2))) {
      kl = kr = keys - 1;
    } else {
      // Playing forward: the interval held, or the next one; else a search.
      // (Bounds as `k < keys - 1`: no cursor value can wrap the test.)
      let k = load<u32>(cache);
      if (!(k < keys - 1 && t >= load<f32>(times + (<usize>k << 2)) && t < load<f32>(times + (<usize>(k + 1) << 2)))) {
        if (k < keys - 2 && t >= load<f32>(times + (<usize>(k + 1) << 2)) && t < load<f32>(times + (<usize>(k + 2) << 2))) k++;
        else k = findKey(times, keys, t);
      }
      store<u32>(cache, k);
      kl = k;
      kr = k + 1;
      const lo = load<f32>(times + (<usize>k << 2));
      w = (t - lo) * (<f32>1 / (load<f32>(times + (<usize>kr << 2)) - lo));
    }
  }
  const w4 = f32x4.splat(w), zero = f32x4.splat(0);
  // The slerp correction's terms that depend on the weight alone.
  const h = w - <f32>0.5, s = h * h;
  const g4 = f32x4.splat(w * h * (w - 1));
  const p4 = f32x4.splat(<f32>SLERP_FIT_C0 + <f32>SLERP_FIT_C2 * s);
  const q4 = f32x4.splat(<f32>SLERP_FIT_C1 + <f32>SLERP_FIT_C3 * s);
  const vl = <usize>kl * 48, vr = <usize>kr * 48, rl = <usize>kl << 6, rr = <usize>kr << 6;
  let record = clip + load<u32>(clip, CLIP_SHARED_GROUPS);
  for (let g = 0; g < groupCount; g++, record += SHARED_GROUP_BYTES) {
    const o = out + <usize>g * 160;
    vectorPath(clip, record, 0, o, vl, vr, w4);
    vectorPath(clip, record, 2, o, vl, vr, w4);
    const values = <usize>load<u32>(record, SHARED_GROUP_VALUES + 4);
    // A held rotation is normalized (weight 0), as the general path does.
    if (values == 0) nlerpRotations(record + 48, record + 48, zero, o + 48);
    else if (load<u32>(record, SHARED_GROUP_FLAGS) & SHARED_SLERP) {
      slerpRotations(clip + values + rl, clip + values + rr, w4, g4, p4, q4, o + 48);
    } else nlerpRotations(clip + values + rl, clip + values + rr, w4, o + 48);
  }
}
