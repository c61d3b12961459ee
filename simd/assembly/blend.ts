// Pose blending: one SoA×4 group (four joints) per iteration, every lane
// independent, so the whole kernel is straight-line SIMD without shuffles.
// Semantics: `blendPoses` of simd/reference.ts.
//
// V8 bounds-checks every memory access and rematerializes every v128
// constant at each use, so the constants (weights, 1, 0, the sign bit) are
// derived from the arguments once per call and stay in registers.

import { madd } from "./common";

/** `a * s + b * w`, four lanes: a translation or scale field. */
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
 * One pose group. All four rotation fields of `a` and `b` are loaded before
 * any is stored, so `out` may be `a` or `b`; the other fields read and write
 * only their own lanes.
 */
// @ts-ignore: decorator
@inline function blendGroup(
  a: usize,
  b: usize,
  out: usize,
  s: v128,
  w: v128,
  one: v128,
  zero: v128,
  sign: v128,
): void {
  const ax = v128.load(a, 48);
  const ay = v128.load(a, 64);
  const az = v128.load(a, 80);
  const aw = v128.load(a, 96);
  const bx = v128.load(b, 48);
  const by = v128.load(b, 64);
  const bz = v128.load(b, 80);
  const bw = v128.load(b, 96);
  // Shorter arc: t = -w where dot(a, b) < 0 (a compare, not dot's sign
  // bit, so that a dot of -0 keeps +w as in the reference).
  const dot = f32x4.add(madd(ax, bx, f32x4.mul(ay, by)), madd(az, bz, f32x4.mul(aw, bw)));
  const t = v128.xor(w, v128.and(f32x4.lt(dot, zero), sign));
  const x = madd(bx, t, f32x4.mul(ax, s));
  const y = madd(by, t, f32x4.mul(ay, s));
  const z = madd(bz, t, f32x4.mul(az, s));
  const qw = madd(bw, t, f32x4.mul(aw, s));
  const l = f32x4.add(madd(x, x, f32x4.mul(y, y)), madd(z, z, f32x4.mul(qw, qw)));
  // One division per group, not four. Where l == 0 (or NaN) the reference
  // writes the identity: x * inf = NaN there, which the mask replaces.
  const n = f32x4.div(one, f32x4.sqrt(l));
  const m = f32x4.gt(l, zero);
  v128.store(out, v128.and(f32x4.mul(x, n), m), 48);
  v128.store(out, v128.and(f32x4.mul(y, n), m), 64);
  v128.store(out, v128.and(f32x4.mul(z, n), m), 80);
  v128.store(out, v128.bitselect(f32x4.mul(qw, n), one, m), 96);
  lerpField(a, b, out, 0, s, w);
  lerpField(a, b, out, 16, s, w);
  lerpField(a, b, out, 32, s, w);
  lerpField(a, b, out, 112, s, w);
  lerpField(a, b, out, 128, s, w);
  lerpField(a, b, out, 144, s, w);
}

/**
 * Blends poses `a` and `b` into `out` over all `ceil(jointCount / 4)`
 * groups, padding lanes included: translation and scale
 * `a * (1 - weight) + b * weight`, rotation by nlerp along the shorter arc,
 * normalized, the identity where the blend has zero length. `out` may be
 * `a` or `b`.
 */
export function blendPoses(
  a: usize,
  b: usize,
  out: usize,
  jointCount: i32,
  weight: f32,
): void {
  const w = f32x4.splat(weight);
  const s = f32x4.splat(1 - weight);
  // jointCount >= 0 wherever a group runs, so `c` is a splat of 1. Derived
  // from the arguments, 1, 0 and -0 stay in registers instead of being
  // rebuilt from immediates at every use.
  const c = i32x4.splat(<i32>(<u32>jointCount >> 31) ^ 1);
  const one = f32x4.convert_i32x4_s(c);
  const zero = i32x4.shr_u(c, 1);
  const sign = i32x4.shl(c, 31);
  for (let g = (jointCount + 3) >> 2; g > 0; g--) {
    blendGroup(a, b, out, s, w, one, zero, sign);
    a += 160;
    b += 160;
    out += 160;
  }
}

/**
 * Batch form of {@link blendPoses}: job words `a, b, out, jointCount,
 * weight` (the weight's f32 bits).
 */
export function blendPosesBatch(jobs: usize, jobCount: i32): void {
  for (let j = 0; j < jobCount; j++, jobs += 48) {
    blendPoses(
      load<u32>(jobs),
      load<u32>(jobs, 4),
      load<u32>(jobs, 8),
      load<i32>(jobs, 12),
      load<f32>(jobs, 16),
    );
  }
}
