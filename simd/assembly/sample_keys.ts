// Helpers shared by the per-lane and the synchronous refills of compact
// clip sampling (`sample.ts`, `sample_sync.ts`).

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
