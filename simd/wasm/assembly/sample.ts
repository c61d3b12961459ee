// Compact clip sampling: four joints at a time in SoA, from per-track keys
// (see `animation/compact_clip.ts` for the format and `simd/scalar/sample.ts`
// for the scalar twin, the semantics).
//
// Each playback owns a cache: per SoA×4 group path with a keyed lane, a
// record of the decoded keys left and right of the last time sampled (pose
// lanes) and the interval they hold, `[lo, hi)`, with `inv = 1 / (hi - lo)`
// (0 for a held value). Where each group's records are, and the paths held
// in all four lanes (most translations and scales), are in the clip's plan
// (`PLAN_GROUP_BYTES`), which every playback of the clip shares: a held
// path is read from there, never from a cache. A frame compares the time
// with every keyed lane's interval at once; only lanes whose interval the
// time left are refilled: a lane of a
// synchronous block refills the whole block with one 4-wide decode
// (`sample_sync.ts`), any other lane its own track by the scalar refill.
// Either walks the cursor forward (playing forward, a frame moves by at most
// a key or two) or searches (seeks, loops, reversed playback). Blocks keyed
// at the same times as others (most of a motion capture's) are refilled
// first, a run at a time (`refillTimelines`), which leaves their lanes as
// the group loop would have: the scalar reference has no counterpart. Then
// the group interpolates in straight-line SIMD as `blendPoses` does, with a
// weight per lane. Constant and rest-pose lanes of a keyed path hold
// `lo = -TIME_BOUND`, `hi = TIME_BOUND`, `inv = 0`: they are never refilled
// and never read keys.
// Bisected rotation tracks (`TRACK_BISECT`) hold a piece of their key
// interval instead (see `sample_bisect.ts`) and refill by a search.
// A clip on one shared timeline (`CLIP_SHARED_KEYS`) has none of this: it
// is sampled by `sample_shared.ts`, with one weight for all of its groups.

import {
  CLIP_SHARED_GROUPS,
  CLIP_SHARED_KEYS,
  JOB_BYTES,
  SAMPLE_BLEND_INTO,
  SAMPLE_CACHE,
  SAMPLE_CLIP,
  SAMPLE_GROUP_COUNT,
  SAMPLE_OUT,
  SAMPLE_TIME,
  SAMPLE_WEIGHT,
  SMALLEST_THREE_RANGE,
  NO_CURSOR,
  PLAN_GROUP_BYTES,
  PLAN_RECORDS,
  RECORD_CURSORS,
  RECORD_LEFT,
  SYNC_BYTES,
  TIME_BOUND,
  TRACK_BYTES,
  TRACK_RANGE_BYTES,
  TRACK_RANGED,
  TRACK_SMALLEST_THREE,
  TRACK_SMALLEST_THREE_WIDE,
  SMALLEST_THREE_WIDE_MAX,
  TRACK_BISECT,
  TRACK_STEP,
} from "./abi";
import { blendPoses } from "./blend";
import { field } from "./common";
import { bisectInterval } from "./sample_bisect";
import {
  findKey,
  recordRight,
  lerpVector,
  nlerpRotations,
  setInterval,
  SMALLEST_THREE_STEP,
  SMALLEST_THREE_WIDE_STEP,
} from "./sample_keys";
import { sampleShared } from "./sample_shared";
import { planOf, refillSync, refillTimelines, syncMask } from "./sample_sync";

/**
 * Stores the quaternion whose three smallest components are `a, b, c` (in
 * order; the `largest` rebuilt from unit length), negated where `sign` is
 * 0x80000000, into the lane at `dst`: placed by integer selects (cmov), as
 * the dropped index is as good as random from key to key.
 */
// @ts-ignore: decorator
@inline function storeSmallestThree(a: f32, b: f32, c: f32, largest: u32, sign: i32, dst: usize): void {
  const d = sqrt<f32>(max<f32>(0, <f32>1 - a * a - b * b - c * c));
  const ia = reinterpret<i32>(a) ^ sign, ib = reinterpret<i32>(b) ^ sign;
  const ic = reinterpret<i32>(c) ^ sign, id = reinterpret<i32>(d) ^ sign;
  store<i32>(dst, select<i32>(id, ia, largest == 0));
  store<i32>(dst, select<i32>(ia, select<i32>(id, ib, largest == 1), largest == 0), 16);
  store<i32>(dst, select<i32>(ib, select<i32>(id, ic, largest == 2), largest <= 1), 32);
  store<i32>(dst, select<i32>(id, ic, largest == 3), 48);
}

/**
 * Decodes key `k` of the track at `track` into the lane at `dst` (component
 * stride 16 bytes: a pose lane).
 */
// @ts-ignore: decorator
@inline function decodeKey(clip: usize, track: usize, k: u32, rotation: bool, dst: usize): void {
  const values = clip + load<u32>(track, 4);
  const format = load<u32>(track, 12) & 15;
  if (format == TRACK_SMALLEST_THREE) {
    const bits = load<u64>(values + (<usize>k << 3));
    const step = SMALLEST_THREE_STEP;
    const a = <f32>(<u32>(bits & 0xfffff)) * step - <f32>SMALLEST_THREE_RANGE;
    const b = <f32>(<u32>((bits >> 20) & 0xfffff)) * step - <f32>SMALLEST_THREE_RANGE;
    const c = <f32>(<u32>((bits >> 40) & 0xfffff)) * step - <f32>SMALLEST_THREE_RANGE;
    storeSmallestThree(a, b, c, <u32>(bits >> 60) & 3, <i32>((bits >> 62) & 1) << 31, dst);
    return;
  }
  if (format == TRACK_SMALLEST_THREE_WIDE) {
    const at = values + <usize>k * 12;
    const w0 = load<u32>(at), w1 = load<u32>(at, 4);
    const step = SMALLEST_THREE_WIDE_STEP;
    const a = <f32>(w0 & SMALLEST_THREE_WIDE_MAX) * step - <f32>SMALLEST_THREE_RANGE;
    const b = <f32>(w1 & SMALLEST_THREE_WIDE_MAX) * step - <f32>SMALLEST_THREE_RANGE;
    const c = <f32>(load<u32>(at, 8) & SMALLEST_THREE_WIDE_MAX) * step - <f32>SMALLEST_THREE_RANGE;
    storeSmallestThree(a, b, c, w0 >> 30, <i32>((w1 >> 30) & 1) << 31, dst);
    return;
  }
  if (format == TRACK_RANGED) {
    const at = values + TRACK_RANGE_BYTES + <usize>k * 6;
    for (let c: usize = 0; c < 3; c++) {
      const q = <f32>load<u16>(at + (c << 1));
      store<f32>(dst + (c << 4), load<f32>(values + (c << 2)) + q * load<f32>(values + (c << 2), 12));
    }
    return;
  }
  const n: usize = rotation ? 4 : 3;
  const at = values + <usize>k * (n << 2);
  for (let c: usize = 0; c < n; c++) store<f32>(dst + (c << 4), load<f32>(at + (c << 2)));
}

/** Copies the first `n` components of the lane at `from` to the lane at `to`. */
// @ts-ignore: decorator
@inline function copyLane(from: usize, to: usize, n: usize): void {
  store<f32>(to, load<f32>(from));
  store<f32>(to, load<f32>(from, 16), 16);
  store<f32>(to, load<f32>(from, 32), 32);
  if (n == 4) store<f32>(to, load<f32>(from, 48), 48);
}

/**
 * Plays lane `lane` of the path record at `rec` (path `p`) on into the
 * next interval when `t` lies there: one key decoded, the held right key
 * becoming the left one. The cursor is the left key of the LINEAR interval
 * held, else NO_CURSOR. False when `t` needs a search ({@link refill}).
 * Inline in the group loop: it is most refills of forward playback.
 */
// @ts-ignore: decorator
@inline function stepForward(clip: usize, track: usize, rec: usize, p: i32, lane: i32, t: f32): bool {
  const timing = rec + (<usize>lane << 2);
  const cursorAt = timing + RECORD_CURSORS;
  const cursor = load<u32>(cursorAt);
  const hi = load<f32>(timing, 16);
  if (cursor == NO_CURSOR || cursor + 2 >= load<u32>(track, 8) || t < hi) return false;
  const next = load<f32>(clip + load<u32>(track) + (<usize>(cursor + 2) << 2));
  if (t >= next) return false;
  const rotation = p == 1;
  const left = timing + RECORD_LEFT;
  const right = left + recordRight(rotation);
  copyLane(right, left, rotation ? 4 : 3);
  decodeKey(clip, track, cursor + 2, rotation, right);
  setInterval(timing, cursorAt, hi, next, <f32>1 / (next - hi), cursor + 1);
  return true;
}

/**
 * Refills lane `lane` of the path record at `rec` (path `p`) for time `t`
 * by a search: seeks, loops, reversed playback, clamped ends.
 */
function refill(clip: usize, track: usize, rec: usize, p: i32, lane: i32, t: f32): void {
  const times = clip + load<u32>(track);
  const n = load<u32>(track, 8);
  const timing = rec + (<usize>lane << 2);
  const cursorAt = timing + RECORD_CURSORS;
  const rotation = p == 1;
  const left = timing + RECORD_LEFT;
  const right = left + recordRight(rotation);
  const components: usize = rotation ? 4 : 3;
  const step = (load<u32>(track, 12) & TRACK_STEP) != 0;
  const first = load<f32>(times);
  const last = load<f32>(times + (<usize>(n - 1) << 2));
  if (n == 1 || t < first || t >= last) {
    const k: u32 = n == 1 || t < first ? 0 : n - 1;
    decodeKey(clip, track, k, rotation, left);
    copyLane(left, right, components);
    if (n == 1) setInterval(timing, cursorAt, -<f32>TIME_BOUND, <f32>TIME_BOUND, 0, NO_CURSOR);
    else if (k == 0) setInterval(timing, cursorAt, -<f32>TIME_BOUND, first, 0, NO_CURSOR);
    else setInterval(timing, cursorAt, last, <f32>TIME_BOUND, 0, NO_CURSOR);
    return;
  }
  const k = findKey(times, n, t);
  const lo = load<f32>(times + (<usize>k << 2));
  const next = load<f32>(times + (<usize>(k + 1) << 2));
  decodeKey(clip, track, k, rotation, left);
  if (step) {
    copyLane(left, right, components);
    setInterval(timing, cursorAt, lo, next, 0, NO_CURSOR);
  } else {
    decodeKey(clip, track, k + 1, rotation, right);
    if (load<u32>(track, 12) & TRACK_BISECT) bisectInterval(left, right, timing, cursorAt, lo, next, t);
    else setInterval(timing, cursorAt, lo, next, <f32>1 / (next - lo), k);
  }
}

/** The lanes of the path record at `rec` whose interval does not hold `t4` (a 4-bit mask). */
// @ts-ignore: decorator
@inline function outside(rec: usize, t4: v128): i32 {
  return i32x4.bitmask(v128.or(f32x4.lt(t4, v128.load(rec)), f32x4.ge(t4, v128.load(rec, 16))));
}

/** The weights of the path record at `rec`'s lanes at time t4: (t - lo) * inv. */
// @ts-ignore: decorator
@inline function weightOf(rec: usize, t4: v128): v128 {
  // Within [0, 1) without a clamp: t is inside every lane's interval (held lanes: inv = 0).
  return f32x4.mul(f32x4.sub(t4, v128.load(rec)), v128.load(rec, 32));
}

/**
 * Path `p` (translation 0, scale 2: three components at byte `at` of a
 * pose group) into the pose group at `o`: copied from the plan group at
 * `plan` when held (`rec` 0), else its record's lanes lerped at time `t4`.
 */
// @ts-ignore: decorator
@inline function vectorPath(plan: usize, rec: usize, o: usize, at: usize, t4: v128): void {
  if (rec == 0) {
    v128.store(o + at, v128.load(plan + at));
    v128.store(o + at, v128.load(plan + at, 16), 16);
    v128.store(o + at, v128.load(plan + at, 32), 32);
  } else {
    lerpVector(rec + RECORD_LEFT, rec + RECORD_LEFT + recordRight(false), weightOf(rec, t4), o + at);
  }
}

/**
 * Samples the compact clip at `clip` at time `t` into the pose at `out`
 * (`groupCount` SoA×4 groups), through the playback cache at `cache`.
 */
export function sampleCompact(clip: usize, cache: usize, out: usize, groupCount: i32, t: f32): void {
  if (groupCount > <i32>load<u32>(clip)) groupCount = <i32>load<u32>(clip);
  const syncCount = load<u32>(clip, 16);
  const sharedKeys = load<u32>(clip, CLIP_SHARED_KEYS);
  if (sharedKeys != 0 && syncCount != 0 && load<u32>(clip, CLIP_SHARED_GROUPS) != 0) {
    sampleShared(clip, cache, out, groupCount, t, sharedKeys);
    return;
  }
  const trackCount = load<u32>(clip, 4);
  const lanes = clip + load<u32>(clip, 8);
  const tracks = clip + load<u32>(clip, 12);
  const syncs = clip + load<u32>(clip, 20);
  const t4 = f32x4.splat(t);
  if (load<u32>(clip, 24) != 0) refillTimelines(clip, cache, <u32>groupCount, t);
  let plan = planOf(cache);
  for (let g = 0; g < groupCount; g++, plan += PLAN_GROUP_BYTES) {
    // A path held in all four lanes has no record: it is neither tested
    // nor interpolated, but copied from the plan.
    const offT = load<u32>(plan, PLAN_RECORDS), offR = load<u32>(plan, PLAN_RECORDS + 4);
    const offS = load<u32>(plan, PLAN_RECORDS + 8);
    const recT = offT ? cache + <usize>offT : 0, recR = offR ? cache + <usize>offR : 0;
    const recS = offS ? cache + <usize>offS : 0;
    // One test for the group's keyed lanes; most frames refill none of them.
    let all = 0;
    if (recT) all = outside(recT, t4);
    if (recR) all |= outside(recR, t4) << 4;
    if (recS) all |= outside(recS, t4) << 8;
    while (all) {
      const p = ctz(all) >> 2;
      let bits = (all >> (p << 2)) & 15;
      all &= ~(15 << (p << 2));
      const rec = p == 0 ? recT : p == 1 ? recR : recS;
      while (bits) {
        const lane = ctz(bits);
        bits &= bits - 1;
        const entry = load<i16>(lanes + ((<usize>(g * 3 + p) << 2) + <usize>lane) * 2);
        if (entry <= -2) {
          // A synchronous block: one refill for all of its lanes.
          const block = <u32>(-2 - <i32>entry);
          if (block >= syncCount) continue;
          const record = syncs + <usize>block * SYNC_BYTES;
          bits &= ~syncMask(record);
          refillSync(clip, record, rec, p, lane, t);
          continue;
        }
        const track = <u32>entry;
        if (track >= trackCount) continue;
        const record = tracks + <usize>track * TRACK_BYTES;
        if (!stepForward(clip, record, rec, p, lane, t)) refill(clip, record, rec, p, lane, t);
      }
    }
    const o = out + <usize>g * 160;
    vectorPath(plan, recT, o, 0, t4);
    vectorPath(plan, recS, o, 112, t4);
    // A held rotation is normalized (weight 0), as a shared clip's.
    if (recR == 0) nlerpRotations(plan + 48, plan + 48, f32x4.splat(0), o + 48);
    else nlerpRotations(recR + RECORD_LEFT, recR + RECORD_LEFT + recordRight(true), weightOf(recR, t4), o + 48);
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
    const groups = field<i32>(jobs, SAMPLE_GROUP_COUNT);
    const out = field<u32>(jobs, SAMPLE_OUT);
    sampleCompact(field<u32>(jobs, SAMPLE_CLIP), field<u32>(jobs, SAMPLE_CACHE), out, groups, field<f32>(jobs, SAMPLE_TIME));
    const into = field<u32>(jobs, SAMPLE_BLEND_INTO);
    if (into != 0) blendPoses(into, out, into, groups << 2, field<f32>(jobs, SAMPLE_WEIGHT));
  }
}
