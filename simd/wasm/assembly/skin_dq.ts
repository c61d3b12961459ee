// Dual-quaternion skinning (Kavan et al. 2007). Semantics are those of
// skinDualQuaternions in reference_dq.ts.
//
// Each joint is 24 floats: the rotation quaternion qr (x y z w), the dual
// part qd, a uniform scale s and 1 / s (then two unused floats), and the joint's
// palette matrix (3 rows), which a vertex with one used influence applies
// as linear skinning does: the same rigid transform at a fifth of the cost. Per vertex: b = sum w_k qk with w_k
// negated where qk . q0 < 0 (antipodality), normalised by |b.qr|; the
// scale s = sum w_k s_k / sum w_k is blended linearly; a single used
// influence is rigid (its weight not applied); p' = rotate(qr, s * p) + t with
// t = 2 qd conj(qr); normals and tangents are rotated. The loops divide by
// |b.qr|^2 once instead of normalising (see dqRun); two used influences
// sorted by joint pair take skin_dq_pairs.ts's run path.

import { madd, vmax, vmin } from "./common";
import { hsum, hsum3w, lane0, lane1, lane3, NORMALS, TANGENTS, unitW } from "./skin_common";

// Byte address of joint `joint` of a dual-quaternion table (96 bytes each).
// @ts-ignore: decorator
@inline function joint(base: usize, index: u32): usize {
  return base + <usize>index * 96;
}

// The rows r0..r2 times direction v (its w ignored), w = 0.
// @ts-ignore: decorator
@inline function rows(r0: v128, r1: v128, r2: v128, v: v128, xyz: v128): v128 {
  const d = v128.and(v, xyz);
  return hsum3w(f32x4.mul(r0, d), f32x4.mul(r1, d), f32x4.mul(r2, d), i32x4.splat(0));
}

// a.yzx
// @ts-ignore: decorator
@inline function yzx(a: v128): v128 {
  return i32x4.shuffle(a, a, 1, 2, 0, 3);
}
// a.zxy
// @ts-ignore: decorator
@inline function zxy(a: v128): v128 {
  return i32x4.shuffle(a, a, 2, 0, 1, 3);
}
// a x b in lanes 0..2 (lane 3: a.w b.w - a.w b.w = 0).
// @ts-ignore: decorator
@inline function cross(a: v128, b: v128): v128 {
  return f32x4.sub(f32x4.mul(yzx(a), zxy(b)), f32x4.mul(zxy(a), yzx(b)));
}

// v rotated by the quaternion r / |r|, with k = 2 / |r|^2 (lanes 0..2 of
// v; lane 3 of v must be 0): v + k r.xyz x (r.xyz x v + r.w v). Dividing
// by |r|^2 instead of normalising r takes no square root.
// @ts-ignore: decorator
@inline function rotate(r: v128, rw: v128, k: v128, v: v128): v128 {
  return madd(cross(r, madd(rw, v, cross(r, v))), k, v);
}

// The weight splat of influence `m` relative to `q0`: w, negated when the
// quaternions are more than 90 degrees apart.
// @ts-ignore: decorator
@inline function signed(w: v128, q0: v128, q: v128, signBit: v128): v128 {
  return v128.xor(w, v128.and(hsum(f32x4.mul(q0, q)), signBit));
}

// `count` vertices, `K` (1..4) influences used, or with `K` 0 any number
// (`used`), the streams per `mode` (constants in the table's loops).
// @ts-ignore: decorator
@inline export function dqRun(
  K: i32,
  used: i32,
  mode: i32,
  bounds: usize,
  n: u32,
  count: u32,
  table: usize,
  jp: usize,
  wp: usize,
  o: usize,
  positions: usize,
  normals: usize,
  tangents: usize,
  outPositions: usize,
  outNormals: usize,
  outTangents: usize,
): void {
  const jStride = <usize>n << 1, wStride = <usize>n << 2;
  const end = o + (<usize>count << 4);
  const e3 = unitW(count);
  const signBit = i32x4.splat(0x80000000);
  const xyz = i32x4(-1, -1, -1, 0);
  let lo = e3, hi = e3;
  if (bounds) {
    lo = v128.load(bounds);
    hi = v128.load(bounds, 16);
  }
  for (; o < end; o += 16, jp += jStride, wp += wStride) {
    const m0 = joint(table, load<u16>(jp));
    if (K == 1) {
      // Rigid: the joint's palette rows (48 bytes on), as linear skinning.
      const r0 = v128.load(m0, 48), r1 = v128.load(m0, 64), r2 = v128.load(m0, 80);
      const p = v128.load(positions + o);
      const q = i32x4.shuffle(p, e3, 0, 1, 2, 7);
      const out = hsum3w(f32x4.mul(r0, q), f32x4.mul(r1, q), f32x4.mul(r2, q), e3);
      // Directions are rotated only: the rows divided by the joint's scale.
      const unscale = lane1(v128.load(m0, 32));
      v128.store(outPositions + o, out);
      if (bounds) {
        lo = vmin(lo, out);
        hi = vmax(hi, out);
      }
      if (mode & NORMALS) {
        v128.store(outNormals + o, f32x4.mul(rows(r0, r1, r2, v128.load(normals + o), xyz), unscale));
      }
      if (mode & TANGENTS) {
        const tv = v128.load(tangents + o);
        v128.store(outTangents + o, i32x4.shuffle(f32x4.mul(rows(r0, r1, r2, tv, xyz), unscale), tv, 0, 1, 2, 7));
      }
      continue;
    }
    const q0 = v128.load(m0);
    let br: v128, bd: v128, bs: v128;
    {
      const w0 = f32x4.splat(load<f32>(wp));
      br = f32x4.mul(q0, w0);
      bd = f32x4.mul(v128.load(m0, 16), w0);
      bs = f32x4.mul(v128.load(m0, 32), w0);
      let ws = w0;
      const kEnd = K ? K : used;
      for (let k = 1; k < kEnd; k++) {
        const m = joint(table, load<u16>(jp + (<usize>k << 1)));
        const q = v128.load(m);
        const wk = f32x4.splat(load<f32>(wp + (<usize>k << 2)));
        const sw = signed(wk, q0, q, signBit);
        br = madd(q, sw, br);
        bd = madd(v128.load(m, 16), sw, bd);
        bs = madd(v128.load(m, 32), wk, bs);
        ws = f32x4.add(ws, wk);
      }
      bs = f32x4.div(lane0(bs), ws);
    }
    // The blend (br, bd) normalised is (br, bd) / |br|: with k = 2 / |br|^2,
    // rotation and translation t = 2 (r.w d - d.w r + r x d) share one
    // factor, and r x (r x v + r.w v) + r x d is one cross product less:
    // p' = v + k (br x (br x v + br.w v + bd) + br.w bd - bd.w br), v = s p.
    const k = f32x4.div(f32x4.splat(2), hsum(f32x4.mul(br, br)));
    const rw = lane3(br), dw = lane3(bd);
    const v = f32x4.mul(v128.and(v128.load(positions + o), xyz), bs);
    const u = f32x4.add(cross(br, v), madd(rw, v, bd));
    const e = f32x4.sub(madd(rw, bd, cross(br, u)), f32x4.mul(dw, br));
    // Lane 3 of e is a rounding residue (br.w bd.w - bd.w br.w): w set to 1.
    const out = i32x4.shuffle(madd(e, k, v), e3, 0, 1, 2, 7);
    v128.store(outPositions + o, out);
    if (bounds) {
      lo = vmin(lo, out);
      hi = vmax(hi, out);
    }
    if (mode & NORMALS) {
      v128.store(outNormals + o, rotate(br, rw, k, v128.and(v128.load(normals + o), xyz)));
    }
    if (mode & TANGENTS) {
      const tv = v128.load(tangents + o);
      const rt = rotate(br, rw, k, v128.and(tv, xyz));
      v128.store(outTangents + o, i32x4.shuffle(rt, tv, 0, 1, 2, 7));
    }
  }
  if (bounds) {
    v128.store(bounds, lo);
    v128.store(bounds, hi, 16);
  }
}
