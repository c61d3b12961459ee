// Pose blending, one SoA×4 group (four joints) per iteration. Every lane is
// independent, so there are no shuffles: straight-line SIMD, 20 loads and
// 10 stores per group. Semantics: `blendPoses` of simd/scalar/mod.ts.
//
// The loop is limited by its instruction count (V8 adds a compare and a
// branch per memory access) and by the latency of the rotation chain (dot,
// blend, length, square root, division). So the rotation is software
// pipelined: each iteration blends the rotations of its group and stores the
// previous group's, normalized, so the square root and the division of one
// group overlap the loads and arithmetic of the next (6-10% faster).
// Constants stay few: 1 comes from an argument (V8 rebuilds v128 constants
// at each use), the sign flip is a shifted compare mask, and 0 is a
// one-instruction zero idiom.

import { BLEND_A, BLEND_B, BLEND_JOINT_COUNT, BLEND_OUT, BLEND_WEIGHT, JOB_BYTES } from "./abi";
import { field, madd } from "./common";

/** Field at byte offset `o`: `a * s + b * w`, four lanes. */
// @ts-ignore: decorator
@inline function lerpField(
  a: usize,
  b: usize,
  out: usize,
  o: usize,
  s: v128,
  w: v128,
): void {
  v128.store(out + o, madd(v128.load(b + o), w, f32x4.mul(v128.load(a + o), s)));
}

/**
 * Translation and scale of one group. Each field is loaded before it is
 * stored, so `out` may be `a` or `b`.
 */
// @ts-ignore: decorator
@inline function lerpFields(a: usize, b: usize, out: usize, s: v128, w: v128): void {
  lerpField(a, b, out, 0, s, w);
  lerpField(a, b, out, 16, s, w);
  lerpField(a, b, out, 32, s, w);
  lerpField(a, b, out, 112, s, w);
  lerpField(a, b, out, 128, s, w);
  lerpField(a, b, out, 144, s, w);
}

/**
 * Stores a group's blended rotation (x, y, z, qw with squared length l),
 * normalized; the identity where l is not > 0 (zero, or NaN), as in the
 * reference. There 1 / sqrt(l) is inf or NaN, which the mask replaces.
 */
// @ts-ignore: decorator
@inline function storeRotation(
  out: usize,
  x: v128,
  y: v128,
  z: v128,
  qw: v128,
  l: v128,
  one: v128,
): void {
  // One division per group, not four.
  const n = f32x4.div(one, f32x4.sqrt(l));
  const m = f32x4.gt(l, f32x4.splat(0));
  v128.store(out, v128.and(f32x4.mul(x, n), m), 48);
  v128.store(out, v128.and(f32x4.mul(y, n), m), 64);
  v128.store(out, v128.and(f32x4.mul(z, n), m), 80);
  v128.store(out, v128.bitselect(f32x4.mul(qw, n), one, m), 96);
}

/**
 * Blends poses `a` and `b` into `out` over all `ceil(jointCount / 4)`
 * groups, padding lanes included: translation and scale
 * `a * (1 - weight) + b * weight`; rotation `a * (1 - weight) + b * t`
 * with `t = -weight` where `dot(a, b) < 0` (the shorter arc), normalized,
 * the identity where that blend has zero length. `out` may be `a` or `b`.
 */
export function blendPoses(
  a: usize,
  b: usize,
  out: usize,
  jointCount: i32,
  weight: f32,
): void {
  let groups = (jointCount + 3) >> 2;
  if (groups <= 0) return;
  const w = f32x4.splat(weight);
  const s = f32x4.splat(1 - weight);
  // jointCount > 0 here, so this is a splat of 1, kept in a register.
  const one = f32x4.convert_i32x4_s(i32x4.splat(<i32>(<u32>jointCount >> 31) ^ 1));
  let x: v128, y: v128, z: v128, qw: v128, l: v128;
  // The rotation of each group is loaded in full before the previous
  // group's is stored, and stored an iteration later: `out` may alias.
  let ax = v128.load(a, 48);
  let ay = v128.load(a, 64);
  let az = v128.load(a, 80);
  let aw = v128.load(a, 96);
  let bx = v128.load(b, 48);
  let by = v128.load(b, 64);
  let bz = v128.load(b, 80);
  let bw = v128.load(b, 96);
  for (;;) {
    const dot = f32x4.add(madd(ax, bx, f32x4.mul(ay, by)), madd(az, bz, f32x4.mul(aw, bw)));
    // t = -w where dot < 0: the compare mask shifted to the sign bit. Not
    // dot's own sign bit, so that a dot of -0 keeps +w as in the reference.
    const t = v128.xor(w, i32x4.shl(f32x4.lt(dot, f32x4.splat(0)), 31));
    x = madd(bx, t, f32x4.mul(ax, s));
    y = madd(by, t, f32x4.mul(ay, s));
    z = madd(bz, t, f32x4.mul(az, s));
    qw = madd(bw, t, f32x4.mul(aw, s));
    l = f32x4.add(madd(x, x, f32x4.mul(y, y)), madd(z, z, f32x4.mul(qw, qw)));
    lerpFields(a, b, out, s, w);
    if (--groups == 0) break;
    a += 160;
    b += 160;
    out += 160;
    ax = v128.load(a, 48);
    ay = v128.load(a, 64);
    az = v128.load(a, 80);
    aw = v128.load(a, 96);
    bx = v128.load(b, 48);
    by = v128.load(b, 64);
    bz = v128.load(b, 80);
    bw = v128.load(b, 96);
    storeRotation(out - 160, x, y, z, qw, l, one);
  }
  storeRotation(out, x, y, z, qw, l, one);
}

/**
 * Batch form of {@link blendPoses}: job words `a, b, out, jointCount,
 * weight` (the weight's f32 bits).
 */
export function blendPosesBatch(jobs: usize, jobCount: i32): void {
  for (let j = 0; j < jobCount; j++, jobs += JOB_BYTES) {
    blendPoses(
      field<u32>(jobs, BLEND_A),
      field<u32>(jobs, BLEND_B),
      field<u32>(jobs, BLEND_OUT),
      field<i32>(jobs, BLEND_JOINT_COUNT),
      field<f32>(jobs, BLEND_WEIGHT),
    );
  }
}
