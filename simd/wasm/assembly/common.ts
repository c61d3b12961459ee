// Shared helpers of the core. Compiled twice: with relaxed SIMD, `madd` is a
// fused multiply-add; without, a multiply then an add.

/** a * b + c, four lanes. */
// @ts-ignore: decorator
@inline export function madd(a: v128, b: v128, c: v128): v128 {
  if (ASC_FEATURE_RELAXED_SIMD) return f32x4.relaxed_madd(a, b, c);
  return f32x4.add(f32x4.mul(a, b), c);
}

/** Lane-wise minimum of finite lanes (relaxed: one instruction on x86). */
// @ts-ignore: decorator
@inline export function vmin(a: v128, b: v128): v128 {
  if (ASC_FEATURE_RELAXED_SIMD) return f32x4.relaxed_min(a, b);
  return f32x4.pmin(a, b);
}

/** Lane-wise maximum of finite lanes. */
// @ts-ignore: decorator
@inline export function vmax(a: v128, b: v128): v128 {
  if (ASC_FEATURE_RELAXED_SIMD) return f32x4.relaxed_max(a, b);
  return f32x4.pmax(a, b);
}

/** Field `field` (a word index of `abi.ts`) of the job row at `row`. */
// @ts-ignore: decorator
@inline export function field<T>(row: usize, field: i32): T {
  return load<T>(row + (<usize>field << 2));
}
