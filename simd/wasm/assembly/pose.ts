// Joint poses (SoA×4 TRS) <-> 3x4 joint matrices, four joints per iteration.
// Semantics: `quatToMat` and `matToQuat` of simd/scalar/mod.ts.
//
// V8 bounds-checks every memory access here (a compare and a branch, plus a
// limit computation per distinct offset) and rematerializes every v128
// constant at each use, so the loops below keep values in registers, store
// results as soon as they are complete, and derive constants from arguments
// where a constant would sit in the hot loop.

import {
  CONVERT_COUNT, JOB_BYTES, MAT_TO_QUAT_MATRICES, MAT_TO_QUAT_POSE, QUAT_TO_MAT_MATRICES, QUAT_TO_MAT_POSE,
} from "./abi";
import { field, madd } from "./common";

/** c - a * b, four lanes (fused in the relaxed build). */
// @ts-ignore: decorator
@inline function nmadd(a: v128, b: v128, c: v128): v128 {
  if (ASC_FEATURE_RELAXED_SIMD) return f32x4.relaxed_nmadd(a, b, c);
  return f32x4.sub(c, f32x4.mul(a, b));
}

// quatToMat addresses memory as `pointer + BIAS + k` with its pointers
// lowered by BIAS. A constant this large is not folded into the access's
// offset immediate (binaryen folds only offsets below 1024), so every access
// has offset 0 and V8 checks them all against one limit, instead of
// computing a limit per distinct offset in every iteration: about 8% faster.
const BIAS: usize = 1024;

/**
 * Transposes four fields (lanes = joints) into one matrix row per joint and
 * stores the rows of the first `left` joints, `o` bytes into each matrix
 * (`matrices` lowered by BIAS).
 */
// @ts-ignore: decorator
@inline function storeRows(
  f0: v128,
  f1: v128,
  f2: v128,
  f3: v128,
  matrices: usize,
  o: usize,
  left: i32,
): void {
  const lo = f32x4.shuffle(f0, f1, 0, 4, 1, 5);
  const lo2 = f32x4.shuffle(f2, f3, 0, 4, 1, 5);
  const hi = f32x4.shuffle(f0, f1, 2, 6, 3, 7);
  const hi2 = f32x4.shuffle(f2, f3, 2, 6, 3, 7);
  const m = matrices + BIAS + o;
  v128.store(m, i64x2.shuffle(lo, lo2, 0, 2));
  // Not `m + 48`: binaryen would fold that 48 into an offset immediate.
  if (left > 1) v128.store(matrices + BIAS + o + 48, i64x2.shuffle(lo, lo2, 1, 3));
  if (left > 2) v128.store(matrices + BIAS + o + 96, i64x2.shuffle(hi, hi2, 0, 2));
  if (left > 3) v128.store(matrices + BIAS + o + 144, i64x2.shuffle(hi, hi2, 1, 3));
}

/**
 * One pose group to the matrices of its first `left` (1..4) joints (both
 * pointers lowered by BIAS).
 */
// @ts-ignore: decorator
@inline function quatGroup(pose: usize, matrices: usize, left: i32): void {
  const x = v128.load(pose + BIAS + 48);
  const y = v128.load(pose + BIAS + 64);
  const z = v128.load(pose + BIAS + 80);
  const w = v128.load(pose + BIAS + 96);
  const x2 = f32x4.add(x, x);
  const y2 = f32x4.add(y, y);
  const z2 = f32x4.add(z, z);
  const xx = f32x4.mul(x, x2);
  const yy = f32x4.mul(y, y2);
  const zz = f32x4.mul(z, z2);
  const xy = f32x4.mul(x, y2);
  const xz = f32x4.mul(x, z2);
  const yz = f32x4.mul(y, z2);
  const sx = v128.load(pose + BIAS + 112);
  const sy = v128.load(pose + BIAS + 128);
  const sz = v128.load(pose + BIAS + 144);
  // (1 - (yy + zz)) * sx as sx - (yy + zz) * sx: no constant 1 to
  // materialize. Each row is stored before the next one is computed, which
  // keeps the live values within the 16 vector registers.
  storeRows(
    nmadd(f32x4.add(yy, zz), sx, sx),
    f32x4.mul(nmadd(w, z2, xy), sy),
    f32x4.mul(madd(w, y2, xz), sz),
    v128.load(pose + BIAS),
    matrices,
    0,
    left,
  );
  storeRows(
    f32x4.mul(madd(w, z2, xy), sx),
    nmadd(f32x4.add(xx, zz), sy, sy),
    f32x4.mul(nmadd(w, x2, yz), sz),
    v128.load(pose + BIAS + 16),
    matrices,
    16,
    left,
  );
  storeRows(
    f32x4.mul(nmadd(w, y2, xz), sx),
    f32x4.mul(madd(w, x2, yz), sy),
    nmadd(f32x4.add(xx, yy), sz, sz),
    v128.load(pose + BIAS + 32),
    matrices,
    32,
    left,
  );
}

/**
 * Joint poses to joint matrices, `M = T * R * S`. Reads `ceil(count / 4)`
 * pose groups and writes exactly `count` matrices.
 */
export function quatToMat(pose: usize, matrices: usize, count: i32): void {
  // Wraps around for pointers below BIAS; the accesses wrap back.
  pose -= BIAS;
  matrices -= BIAS;
  let left = count;
  for (; left >= 4; left -= 4) {
    quatGroup(pose, matrices, 4);
    pose += 160;
    matrices += 192;
  }
  // The last group stores only the joints that exist.
  if (left > 0) quatGroup(pose, matrices, left);
}

/** Batch form of {@link quatToMat}: job words `pose, matrices, count`. */
export function quatToMatBatch(jobs: usize, jobCount: i32): void {
  for (let j = 0; j < jobCount; j++, jobs += JOB_BYTES) {
    quatToMat(field<u32>(jobs, QUAT_TO_MAT_POSE), field<u32>(jobs, QUAT_TO_MAT_MATRICES), field<i32>(jobs, CONVERT_COUNT));
  }
}

/**
 * Matrices of one group of four (the first `left` real, the rest identity)
 * to its pose group. `one` and `sign` are splats of 1 and -0.
 */
// @ts-ignore: decorator
@inline function matGroup(
  matrices: usize,
  pose: usize,
  left: i32,
  one: v128,
  sign: v128,
): void {
  const zero = f32x4.splat(0);
  // Identity rows stand in for the matrices past `count` (never read); they
  // convert to exactly the identity pose the padding lanes must get.
  const e0 = f32x4(1, 0, 0, 0);
  const e1 = f32x4(0, 1, 0, 0);
  const e2 = f32x4(0, 0, 1, 0);
  const a0 = v128.load(matrices);
  const a1 = v128.load(matrices, 16);
  const a2 = v128.load(matrices, 32);
  let b0 = e0, b1 = e1, b2 = e2;
  let c0 = e0, c1 = e1, c2 = e2;
  let d0 = e0, d1 = e1, d2 = e2;
  if (left > 1) {
    b0 = v128.load(matrices, 48);
    b1 = v128.load(matrices, 64);
    b2 = v128.load(matrices, 80);
  }
  if (left > 2) {
    c0 = v128.load(matrices, 96);
    c1 = v128.load(matrices, 112);
    c2 = v128.load(matrices, 128);
  }
  if (left > 3) {
    d0 = v128.load(matrices, 144);
    d1 = v128.load(matrices, 160);
    d2 = v128.load(matrices, 176);
  }

  // Rows of four matrices to one vector per element (lanes = matrices);
  // the translation column goes straight out.
  let lo = f32x4.shuffle(a0, b0, 0, 4, 1, 5);
  let lo2 = f32x4.shuffle(c0, d0, 0, 4, 1, 5);
  let hi = f32x4.shuffle(a0, b0, 2, 6, 3, 7);
  let hi2 = f32x4.shuffle(c0, d0, 2, 6, 3, 7);
  let m0 = i64x2.shuffle(lo, lo2, 0, 2);
  let m1 = i64x2.shuffle(lo, lo2, 1, 3);
  let m2 = i64x2.shuffle(hi, hi2, 0, 2);
  v128.store(pose, i64x2.shuffle(hi, hi2, 1, 3));
  lo = f32x4.shuffle(a1, b1, 0, 4, 1, 5);
  lo2 = f32x4.shuffle(c1, d1, 0, 4, 1, 5);
  hi = f32x4.shuffle(a1, b1, 2, 6, 3, 7);
  hi2 = f32x4.shuffle(c1, d1, 2, 6, 3, 7);
  let m4 = i64x2.shuffle(lo, lo2, 0, 2);
  let m5 = i64x2.shuffle(lo, lo2, 1, 3);
  let m6 = i64x2.shuffle(hi, hi2, 0, 2);
  v128.store(pose, i64x2.shuffle(hi, hi2, 1, 3), 16);
  lo = f32x4.shuffle(a2, b2, 0, 4, 1, 5);
  lo2 = f32x4.shuffle(c2, d2, 0, 4, 1, 5);
  hi = f32x4.shuffle(a2, b2, 2, 6, 3, 7);
  hi2 = f32x4.shuffle(c2, d2, 2, 6, 3, 7);
  let m8 = i64x2.shuffle(lo, lo2, 0, 2);
  let m9 = i64x2.shuffle(lo, lo2, 1, 3);
  let m10 = i64x2.shuffle(hi, hi2, 0, 2);
  v128.store(pose, i64x2.shuffle(hi, hi2, 1, 3), 32);

  // Scale: column lengths, x negated for a negative determinant.
  const lx = madd(m8, m8, madd(m4, m4, f32x4.mul(m0, m0)));
  const ly = madd(m9, m9, madd(m5, m5, f32x4.mul(m1, m1)));
  const lz = madd(m10, m10, madd(m6, m6, f32x4.mul(m2, m2)));
  const sy = f32x4.sqrt(ly);
  const sz = f32x4.sqrt(lz);
  const det = madd(
    m2,
    nmadd(m5, m8, f32x4.mul(m4, m9)),
    nmadd(
      m1,
      nmadd(m6, m8, f32x4.mul(m4, m10)),
      f32x4.mul(m0, nmadd(m6, m9, f32x4.mul(m5, m10))),
    ),
  );
  // sqrt >= 0, so setting the sign bit negates it.
  const sx = v128.or(f32x4.sqrt(lx), v128.and(f32x4.lt(det, zero), sign));
  v128.store(pose, sx, 112);
  v128.store(pose, sy, 128);
  v128.store(pose, sz, 144);
  // 1 / s as s * (1 / l), l = s * s: the division runs beside the square
  // root rather than after it, shortening the dependency chain. A zero
  // column gives 0 * inf = NaN, which the mask turns into the reference's 0.
  const ix = v128.and(f32x4.mul(sx, f32x4.div(one, lx)), f32x4.ne(lx, zero));
  const iy = v128.and(f32x4.mul(sy, f32x4.div(one, ly)), f32x4.ne(ly, zero));
  const iz = v128.and(f32x4.mul(sz, f32x4.div(one, lz)), f32x4.ne(lz, zero));
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
  // Every case is t = 1 +-m0 +-m5 +-m10 on the diagonal and p = m9 -+ m6,
  // q = m2 -+ m8, r = m4 -+ m1 off it. Mask e0 holds in cases {0, 1}, e5 in
  // {0, 2}, e10 in {0, 3}: a diagonal term is negated where its mask is
  // clear, an off-diagonal one where it is set.
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
  // Shoemake's components are (t, p, q, r) * 0.5 / sqrt(t); that common
  // factor cancels in the normalization, so it is never computed.
  const l = f32x4.add(madd(t, t, f32x4.mul(p, p)), madd(q, q, f32x4.mul(r, r)));
  const n = f32x4.mul(f32x4.sqrt(l), f32x4.div(one, l));
  let qx = f32x4.mul(p, n);
  let qy = f32x4.mul(q, n);
  let qz = f32x4.mul(r, n);
  let qw = f32x4.mul(t, n);
  // Case 0 is (x, y, z, w) = (p, q, r, t); the others permute it by the
  // Klein four-group: case 1 swaps x<->w and y<->z, case 2 x<->z and
  // y<->w, case 3 both. Lanes outside e5 (cases 1, 3) take the first pair
  // of swaps, lanes outside e0 (cases 2, 3) the second; xor swaps.
  let s = v128.andnot(v128.xor(qx, qw), e5m);
  qx = v128.xor(qx, s);
  qw = v128.xor(qw, s);
  s = v128.andnot(v128.xor(qy, qz), e5m);
  qy = v128.xor(qy, s);
  qz = v128.xor(qz, s);
  s = v128.andnot(v128.xor(qx, qz), e0m);
  v128.store(pose, v128.xor(qx, s), 48);
  v128.store(pose, v128.xor(qz, s), 80);
  s = v128.andnot(v128.xor(qy, qw), e0m);
  v128.store(pose, v128.xor(qy, s), 64);
  v128.store(pose, v128.xor(qw, s), 96);
}

/**
 * Joint matrices to joint poses: translation, scale (column lengths, x
 * negated for a negative determinant, a zero scale leaving its column zero)
 * and Shoemake's quaternion with the reference's case order, normalized.
 * Reads exactly `count` matrices; writes `ceil(count / 4)` groups, the
 * padding lanes getting the identity pose.
 */
export function matToQuat(matrices: usize, pose: usize, count: i32): void {
  // count >= 0 wherever a group runs, so `c` is a splat of 1. Derived from
  // the argument, 1 and -0 stay in registers instead of being rebuilt from
  // immediates at every use.
  const c = i32x4.splat(<i32>(<u32>count >> 31) ^ 1);
  const one = f32x4.convert_i32x4_s(c);
  const sign = i32x4.shl(c, 31);
  let left = count;
  for (; left >= 4; left -= 4) {
    matGroup(matrices, pose, 4, one, sign);
    matrices += 192;
    pose += 160;
  }
  if (left > 0) matGroup(matrices, pose, left, one, sign);
}

/** Batch form of {@link matToQuat}: job words `matrices, pose, count`. */
export function matToQuatBatch(jobs: usize, jobCount: i32): void {
  for (let j = 0; j < jobCount; j++, jobs += JOB_BYTES) {
    matToQuat(field<u32>(jobs, MAT_TO_QUAT_MATRICES), field<u32>(jobs, MAT_TO_QUAT_POSE), field<i32>(jobs, CONVERT_COUNT));
  }
}
