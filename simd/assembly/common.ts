// Shared helpers of the core. Compiled twice: with relaxed SIMD, `madd` is a
// fused multiply-add; without, a multiply then an add.

/** a * b + c, four lanes. */
// @ts-ignore: decorator
@inline export function madd(a: v128, b: v128, c: v128): v128 {
  if (ASC_FEATURE_RELAXED_SIMD) return f32x4.relaxed_madd(a, b, c);
  return f32x4.add(f32x4.mul(a, b), c);
}
