// Helpers shared by compact clip sampling (`sample.ts`, `sample_sync.ts`,
// `sample_bisect.ts`, `sample_shared.ts`).

import { SMALLEST_THREE_MAX, SMALLEST_THREE_RANGE, SMALLEST_THREE_WIDE_MAX } from "./abi";
import { madd } from "./common";

/** Value of one step of a smallest-three field (20 bits over ±SMALLEST_THREE_RANGE). */
export const SMALLEST_THREE_STEP: f32 = (<f32>2 * <f32>SMALLEST_THREE_RANGE) / <f32>SMALLEST_THREE_MAX;
/** Value of one step of a wide smallest-three field (30 bits), rounded once from f64 as the twin's. */
export const SMALLEST_THREE_WIDE_STEP: f32 = <f32>((<f64>2 * <f64><f32>SMALLEST_THREE_RANGE) / <f64>SMALLEST_THREE_WIDE_MAX);

/** Bytes from a path record's left keys to its right keys (`RECORD_LEFT`). */
// @ts-ignore: decorator
@inline export function recordRight(rotation: bool): usize {
  return rotation ? 64 : 48;
}

/** Index of the key interval `[times[k], times[k + 1])` holding `t`, for `times[0] <= t < times[n - 1]`. */
export function findKey(times: usize, n: u32, t: f32): u32 {
  let lo: u32 = 0, hi = n - 1;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (load<f32>(times + (<usize>mid << 2)) <= t) lo = mid;
    else hi = mid;
  }
  return lo;
}

/** Stores a lane's interval `[lo, hi)`, its `inv` and cursor. */
// @ts-ignore: decorator
@inline export function setInterval(timing: usize, cursorAt: usize, lo: f32, hi: f32, inv: f32, cursor: u32): void {
  store<f32>(timing, lo);
  store<f32>(timing, hi, 16);
  store<f32>(timing, inv, 32);
  store<u32>(cursorAt, cursor);
}

/**
 * Three components (component stride 16 bytes) lerped at weights `w`:
 * `dst = a + (b - a) * w`, four lanes each.
 */
// @ts-ignore: decorator
@inline export function lerpVector(a: usize, b: usize, w: v128, dst: usize): void {
  const x = v128.load(a), y = v128.load(a, 16), z = v128.load(a, 32);
  v128.store(dst, madd(f32x4.sub(v128.load(b), x), w, x));
  v128.store(dst, madd(f32x4.sub(v128.load(b, 16), y), w, y), 16);
  v128.store(dst, madd(f32x4.sub(v128.load(b, 32), z), w, z), 32);
}

/**
 * Four lanes of quaternions `a` and `b` (their x, y, z, w) normalized-lerped
 * at weights `w` into `dst` (component stride 16 bytes); the identity where
 * the blend has no length (zero padding lanes), as `blendPoses`.
 */
// @ts-ignore: decorator
@inline export function nlerpLanes(
  ax: v128, ay: v128, az: v128, aw: v128,
  bx: v128, by: v128, bz: v128, bw: v128,
  w: v128, dst: usize,
): void {
  const x = madd(f32x4.sub(bx, ax), w, ax);
  const y = madd(f32x4.sub(by, ay), w, ay);
  const z = madd(f32x4.sub(bz, az), w, az);
  const q = madd(f32x4.sub(bw, aw), w, aw);
  const l = f32x4.add(madd(x, x, f32x4.mul(y, y)), madd(z, z, f32x4.mul(q, q)));
  const n = f32x4.div(f32x4.splat(1), f32x4.sqrt(l));
  const m = f32x4.gt(l, f32x4.splat(0));
  v128.store(dst, v128.and(f32x4.mul(x, n), m));
  v128.store(dst, v128.and(f32x4.mul(y, n), m), 16);
  v128.store(dst, v128.and(f32x4.mul(z, n), m), 32);
  v128.store(dst, v128.bitselect(f32x4.mul(q, n), f32x4.splat(1), m), 48);
}

/** {@link nlerpLanes} of the quaternions at `a` and `b`. */
// @ts-ignore: decorator
@inline export function nlerpRotations(a: usize, b: usize, w: v128, dst: usize): void {
  nlerpLanes(
    v128.load(a), v128.load(a, 16), v128.load(a, 32), v128.load(a, 48),
    v128.load(b), v128.load(b, 16), v128.load(b, 32), v128.load(b, 48),
    w, dst,
  );
}
