// Synchronous blocks of compact clips: the lanes of one SoA×4 group path
// whose keys are stored at shared times, `span` lanes per key in SoA (see
// `animation/_sync_blocks.ts`), so that one interval test and one 4-wide
// decode refill all of them (as ozz-animation decompresses four keys at
// once). Writes go through the block's lane mask: the path's other lanes
// (held, or with keys of their own) keep their cache.

import {
  NO_CURSOR,
  PLAN_GROUP_BYTES,
  PLAN_RECORDS,
  RECORD_CURSORS,
  RECORD_LEFT,
  SMALLEST_THREE_RANGE,
  SMALLEST_THREE_WIDE_MAX,
  SYNC_BYTES,
  SYNC_MASK_SHIFT,
  SYNC_RANGE_BYTES,
  SYNC_SPAN_SHIFT,
  TIME_BOUND,
  TRACK_RANGED,
  TRACK_SMALLEST_THREE,
  TRACK_SMALLEST_THREE_WIDE,
} from "./abi";
import { findKey, recordRight, SMALLEST_THREE_STEP, SMALLEST_THREE_WIDE_STEP } from "./sample_keys";

/** All ones in the lanes of the 4-bit `mask`. */
// @ts-ignore: decorator
@inline function laneMask(mask: u32): v128 {
  return i32x4.ne(v128.and(i32x4.splat(mask), i32x4(1, 2, 4, 8)), i32x4.splat(0));
}

/**
 * Stores `v` at `at` in the lanes of `m`, keeping the others; a block of
 * all four lanes (`full`, a constant after inlining) stores all of `v`.
 */
// @ts-ignore: decorator
@inline function storeMasked(at: usize, v: v128, m: v128, full: bool): void {
  v128.store(at, full ? v : v128.bitselect(v, v128.load(at), m));
}

/**
 * Stores the quaternions whose three smallest components are `a, b, c` (in
 * order; the `largest` rebuilt from unit length), their sign bits flipped
 * by `sign`, at `dst` in the lanes of `m`: branch-free, the rebuilt
 * component placed by selects on the dropped index.
 */
// @ts-ignore: decorator
@inline function placeSmallestThree(a: v128, b: v128, c: v128, largest: v128, sign: v128, dst: usize, m: v128, full: bool): void {
  const r = f32x4.sub(f32x4.sub(f32x4.sub(f32x4.splat(1), f32x4.mul(a, a)), f32x4.mul(b, b)), f32x4.mul(c, c));
  const d = f32x4.sqrt(f32x4.max(f32x4.splat(0), r));
  const e0 = i32x4.eq(largest, i32x4.splat(0));
  const e1 = i32x4.eq(largest, i32x4.splat(1));
  const e2 = i32x4.eq(largest, i32x4.splat(2));
  const e3 = i32x4.eq(largest, i32x4.splat(3));
  storeMasked(dst, v128.xor(v128.bitselect(d, a, e0), sign), m, full);
  storeMasked(dst + 16, v128.xor(v128.bitselect(a, v128.bitselect(d, b, e1), e0), sign), m, full);
  storeMasked(dst + 32, v128.xor(v128.bitselect(b, v128.bitselect(d, c, e2), v128.or(e0, e1)), sign), m, full);
  storeMasked(dst + 48, v128.xor(v128.bitselect(d, c, e3), sign), m, full);
}

/**
 * Decodes smallest-three key `k` of a block whose `span` lanes per key
 * are at `values` (their low words, then their high words) into the cache
 * lanes at `dst`, in the lanes of `m`.
 */
// @ts-ignore: decorator
@inline function decodeSmallestThree(values: usize, span: usize, k: u32, dst: usize, m: v128, full: bool): void {
  const at = values + <usize>k * (span << 3);
  const low = v128.load(at), high = v128.load(at + (span << 2));
  const field = i32x4.splat(0xfffff);
  const step = f32x4.splat(SMALLEST_THREE_STEP);
  const range = f32x4.splat(<f32>SMALLEST_THREE_RANGE);
  const bBits = v128.and(v128.or(i32x4.shr_u(low, 20), i32x4.shl(high, 12)), field);
  placeSmallestThree(
    f32x4.sub(f32x4.mul(f32x4.convert_i32x4_s(v128.and(low, field)), step), range),
    f32x4.sub(f32x4.mul(f32x4.convert_i32x4_s(bBits), step), range),
    f32x4.sub(f32x4.mul(f32x4.convert_i32x4_s(v128.and(i32x4.shr_u(high, 8), field)), step), range),
    v128.and(i32x4.shr_u(high, 28), i32x4.splat(3)),
    // Bit 62 of each key (bit 30 of its high word) negates it: into the sign bits.
    v128.and(i32x4.shl(high, 1), i32x4.splat(0x80000000)),
    dst, m, full,
  );
}

/** {@link decodeSmallestThree} of wide keys (three words per lane). */
// @ts-ignore: decorator
@inline function decodeWideSmallestThree(values: usize, span: usize, k: u32, dst: usize, m: v128, full: bool): void {
  const at = values + <usize>k * span * 12;
  const w0 = v128.load(at), w1 = v128.load(at + (span << 2)), w2 = v128.load(at + (span << 3));
  const field = i32x4.splat(SMALLEST_THREE_WIDE_MAX);
  const wide = f32x4.splat(SMALLEST_THREE_WIDE_STEP);
  const range = f32x4.splat(<f32>SMALLEST_THREE_RANGE);
  placeSmallestThree(
    f32x4.sub(f32x4.mul(f32x4.convert_i32x4_s(v128.and(w0, field)), wide), range),
    f32x4.sub(f32x4.mul(f32x4.convert_i32x4_s(v128.and(w1, field)), wide), range),
    f32x4.sub(f32x4.mul(f32x4.convert_i32x4_s(v128.and(w2, field)), wide), range),
    i32x4.shr_u(w0, 30),
    v128.and(i32x4.shl(w1, 1), i32x4.splat(0x80000000)),
    dst, m, full,
  );
}

/**
 * Decodes key `k` of the sync block at `record` into the cache lanes at
 * `dst` (a pose group's path: component stride 16 bytes), in the lanes of
 * `m`, branch-free within a format.
 */
// @ts-ignore: decorator
@inline function decodeSync(clip: usize, record: usize, k: u32, rotation: bool, dst: usize, m: v128, full: bool): void {
  const flags = load<u32>(record, 12);
  const format = flags & 15;
  const span = <usize>((flags >> SYNC_SPAN_SHIFT) & 7);
  const values = clip + load<u32>(record, 4);
  if (format == TRACK_SMALLEST_THREE) {
    decodeSmallestThree(values, span, k, dst, m, full);
    return;
  }
  if (format == TRACK_SMALLEST_THREE_WIDE) {
    decodeWideSmallestThree(values, span, k, dst, m, full);
    return;
  }
  if (format == TRACK_RANGED) {
    const at = values + SYNC_RANGE_BYTES + <usize>k * span * 6;
    for (let c: usize = 0; c < 3; c++) {
      const q = f32x4.convert_i32x4_s(v128.load16x4_u(at + c * (span << 1)));
      const v = f32x4.add(v128.load(values + (c << 4)), f32x4.mul(q, v128.load(values + 48 + (c << 4))));
      storeMasked(dst + (c << 4), v, m, full);
    }
    return;
  }
  const n: usize = rotation ? 4 : 3;
  const at = values + <usize>k * span * (n << 2);
  for (let c: usize = 0; c < n; c++) storeMasked(dst + (c << 4), v128.load(at + c * (span << 2)), m, full);
}

/** Copies the lanes of `m` of `n` components from `from` to `to`. */
// @ts-ignore: decorator
@inline function copyMasked(from: usize, to: usize, n: usize, m: v128, full: bool): void {
  storeMasked(to, v128.load(from), m, full);
  storeMasked(to + 16, v128.load(from, 16), m, full);
  storeMasked(to + 32, v128.load(from, 32), m, full);
  if (n == 4) storeMasked(to + 48, v128.load(from, 48), m, full);
}

/** Sets the interval, `inv` and cursor of the lanes of `m` of the path record at `rec`. */
// @ts-ignore: decorator
@inline function setSyncInterval(rec: usize, m: v128, full: bool, lo: f32, hi: f32, inv: f32, cursor: u32): void {
  storeMasked(rec, f32x4.splat(lo), m, full);
  storeMasked(rec + 16, f32x4.splat(hi), m, full);
  storeMasked(rec + 32, f32x4.splat(inv), m, full);
  storeMasked(rec + RECORD_CURSORS, i32x4.splat(cursor), m, full);
}

/**
 * Plays the block's lanes on into the next interval when `t` lies there
 * (one 4-wide decode, the right keys becoming the left ones); `lane` is
 * one of its lanes (all hold the same interval and cursor). False when `t`
 * needs a search.
 */
// @ts-ignore: decorator
@inline function stepSync(clip: usize, record: usize, rec: usize, p: i32, lane: i32, m: v128, full: bool, t: f32): bool {
  const cursor = load<u32>(rec + RECORD_CURSORS + (<usize>lane << 2));
  const hi = load<f32>(rec + (<usize>lane << 2), 16);
  if (cursor == NO_CURSOR || cursor + 2 >= load<u32>(record, 8) || t < hi) return false;
  const next = load<f32>(clip + load<u32>(record) + (<usize>(cursor + 2) << 2));
  if (t >= next) return false;
  const rotation = p == 1;
  const left = rec + RECORD_LEFT, right = left + recordRight(rotation);
  copyMasked(right, left, rotation ? 4 : 3, m, full);
  decodeSync(clip, record, cursor + 2, rotation, right, m, full);
  setSyncInterval(rec, m, full, hi, next, <f32>1 / (next - hi), cursor + 1);
  return true;
}

/** Refills the block's lanes for time `t` by a search. */
// @ts-ignore: decorator
@inline function search(clip: usize, record: usize, rec: usize, p: i32, m: v128, full: bool, t: f32): void {
  const times = clip + load<u32>(record);
  const n = load<u32>(record, 8);
  const rotation = p == 1;
  const left = rec + RECORD_LEFT, right = left + recordRight(rotation);
  const first = load<f32>(times);
  const last = load<f32>(times + (<usize>(n - 1) << 2));
  if (n == 1 || t < first || t >= last) {
    const k: u32 = n == 1 || t < first ? 0 : n - 1;
    decodeSync(clip, record, k, rotation, left, m, full);
    copyMasked(left, right, rotation ? 4 : 3, m, full);
    if (n == 1) setSyncInterval(rec, m, full, -<f32>TIME_BOUND, <f32>TIME_BOUND, 0, NO_CURSOR);
    else if (k == 0) setSyncInterval(rec, m, full, -<f32>TIME_BOUND, first, 0, NO_CURSOR);
    else setSyncInterval(rec, m, full, last, <f32>TIME_BOUND, 0, NO_CURSOR);
    return;
  }
  const k = findKey(times, n, t);
  const lo = load<f32>(times + (<usize>k << 2));
  const next = load<f32>(times + (<usize>(k + 1) << 2));
  decodeSync(clip, record, k, rotation, left, m, full);
  decodeSync(clip, record, k + 1, rotation, right, m, full);
  setSyncInterval(rec, m, full, lo, next, <f32>1 / (next - lo), k);
}

/** The lane mask of the sync record at `record`. */
// @ts-ignore: decorator
@inline export function syncMask(record: usize): u32 {
  return (load<u32>(record, 12) >> SYNC_MASK_SHIFT) & 15;
}

/**
 * Refills the lanes of the sync block at `record` (lane `lane` among them)
 * of the path record at `rec` (path `p`) for time `t`: one key decoded
 * when playing on into the next interval, else a search (seeks, loops,
 * reversed playback, ends).
 */
export function refillSync(clip: usize, record: usize, rec: usize, p: i32, lane: i32, t: f32): void {
  const mask = syncMask(record);
  const m = laneMask(mask);
  if (mask == 15) {
    if (!stepSync(clip, record, rec, p, lane, m, true, t)) search(clip, record, rec, p, m, true, t);
  } else if (!stepSync(clip, record, rec, p, lane, m, false, t)) search(clip, record, rec, p, m, false, t);
}

/** The plan of the clip of the playback cache at `cache` (`CACHE_HEADER_BYTES`). */
// @ts-ignore: decorator
@inline export function planOf(cache: usize): usize {
  return cache + <usize>load<u32>(cache);
}

/**
 * The record of path `p` of group `g` in the playback cache at `cache`
 * whose clip's plan is at `plan`; 0 for a path held in all four lanes.
 */
// @ts-ignore: decorator
@inline function recordOf(plan: usize, cache: usize, g: u32, p: u32): usize {
  const offset = load<u32>(plan + <usize>g * PLAN_GROUP_BYTES + PLAN_RECORDS + (<usize>p << 2));
  return offset ? cache + <usize>offset : 0;
}

/** A smallest-three rotation key of a four-lane block (`format` either kind). */
// @ts-ignore: decorator
@inline function decodeRotation(format: u32, values: usize, k: u32, dst: usize, all: v128): void {
  if (format == TRACK_SMALLEST_THREE) decodeSmallestThree(values, 4, k, dst, all, true);
  else decodeWideSmallestThree(values, 4, k, dst, all, true);
}

/** Whether timeline entry `e` names a block, path and group in range (the path: keyed or not). */
// @ts-ignore: decorator
@inline function validEntry(e: u32, syncCount: u32, groupCount: u32): bool {
  return (e & 0xffff) < syncCount && ((e >>> 16) & 3) != 3 && (e >>> 18) < groupCount;
}

/**
 * Refills the clip's timelines (`TIMELINE_ENTRY_BYTES`): runs of sync
 * blocks keyed at the same times, which therefore leave their intervals on
 * the same frames. One interval test on a run's first block decides for
 * the run, one search serves its blocks on a seek, and its blocks are
 * refilled in one loop, before the group loop finds their lanes within
 * their intervals: each block's keys decoded without the group loop's
 * per-lane dispatch and search. Entries out of range are skipped (the
 * group loop refills their lanes).
 */
export function refillTimelines(clip: usize, cache: usize, groupCount: u32, t: f32): void {
  const count = load<u32>(clip, 24);
  const entries = clip + load<u32>(clip, 28);
  const syncCount = load<u32>(clip, 16);
  const syncs = clip + load<u32>(clip, 20);
  const plan = planOf(cache);
  let i: u32 = 0;
  while (i < count) {
    const e = load<u32>(entries + (<usize>i << 2));
    i++;
    if (!validEntry(e, syncCount, groupCount)) continue;
    const record = syncs + <usize>(e & 0xffff) * SYNC_BYTES;
    const mask = syncMask(record);
    if (mask == 0) continue;
    const times = load<u32>(record);
    // The run: the entries after it whose blocks read the same times.
    let end = i;
    while (end < count) {
      const b = load<u32>(entries + (<usize>end << 2)) & 0xffff;
      if (b >= syncCount || load<u32>(syncs + <usize>b * SYNC_BYTES) != times) break;
      end++;
    }
    const p = <i32>((e >>> 16) & 3);
    const rec = recordOf(plan, cache, e >>> 18, <u32>p);
    // A path held in all four lanes has no record to refill.
    if (rec == 0) continue;
    const lane = <usize>ctz(mask);
    const timing = rec + (lane << 2);
    const hi = load<f32>(timing, 16);
    // The group loop's test, so that a NaN time refills nothing.
    if (!(t < load<f32>(timing) || t >= hi)) {
      i = end;
      continue;
    }
    // The interval the run moves into: the next one (as stepSync: the
    // right keys become the left ones) or, by one search for the run, any
    // within its keys (as search). Ends, other formats and masks refill as
    // the group loop would (refillSync).
    const cursor = load<u32>(timing + RECORD_CURSORS);
    const n = load<u32>(record, 8);
    const at = clip + times;
    const forward = cursor != NO_CURSOR && cursor + 2 < n && t >= hi && t < load<f32>(at + (<usize>(cursor + 2) << 2));
    // The run's right key (0: none) and its interval.
    let key: u32 = 0, from: f32 = 0, to: f32 = 0;
    if (forward) {
      key = cursor + 2;
      from = hi;
      to = load<f32>(at + (<usize>key << 2));
    } else if (n > 1 && t >= load<f32>(at) && t < load<f32>(at + (<usize>(n - 1) << 2))) {
      key = findKey(at, n, t) + 1;
      from = load<f32>(at + (<usize>(key - 1) << 2));
      to = load<f32>(at + (<usize>key << 2));
    }
    const inv = <f32>1 / (to - from);
    const all = laneMask(15);
    for (i--; i < end; i++) {
      const f = load<u32>(entries + (<usize>i << 2));
      if (!validEntry(f, syncCount, groupCount)) continue;
      const r = syncs + <usize>(f & 0xffff) * SYNC_BYTES;
      const q = <i32>((f >>> 16) & 3);
      const g = recordOf(plan, cache, f >>> 18, <u32>q);
      if (g == 0) continue;
      const flags = load<u32>(r, 12), m = (flags >> SYNC_MASK_SHIFT) & 15, format = flags & 15;
      const smallestThree = format == TRACK_SMALLEST_THREE || format == TRACK_SMALLEST_THREE_WIDE;
      if (key != 0 && q == 1 && smallestThree && m == 15 && key < load<u32>(r, 8)) {
        // Most refills: a rotation block of four lanes (span 4) of either
        // smallest-three format.
        const left = g + RECORD_LEFT, right = left + recordRight(true), values = clip + load<u32>(r, 4);
        if (forward) copyMasked(right, left, 4, all, true);
        else decodeRotation(format, values, key - 1, left, all);
        decodeRotation(format, values, key, right, all);
        setSyncInterval(g, all, true, from, to, inv, key - 1);
      } else if (m != 0) refillSync(clip, r, g, q, <i32>ctz(m), t);
    }
  }
}
