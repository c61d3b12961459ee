// Bisected rotation intervals (`TRACK_BISECT`, scalar twin in
// `simd/scalar/sample.ts`): a LINEAR rotation interval whose keys turn
// by a large angle is cut into 2^L equal pieces of time, the ends of each
// piece being slerp's values there (the normalized sum of two unit
// quaternions is slerp's midpoint, so halving needs no trigonometry), and
// the lane is refilled with the piece holding the time. The frame then
// normalized-lerps within the piece as for any lane: the clip stores only
// its keys, where subdividing them into stored keys cost up to 2.4 times
// the keys (RecursiveSkeletons, SimpleSkin).

import { BISECT_COSINE, BISECT_LEVELS, NO_CURSOR } from "./abi";
import { setInterval } from "./sample_keys";

/** Halvings of an arc whose ends have dot product `d` until a piece is within BISECT_COSINE. */
// @ts-ignore: decorator
@inline function bisectLevels(d: f32): i32 {
  let levels = 0;
  let c = d;
  while (c < <f32>BISECT_COSINE && levels < BISECT_LEVELS) {
    c = sqrt<f32>(max<f32>(0, (<f32>1 + c) * <f32>0.5));
    levels++;
  }
  return levels;
}

/** Start of piece `i` of `pieces` of `[lo, hi)`; the last piece ends at `hi` exactly. */
// @ts-ignore: decorator
@inline function pieceStart(lo: f32, hi: f32, i: i32, pieces: i32): f32 {
  return i == pieces ? hi : lo + (hi - lo) * (<f32>i / <f32>pieces);
}

/**
 * Narrows the lane at `left` / `right` (decoded keys of the interval
 * `[lo, hi)` holding `t`, component stride 16 bytes) to the piece holding
 * `t`, and stores that piece's interval at `timing` (lo, hi, inv at +0,
 * +16, +32) and NO_CURSOR at `cursorAt`: the next piece is found by a
 * search, not by the forward step.
 */
export function bisectInterval(
  left: usize,
  right: usize,
  timing: usize,
  cursorAt: usize,
  lo: f32,
  hi: f32,
  t: f32,
): void {
  let ax = load<f32>(left), ay = load<f32>(left, 16), az = load<f32>(left, 32), aw = load<f32>(left, 48);
  let bx = load<f32>(right), by = load<f32>(right, 16), bz = load<f32>(right, 32), bw = load<f32>(right, 48);
  const levels = bisectLevels((ax * bx + ay * by) + (az * bz + aw * bw));
  const pieces = 1 << levels;
  // The piece from the time's fraction, then moved by the rounding of the piece bounds.
  let s = <i32>floor<f32>((t - lo) / (hi - lo) * <f32>pieces);
  s = min(pieces - 1, max(0, s));
  while (s > 0 && t < pieceStart(lo, hi, s, pieces)) s--;
  while (s < pieces - 1 && t >= pieceStart(lo, hi, s + 1, pieces)) s++;
  for (let level = levels - 1; level >= 0; level--) {
    const mx = ax + bx, my = ay + by, mz = az + bz, mw = aw + bw;
    const l = (mx * mx + my * my) + (mz * mz + mw * mw);
    // Antipodal ends have no midpoint: keep the halves as they are (never for stored keys).
    if (!(l > 0)) break;
    const n = <f32>1 / sqrt<f32>(l);
    if ((s >> level) & 1) ax = mx * n, ay = my * n, az = mz * n, aw = mw * n;
    else bx = mx * n, by = my * n, bz = mz * n, bw = mw * n;
  }
  store<f32>(left, ax);
  store<f32>(left, ay, 16);
  store<f32>(left, az, 32);
  store<f32>(left, aw, 48);
  store<f32>(right, bx);
  store<f32>(right, by, 16);
  store<f32>(right, bz, 32);
  store<f32>(right, bw, 48);
  const start = pieceStart(lo, hi, s, pieces), end = pieceStart(lo, hi, s + 1, pieces);
  setInterval(timing, cursorAt, start, end, <f32>1 / (end - start), NO_CURSOR);
}
