// Joint poses (SoA×4 TRS) <-> 3x4 joint matrices, four joints per iteration.
// Semantics: `quatToMat` and `matToQuat` of simd/reference.ts.

import { madd } from "./common";

/** c - a * b, four lanes (fused in the relaxed build). */
// @ts-ignore: decorator
@inline function nmadd(a: v128, b: v128, c: v128): v128 {
  if (ASC_FEATURE_RELAXED_SIMD) return f32x4.relaxed_nmadd(a, b, c);
  return f32x4.sub(c, f32x4.mul(a, b));
}

// Pose groups are 40 floats, matrices 12 floats.
const GROUP_BYTES: usize = 160;
const MATRIX_BYTES: usize = 48;

/**
 * Joint poses to joint matrices, `M = T * R * S`. Reads `ceil(count / 4)`
 * pose groups and writes exactly `count` matrices.
 */
export function quatToMat(pose: usize, matrices: usize, count: i32): void {
  const one = f32x4.splat(1);
  for (let left = count; left > 0; left -= 4) {
    const tx = v128.load(pose);
    const ty = v128.load(pose, 16);
    const tz = v128.load(pose, 32);
    const x = v128.load(pose, 48);
    const y = v128.load(pose, 64);
    const z = v128.load(pose, 80);
    const w = v128.load(pose, 96);
    const sx = v128.load(pose, 112);
    const sy = v128.load(pose, 128);
    const sz = v128.load(pose, 144);

    const x2 = f32x4.add(x, x);
    const y2 = f32x4.add(y, y);
    const z2 = f32x4.add(z, z);
    const xx = f32x4.mul(x, x2);
    const yy = f32x4.mul(y, y2);
    const zz = f32x4.mul(z, z2);
    const xy = f32x4.mul(x, y2);
    const xz = f32x4.mul(x, z2);
    const yz = f32x4.mul(y, z2);

    const m0 = f32x4.mul(f32x4.sub(one, f32x4.add(yy, zz)), sx);
    const m1 = f32x4.mul(nmadd(w, z2, xy), sy);
    const m2 = f32x4.mul(madd(w, y2, xz), sz);
    const m4 = f32x4.mul(madd(w, z2, xy), sx);
    const m5 = f32x4.mul(f32x4.sub(one, f32x4.add(xx, zz)), sy);
    const m6 = f32x4.mul(nmadd(w, x2, yz), sz);
    const m8 = f32x4.mul(nmadd(w, y2, xz), sx);
    const m9 = f32x4.mul(madd(w, x2, yz), sy);
    const m10 = f32x4.mul(f32x4.sub(one, f32x4.add(xx, yy)), sz);

    // Lanes are joints; transpose each group of four fields into one row
    // per joint (unpack 32-bit, then 64-bit halves).
    let lo = f32x4.shuffle(m0, m1, 0, 4, 1, 5);
    let lo2 = f32x4.shuffle(m2, tx, 0, 4, 1, 5);
    let hi = f32x4.shuffle(m0, m1, 2, 6, 3, 7);
    let hi2 = f32x4.shuffle(m2, tx, 2, 6, 3, 7);
    const a0 = i64x2.shuffle(lo, lo2, 0, 2);
    const b0 = i64x2.shuffle(lo, lo2, 1, 3);
    const c0 = i64x2.shuffle(hi, hi2, 0, 2);
    const d0 = i64x2.shuffle(hi, hi2, 1, 3);
    lo = f32x4.shuffle(m4, m5, 0, 4, 1, 5);
    lo2 = f32x4.shuffle(m6, ty, 0, 4, 1, 5);
    hi = f32x4.shuffle(m4, m5, 2, 6, 3, 7);
    hi2 = f32x4.shuffle(m6, ty, 2, 6, 3, 7);
    const a1 = i64x2.shuffle(lo, lo2, 0, 2);
    const b1 = i64x2.shuffle(lo, lo2, 1, 3);
    const c1 = i64x2.shuffle(hi, hi2, 0, 2);
    const d1 = i64x2.shuffle(hi, hi2, 1, 3);
    lo = f32x4.shuffle(m8, m9, 0, 4, 1, 5);
    lo2 = f32x4.shuffle(m10, tz, 0, 4, 1, 5);
    hi = f32x4.shuffle(m8, m9, 2, 6, 3, 7);
    hi2 = f32x4.shuffle(m10, tz, 2, 6, 3, 7);
    const a2 = i64x2.shuffle(lo, lo2, 0, 2);
    const b2 = i64x2.shuffle(lo, lo2, 1, 3);
    const c2 = i64x2.shuffle(hi, hi2, 0, 2);
    const d2 = i64x2.shuffle(hi, hi2, 1, 3);

    v128.store(matrices, a0);
    v128.store(matrices, a1, 16);
    v128.store(matrices, a2, 32);
    // The last group stores only the joints that exist: the output holds
    // `count` matrices, not a multiple of four.
    if (left >= 4) {
      v128.store(matrices, b0, 48);
      v128.store(matrices, b1, 64);
      v128.store(matrices, b2, 80);
      v128.store(matrices, c0, 96);
      v128.store(matrices, c1, 112);
      v128.store(matrices, c2, 128);
      v128.store(matrices, d0, 144);
      v128.store(matrices, d1, 160);
      v128.store(matrices, d2, 176);
    } else if (left >= 2) {
      v128.store(matrices, b0, 48);
      v128.store(matrices, b1, 64);
      v128.store(matrices, b2, 80);
      if (left == 3) {
        v128.store(matrices, c0, 96);
        v128.store(matrices, c1, 112);
        v128.store(matrices, c2, 128);
      }
    }
    pose += GROUP_BYTES;
    matrices += 4 * MATRIX_BYTES;
  }
}

/** Batch form of {@link quatToMat}: job words `pose, matrices, count`. */
export function quatToMatBatch(jobs: usize, jobCount: i32): void {
  for (let j = 0; j < jobCount; j++, jobs += 48) {
    quatToMat(load<u32>(jobs), load<u32>(jobs, 4), load<i32>(jobs, 8));
  }
}

/**
 * Joint matrices to joint poses: translation, scale (column lengths, x
 * negated for a negative determinant, a zero scale leaving its column zero)
 * and Shoemake's quaternion with the reference's case order, normalized.
 * Reads exactly `count` matrices; writes `ceil(count / 4)` groups, the
 * padding lanes getting the identity pose.
 */
export function matToQuat(matrices: usize, pose: usize, count: i32): void {
  const one = f32x4.splat(1);
  const zero = f32x4.splat(0);
  const sign = f32x4.splat(-0.0);
  // Identity rows stand in for the matrices past `count`; they convert to
  // exactly the identity pose.
  const e0 = f32x4(1, 0, 0, 0);
  const e1 = f32x4(0, 1, 0, 0);
  const e2 = f32x4(0, 0, 1, 0);
  for (let left = count; left > 0; left -= 4) {
    const a0 = v128.load(matrices);
    const a1 = v128.load(matrices, 16);
    const a2 = v128.load(matrices, 32);
    let b0 = e0, b1 = e1, b2 = e2;
    let c0 = e0, c1 = e1, c2 = e2;
    let d0 = e0, d1 = e1, d2 = e2;
    if (left >= 4) {
      b0 = v128.load(matrices, 48);
      b1 = v128.load(matrices, 64);
      b2 = v128.load(matrices, 80);
      c0 = v128.load(matrices, 96);
      c1 = v128.load(matrices, 112);
      c2 = v128.load(matrices, 128);
      d0 = v128.load(matrices, 144);
      d1 = v128.load(matrices, 160);
      d2 = v128.load(matrices, 176);
    } else if (left >= 2) {
      b0 = v128.load(matrices, 48);
      b1 = v128.load(matrices, 64);
      b2 = v128.load(matrices, 80);
      if (left == 3) {
        c0 = v128.load(matrices, 96);
        c1 = v128.load(matrices, 112);
        c2 = v128.load(matrices, 128);
      }
    }

    // Rows of four matrices to one vector per element (lanes = matrices).
    let lo = f32x4.shuffle(a0, b0, 0, 4, 1, 5);
    let lo2 = f32x4.shuffle(c0, d0, 0, 4, 1, 5);
    let hi = f32x4.shuffle(a0, b0, 2, 6, 3, 7);
    let hi2 = f32x4.shuffle(c0, d0, 2, 6, 3, 7);
    let m0 = i64x2.shuffle(lo, lo2, 0, 2);
    let m1 = i64x2.shuffle(lo, lo2, 1, 3);
    let m2 = i64x2.shuffle(hi, hi2, 0, 2);
    const m3 = i64x2.shuffle(hi, hi2, 1, 3);
    lo = f32x4.shuffle(a1, b1, 0, 4, 1, 5);
    lo2 = f32x4.shuffle(c1, d1, 0, 4, 1, 5);
    hi = f32x4.shuffle(a1, b1, 2, 6, 3, 7);
    hi2 = f32x4.shuffle(c1, d1, 2, 6, 3, 7);
    let m4 = i64x2.shuffle(lo, lo2, 0, 2);
    let m5 = i64x2.shuffle(lo, lo2, 1, 3);
    let m6 = i64x2.shuffle(hi, hi2, 0, 2);
    const m7 = i64x2.shuffle(hi, hi2, 1, 3);
    lo = f32x4.shuffle(a2, b2, 0, 4, 1, 5);
    lo2 = f32x4.shuffle(c2, d2, 0, 4, 1, 5);
    hi = f32x4.shuffle(a2, b2, 2, 6, 3, 7);
    hi2 = f32x4.shuffle(c2, d2, 2, 6, 3, 7);
    let m8 = i64x2.shuffle(lo, lo2, 0, 2);
    let m9 = i64x2.shuffle(lo, lo2, 1, 3);
    let m10 = i64x2.shuffle(hi, hi2, 0, 2);
    const m11 = i64x2.shuffle(hi, hi2, 1, 3);

    let sx = f32x4.sqrt(madd(m8, m8, madd(m4, m4, f32x4.mul(m0, m0))));
    const sy = f32x4.sqrt(madd(m9, m9, madd(m5, m5, f32x4.mul(m1, m1))));
    const sz = f32x4.sqrt(madd(m10, m10, madd(m6, m6, f32x4.mul(m2, m2))));
    const det = madd(
      m2,
      nmadd(m5, m8, f32x4.mul(m4, m9)),
      nmadd(
        m1,
        nmadd(m6, m8, f32x4.mul(m4, m10)),
        f32x4.mul(m0, nmadd(m6, m9, f32x4.mul(m5, m10))),
      ),
    );
    // sx >= 0, so setting the sign bit negates it.
    sx = v128.or(sx, v128.and(f32x4.lt(det, zero), sign));
    // 1 / 0 is +-inf; the mask turns it into the reference's 0.
    const ix = v128.and(f32x4.div(one, sx), f32x4.ne(sx, zero));
    const iy = v128.and(f32x4.div(one, sy), f32x4.ne(sy, zero));
    const iz = v128.and(f32x4.div(one, sz), f32x4.ne(sz, zero));
    m0 = f32x4.mul(m0, ix);
    m4 = f32x4.mul(m4, ix);
    m8 = f32x4.mul(m8, ix);
    m1 = f32x4.mul(m1, iy);
    m5 = f32x4.mul(m5, iy);
    m9 = f32x4.mul(m9, iy);
    m2 = f32x4.mul(m2, iz);
    m6 = f32x4.mul(m6, iz);
    m10 = f32x4.mul(m10, iz);

    // Shoemake's four cases, chosen per lane in the reference's order:
    // case 0 trace > 0, case 1 m0 largest, case 2 m5 >= m10, case 3 else.
    const k0 = f32x4.gt(f32x4.add(f32x4.add(m0, m5), m10), zero);
    const g1 = v128.and(f32x4.ge(m0, m5), f32x4.ge(m0, m10));
    const g2 = f32x4.ge(m5, m10);
    // Each case is 1 + (+-m0) + (+-m5) + (+-m10) on the diagonal and
    // m9 -+ m6, m2 -+ m8, m4 -+ m1 off it: e0 holds in cases {0, 1}, e5 in
    // {0, 2}, e10 in {0, 3}; the diagonal term is negated where its mask is
    // clear, the off-diagonal one where it is set.
    const e0m = v128.or(k0, g1);
    const e5m = v128.or(k0, v128.andnot(g2, g1));
    const e10m = v128.or(k0, v128.not(v128.or(g1, g2)));
    const t = f32x4.add(
      f32x4.add(one, v128.xor(m0, v128.andnot(sign, e0m))),
      f32x4.add(
        v128.xor(m5, v128.andnot(sign, e5m)),
        v128.xor(m10, v128.andnot(sign, e10m)),
      ),
    );
    const p = f32x4.add(m9, v128.xor(m6, v128.and(sign, e0m)));
    const q = f32x4.add(m2, v128.xor(m8, v128.and(sign, e5m)));
    const r = f32x4.add(m4, v128.xor(m1, v128.and(sign, e10m)));
    // Shoemake's components are (t, p, q, r) times 0.5 / sqrt(t); the
    // common factor disappears in the normalization, so skip it.
    const n = f32x4.div(
      one,
      f32x4.sqrt(madd(t, t, madd(r, r, madd(q, q, f32x4.mul(p, p))))),
    );
    let qx = f32x4.mul(p, n);
    let qy = f32x4.mul(q, n);
    let qz = f32x4.mul(r, n);
    let qw = f32x4.mul(t, n);
    // Case 0 is (x, y, z, w) = (p, q, r, t). The others permute it by the
    // Klein four-group: case 1 swaps x<->w and y<->z, case 2 x<->z and
    // y<->w, case 3 both. Lanes outside e5 (cases 1, 3) take the first
    // swap, lanes outside e0 (cases 2, 3) the second.
    let s = v128.andnot(v128.xor(qx, qw), e5m);
    qx = v128.xor(qx, s);
    qw = v128.xor(qw, s);
    s = v128.andnot(v128.xor(qy, qz), e5m);
    qy = v128.xor(qy, s);
    qz = v128.xor(qz, s);
    s = v128.andnot(v128.xor(qx, qz), e0m);
    qx = v128.xor(qx, s);
    qz = v128.xor(qz, s);
    s = v128.andnot(v128.xor(qy, qw), e0m);
    qy = v128.xor(qy, s);
    qw = v128.xor(qw, s);

    v128.store(pose, m3);
    v128.store(pose, m7, 16);
    v128.store(pose, m11, 32);
    v128.store(pose, qx, 48);
    v128.store(pose, qy, 64);
    v128.store(pose, qz, 80);
    v128.store(pose, qw, 96);
    v128.store(pose, sx, 112);
    v128.store(pose, sy, 128);
    v128.store(pose, sz, 144);
    matrices += 4 * MATRIX_BYTES;
    pose += GROUP_BYTES;
  }
}

/** Batch form of {@link matToQuat}: job words `matrices, pose, count`. */
export function matToQuatBatch(jobs: usize, jobCount: i32): void {
  for (let j = 0; j < jobCount; j++, jobs += 48) {
    matToQuat(load<u32>(jobs), load<u32>(jobs, 4), load<i32>(jobs, 8));
  }
}
