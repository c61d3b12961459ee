// Helpers shared by the refills of compact clip sampling (`sample.ts`,
// `sample_sync.ts`, `sample_bisect.ts`).

import { SMALLEST_THREE_MAX, SMALLEST_THREE_RANGE, SMALLEST_THREE_WIDE_MAX } from "./abi";

/** Value of one step of a smallest-three field (20 bits over ±SMALLEST_THREE_RANGE). */
export const SMALLEST_THREE_STEP: f32 = (<f32>2 * <f32>SMALLEST_THREE_RANGE) / <f32>SMALLEST_THREE_MAX;
/** Value of one step of a wide smallest-three field (30 bits), rounded once from f64 as the twin's. */
export const SMALLEST_THREE_WIDE_STEP: f32 = <f32>((<f64>2 * <f64><f32>SMALLEST_THREE_RANGE) / <f64>SMALLEST_THREE_WIDE_MAX);

/** Byte offset of path p's first field in a pose group (tx, qx, sx). */
// @ts-ignore: decorator
@inline export function fieldOffset(p: i32): usize {
  return p == 0 ? 0 : p == 1 ? 48 : 112;
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
