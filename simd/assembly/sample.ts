// Compact clip sampling: four joints at a time in SoA, from per-track keys
// (see `animation/compact_clip.ts` for the format and `simd/reference_sample.ts`
// for the scalar twin, the semantics).
//
// Each playback owns a cache shaped like its pose: per SoA×4 group, the
// decoded keys left and right of the last time sampled (two pose groups),
// and per path the interval they hold, `[lo, hi)`, with `inv = 1 / (hi - lo)`
// (0 for a held value). A frame compares the time with every lane's interval
// at once; only lanes whose interval the time left go to the scalar refill,
// which walks that track's cursor forward (playing forward, a frame moves by
// at most a key or two) or searches (seeks, loops, reversed playback). Then
// the group interpolates in straight-line SIMD as `blendPoses` does, with a
// weight per lane. Constant and rest-pose lanes hold `lo = -TIME_BOUND`,
// `hi = TIME_BOUND`, `inv = 0`: they are never refilled and never read keys.

import {
  CACHE_CURSORS,
  CACHE_GROUP_BYTES,
  CACHE_RIGHT,
  CACHE_TIMING,
  JOB_BYTES,
  SMALLEST_THREE_MAX,
  SMALLEST_THREE_RANGE,
  TIME_BOUND,
  TRACK_BYTES,
  TRACK_RANGED,
  TRACK_SMALLEST_THREE,
  TRACK_STEP,
} from "./abi";
import { madd } from "./common";
import { blendPoses } from "./blend";

/** Byte offset of path p's first field in a pose group (tx, qx, sx). */
// @ts-ignore: decorator
@inline function fieldOffset(p: i32): usize {
  return p == 0 ? 0 : p == 1 ? 48 : 112;
}

/**
 * Decodes key `k` of the track at `track` into the lane at `dst` (component
 * stride 16 bytes: a pose lane).
 */
function decodeKey(clip: usize, track: usize, k: u32, rotation: bool, dst: usize): void {
  const values = clip + load<u32>(track, 4);
  const format = load<u32>(track, 12) & 15;
  if (format == TRACK_SMALLEST_THREE) {
    const bits = load<u64>(values + (<usize>k << 3));
    const step: f32 = (<f32>2 * <f32>SMALLEST_THREE_RANGE) / <f32>SMALLEST_THREE_MAX;
    const a = <f32>(<u32>(bits & 0xfffff)) * step - <f32>SMALLEST_THREE_RANGE;
    const b = <f32>(<u32>((bits >> 20) & 0xfffff)) * step - <f32>SMALLEST_THREE_RANGE;
    const c = <f32>(<u32>((bits >> 40) & 0xfffff)) * step - <f32>SMALLEST_THREE_RANGE;
    const largest = <u32>(bits >> 60) & 3;
    const d = sqrt<f32>(max<f32>(0, <f32>1 - a * a - b * b - c * c));
    let x = a, y = b, z = c, w = d;
    if (largest == 0) x = d, y = a, z = b, w = c;
    else if (largest == 1) y = d, z = b, w = c;
    else if (largest == 2) z = d, w = c;
    store<f32>(dst, x);
    store<f32>(dst, y, 16);
    store<f32>(dst, z, 32);
    store<f32>(dst, w, 48);
    return;
  }
  if (format == TRACK_RANGED) {
    const at = values + <usize>k * 6;
    for (let c: usize = 0; c < 3; c++) {
      const q = <f32>load<u16>(at + (c << 1));
      store<f32>(dst + (c << 4), load<f32>(track + (c << 2), 16) + q * load<f32>(track + (c << 2), 28));
    }
    return;
  }
  const n: usize = rotation ? 4 : 3;
  const at = values + <usize>k * (n << 2);
  for (let c: usize = 0; c < n; c++) store<f32>(dst + (c << 4), load<f32>(at + (c << 2)));
}

/** Index of the key interval `[times[k], times[k + 1])` holding `t`, for `times[0] <= t < times[n - 1]`. */
function findKey(times: usize, n: u32, cursor: u32, t: f32): u32 {
  let k = cursor;
  if (k < n - 1 && load<f32>(times + (<usize>k << 2)) <= t) {
    while (load<f32>(times + (<usize>(k + 1) << 2)) <= t) k++;
    return k;
  }
  let lo: u32 = 0, hi = n - 1;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (load<f32>(times + (<usize>mid << 2)) <= t) lo = mid;
    else hi = mid;
  }
  return lo;
}

/** Refills lane `lane` of path `p` of the cache group at `group` for time `t`. */
function refill(clip: usize, track: usize, group: usize, p: i32, lane: i32, t: f32): void {
  const times = clip + load<u32>(track);
  const n = load<u32>(track, 8);
  const step = (load<u32>(track, 12) & TRACK_STEP) != 0;
  const timing = group + CACHE_TIMING + <usize>p * 48 + (<usize>lane << 2);
  const cursorAt = group + CACHE_CURSORS + (<usize>p << 4) + (<usize>lane << 2);
  const left = group + fieldOffset(p) + (<usize>lane << 2);
  const right = left + CACHE_RIGHT;
  const rotation = p == 1;
  const components: usize = rotation ? 4 : 3;
  const first = load<f32>(times);
  const last = load<f32>(times + (<usize>(n - 1) << 2));
  let lo: f32, hi: f32, inv: f32 = 0, k: u32;
  if (n == 1 || t < first) {
    k = 0, lo = -<f32>TIME_BOUND, hi = n == 1 ? <f32>TIME_BOUND : first;
  } else if (t >= last) {
    k = n - 1, lo = last, hi = <f32>TIME_BOUND;
  } else {
    const previous = load<u32>(cursorAt);
    const previousHi = load<f32>(timing, 16);
    k = findKey(times, n, previous, t);
    lo = load<f32>(times + (<usize>k << 2));
    hi = load<f32>(times + (<usize>(k + 1) << 2));
    if (!step) {
      inv = <f32>1 / (hi - lo);
      // Playing forward into the next interval: its left key is the right one held.
      if (k == previous + 1 && previousHi == lo) {
        for (let c: usize = 0; c < components; c++) {
          store<f32>(left + (c << 4), load<f32>(right + (c << 4)));
        }
      } else {
        decodeKey(clip, track, k, rotation, left);
      }
      decodeKey(clip, track, k + 1, rotation, right);
      if (rotation) {
        const dot = load<f32>(left) * load<f32>(right) + load<f32>(left, 16) * load<f32>(right, 16) +
          load<f32>(left, 32) * load<f32>(right, 32) + load<f32>(left, 48) * load<f32>(right, 48);
        if (dot < 0) {
          for (let c: usize = 0; c < 4; c++) store<f32>(right + (c << 4), -load<f32>(right + (c << 4)));
        }
      }
      store<f32>(timing, lo);
      store<f32>(timing, hi, 16);
      store<f32>(timing, inv, 32);
      store<u32>(cursorAt, k);
      return;
    }
  }
  decodeKey(clip, track, k, rotation, left);
  for (let c: usize = 0; c < components; c++) store<f32>(right + (c << 4), load<f32>(left + (c << 4)));
  store<f32>(timing, lo);
  store<f32>(timing, hi, 16);
  store<f32>(timing, inv, 32);
  store<u32>(cursorAt, k);
}

/** out = left + (right - left) * w at byte offset o. */
// @ts-ignore: decorator
@inline function lerpAt(group: usize, out: usize, o: usize, w: v128): void {
  const a = v128.load(group + o);
  v128.store(out + o, madd(f32x4.sub(v128.load(group + o + CACHE_RIGHT), a), w, a));
}

/** The weight of path p's lanes at time t4: clamp((t - lo) * inv, 0, 1). */
// @ts-ignore: decorator
@inline function weightOf(group: usize, p: usize, t4: v128): v128 {
  const timing = group + CACHE_TIMING + p * 48;
  const w = f32x4.mul(f32x4.sub(t4, v128.load(timing)), v128.load(timing, 32));
  return f32x4.min(f32x4.max(w, f32x4.splat(0)), f32x4.splat(1));
}

/**
 * Samples the compact clip at `clip` at time `t` into the pose at `out`
 * (`groupCount` SoA×4 groups), through the playback cache at `cache`.
 */
export function sampleCompact(clip: usize, cache: usize, out: usize, groupCount: i32, t: f32): void {
  if (groupCount > <i32>load<u32>(clip)) groupCount = <i32>load<u32>(clip);
  const trackCount = load<u32>(clip, 4);
  const lanes = clip + load<u32>(clip, 8);
  const tracks = clip + load<u32>(clip, 12);
  const t4 = f32x4.splat(t);
  for (let g = 0; g < groupCount; g++) {
    const group = cache + <usize>g * CACHE_GROUP_BYTES;
    for (let p = 0; p < 3; p++) {
      const timing = group + CACHE_TIMING + <usize>p * 48;
      const outside = v128.or(f32x4.lt(t4, v128.load(timing)), f32x4.ge(t4, v128.load(timing, 16)));
      let bits = i32x4.bitmask(outside);
      while (bits) {
        const lane = ctz(bits);
        bits &= bits - 1;
        const track = <u32>load<i16>(lanes + ((<usize>(g * 3 + p) << 2) + <usize>lane) * 2);
        if (track < trackCount) refill(clip, tracks + <usize>track * TRACK_BYTES, group, p, lane, t);
      }
    }
    const o = out + <usize>g * 160;
    const wt = weightOf(group, 0, t4);
    lerpAt(group, o, 0, wt);
    lerpAt(group, o, 16, wt);
    lerpAt(group, o, 32, wt);
    const ws = weightOf(group, 2, t4);
    lerpAt(group, o, 112, ws);
    lerpAt(group, o, 128, ws);
    lerpAt(group, o, 144, ws);
    const wr = weightOf(group, 1, t4);
    const ax = v128.load(group, 48), ay = v128.load(group, 64);
    const az = v128.load(group, 80), aw = v128.load(group, 96);
    const x = madd(f32x4.sub(v128.load(group, 48 + CACHE_RIGHT), ax), wr, ax);
    const y = madd(f32x4.sub(v128.load(group, 64 + CACHE_RIGHT), ay), wr, ay);
    const z = madd(f32x4.sub(v128.load(group, 80 + CACHE_RIGHT), az), wr, az);
    const w = madd(f32x4.sub(v128.load(group, 96 + CACHE_RIGHT), aw), wr, aw);
    const l = f32x4.add(madd(x, x, f32x4.mul(y, y)), madd(z, z, f32x4.mul(w, w)));
    // The identity where the blend has no length (zero padding lanes), as blendPoses.
    const n = f32x4.div(f32x4.splat(1), f32x4.sqrt(l));
    const m = f32x4.gt(l, f32x4.splat(0));
    v128.store(o, v128.and(f32x4.mul(x, n), m), 48);
    v128.store(o, v128.and(f32x4.mul(y, n), m), 64);
    v128.store(o, v128.and(f32x4.mul(z, n), m), 80);
    v128.store(o, v128.bitselect(f32x4.mul(w, n), f32x4.splat(1), m), 96);
  }
}

/**
 * Batch form of {@link sampleCompact}: job words `clip, cache, out,
 * groupCount, time (f32 bits), blendInto, weight (f32 bits)`. When
 * `blendInto` is not 0, the sampled pose is then blended into that pose
 * (`blendPoses(blendInto, out, blendInto, groupCount * 4, weight)`): a
 * cross-fade in the same call.
 */
export function sampleCompactBatch(jobs: usize, jobCount: i32): void {
  for (let j = 0; j < jobCount; j++, jobs += JOB_BYTES) {
    const groups = load<i32>(jobs, 12);
    const out = load<u32>(jobs, 8);
    sampleCompact(load<u32>(jobs), load<u32>(jobs, 4), out, groups, load<f32>(jobs, 16));
    const into = load<u32>(jobs, 20);
    if (into != 0) blendPoses(into, out, into, groups << 2, load<f32>(jobs, 24));
  }
}
