/**
 * Scalar reference of compact clip sampling (`simd/wasm/assembly/sample.ts`),
 * over the same bytes: a compact clip (`animation/compact_clip.ts` builds
 * it), a playback's cache and a SoA×4 pose, all byte offsets into one
 * buffer. The SIMD kernels must agree with it; the scalar core runs it, so a
 * call allocates nothing (scratch lives in the modules: sampling is synchronous).
 * Keys: `keys.ts`; shared timelines: `shared.ts`; reads: `_sample_memory.ts`.
 *
 * @module
 */

import {
  NO_CURSOR,
  PLAN_GROUP_BYTES,
  PLAN_RECORDS,
  RECORD_CURSORS,
  RECORD_LEFT,
  TIME_BOUND,
  TRACK_BISECT,
  TRACK_BYTES,
  TRACK_RANGED,
  TRACK_SMALLEST_THREE,
  TRACK_STEP,
} from "../wasm/assembly/abi.ts";
import {
  CLIP_SHARED_GROUPS,
  CLIP_SHARED_KEYS,
  SYNC_BYTES,
  SYNC_MASK_SHIFT,
  SYNC_RANGE_BYTES,
  SYNC_SPAN_SHIFT,
  TRACK_SMALLEST_THREE_WIDE,
} from "../wasm/assembly/abi.ts";
import {
  bisectPieceInPlace,
  decodeSmallestThreeAt,
  decodeTrackKey,
  findKey,
  storeNormalized,
} from "./keys.ts";
import { pathField, sampleShared } from "./shared.ts";
import {
  heap,
  i16At,
  readF32,
  type SampleMemory,
  sampleTime,
  u16At,
  u32At,
  useMemory,
} from "./_sample_memory.ts";

export { type SampleMemory, sampleMemory, sampleTime } from "./_sample_memory.ts";

export {
  bisectPiece,
  bisectPieceCount,
  decodeSmallestThree,
  decodeSmallestThreeWide,
  pieceStart,
  type SlerpTerms,
  slerpTerms,
  slerpWeight,
} from "./keys.ts";

const f = Math.fround;
const BOUND = f(TIME_BOUND);

/** Bytes from a path record's left keys to its right keys (path `p`: rotation 1). */
function recordRight(p: number): number {
  return p === 1 ? 64 : 48;
}

// Scratch (synchronous, so sharing is safe): a decoded key, key times (or a
// ranged key's min and scale) read, a bisected interval's two keys, a lane's
// blended rotation.
const key = new Float32Array(4), keyTimes = new Float64Array(2);
const bisectLeft = new Float32Array(4), bisectRight = new Float32Array(4);
const rotationScratch = [0, 0, 0, 0];

/**
 * Where the refill in progress reads keys: a track's or a sync block's
 * times, and how to decode one lane (set by {@linkcode useTrack} or
 * {@linkcode useSync}).
 */
const source = {
  times: 0,
  n: 0,
  step: false,
  /** LINEAR rotation intervals are bisected (`TRACK_BISECT`; tracks only). */
  bisect: false,
  /** A sync block's (else a track's) record. */
  sync: false,
  clip: 0,
  /** Byte offset of the track or sync block record. */
  record: 0,
  rotation: false,
  /** Sync blocks: the values' format, lanes per key and byte offset. */
  format: 0,
  span: 0,
  values: 0,
};

/** Reads the keys of the track record at `track` next. */
function useTrack(clip: number, track: number, rotation: boolean): void {
  const flags = u32At(track + 12);
  source.times = clip + u32At(track);
  source.n = u32At(track + 8);
  source.step = (flags & TRACK_STEP) !== 0;
  source.bisect = (flags & TRACK_BISECT) !== 0;
  source.sync = false;
  source.clip = clip;
  source.record = track;
  source.rotation = rotation;
}

/**
 * Reads the keys of the sync block record at `record` next: `span` lanes
 * per key in SoA (a component's lanes together), in the block's format.
 * Returns the block's lanes as a mask.
 */
function useSync(clip: number, record: number, rotation: boolean): number {
  const flags = u32At(record + 12);
  source.times = clip + u32At(record);
  source.n = u32At(record + 8);
  source.step = false;
  source.bisect = false;
  source.sync = true;
  source.clip = clip;
  source.record = record;
  source.rotation = rotation;
  source.format = flags & 15;
  source.span = (flags >>> SYNC_SPAN_SHIFT) & 7;
  source.values = clip + u32At(record + 4);
  return (flags >>> SYNC_MASK_SHIFT) & 15;
}

/** Decodes key `k` of lane `lane` of the sync block of {@linkcode source} into `key`. */
function decodeSyncKey(k: number, lane: number, n: number): void {
  const { format, span, values } = source;
  if (format === TRACK_SMALLEST_THREE) {
    decodeSmallestThreeAt(values + k * span * 8 + lane * 4, span * 4, false, key);
  } else if (format === TRACK_SMALLEST_THREE_WIDE) {
    decodeSmallestThreeAt(values + k * span * 12 + lane * 4, span * 4, true, key);
  } else if (format === TRACK_RANGED) {
    for (let c = 0; c < 3; c++) {
      const q = u16At(values + SYNC_RANGE_BYTES + (k * 3 + c) * span * 2 + lane * 2);
      readF32(values + c * 16 + lane * 4, keyTimes, 0);
      readF32(values + 48 + c * 16 + lane * 4, keyTimes, 1);
      key[c] = f(keyTimes[0] + f(q * keyTimes[1]));
    }
  } else {
    for (let c = 0; c < n; c++) readF32(values + ((k * n + c) * span + lane) * 4, key, c);
  }
}

/** Decodes key `k` of lane `lane` of {@linkcode source} into the cache lane at `dst` (stride 16 bytes). */
function decode(k: number, lane: number, dst: number): void {
  const n = source.rotation ? 4 : 3;
  if (source.sync) decodeSyncKey(k, lane, n);
  else decodeTrackKey(source.clip, source.record, k, n, key);
  const f32 = heap.f32, at = dst >>> 2;
  for (let c = 0; c < n; c++) f32[at + c * 4] = key[c];
}

/** Copies `n` components of the cache lane at byte `from` to the one at `to` (stride 16 bytes). */
function copyLane(from: number, to: number, n: number): void {
  const f32 = heap.f32, a = from >>> 2, b = to >>> 2;
  for (let c = 0; c < n; c++) f32[b + c * 4] = f32[a + c * 4];
}

/** Byte offset of lane `l`'s left key in the path record at `rec`. */
function leftAt(rec: number, l: number): number {
  return rec + RECORD_LEFT + l * 4;
}

/** Byte offset of lane `l`'s interval start in the path record at `rec` (end +16, inverse length +32). */
function timingAt(rec: number, l: number): number {
  return rec + l * 4;
}

/** Byte offset of lane `l`'s cursor in the path record at `rec`. */
function cursorAt(rec: number, l: number): number {
  return rec + RECORD_CURSORS + l * 4;
}

/**
 * An interval's start, end and inverse length for {@linkcode setTiming}:
 * passed in an array, not as arguments (a double passed to a function the
 * compiler does not inline is boxed, a new heap number per call).
 */
const interval = new Float64Array(3);

/** Sets the interval (of {@linkcode interval}) and cursor of the lanes in mask `lanes` of the path record at `rec`. */
function setTiming(rec: number, lanes: number, cursor: number): void {
  const lo = interval[0], hi = interval[1], inv = interval[2];
  const f32 = heap.f32, u32 = heap.u32;
  for (let l = 0; l < 4; l++) {
    if ((lanes & (1 << l)) === 0) continue;
    const timing = timingAt(rec, l) >>> 2;
    f32[timing] = lo;
    f32[timing + 4] = hi;
    f32[timing + 8] = inv;
    u32[cursorAt(rec, l) >>> 2] = cursor;
  }
}

/**
 * Refills the lanes of mask `lanes` (lanes of the path record at `rec`, of
 * path `p`, reading {@linkcode source}, among them `lane`) for time `t`.
 * The cursor is the left key of a LINEAR interval held, else
 * {@linkcode NO_CURSOR}: then playing on into the next interval decodes one
 * key (the held right key becomes the left one); anything else searches.
 */
function refill(rec: number, p: number, lane: number, lanes: number): void {
  const t = sampleTime[0];
  const { times, n, step } = source;
  const components = p === 1 ? 4 : 3;
  const right = recordRight(p);
  const cursor = heap.u32[cursorAt(rec, lane) >>> 2];
  const hi = heap.f32[(timingAt(rec, lane) + 16) >>> 2];
  const onward = cursor !== NO_CURSOR && cursor + 2 < n && t >= hi;
  if (onward) readF32(times + (cursor + 2) * 4, keyTimes, 0);
  if (onward && t < keyTimes[0]) {
    const next = keyTimes[0];
    for (let l = 0; l < 4; l++) {
      if ((lanes & (1 << l)) === 0) continue;
      const left = leftAt(rec, l);
      copyLane(left + right, left, components);
      decode(cursor + 2, l, left + right);
    }
    interval[0] = hi, interval[1] = next, interval[2] = f(1 / f(next - hi));
    setTiming(rec, lanes, cursor + 1);
    return;
  }
  readF32(times, keyTimes, 0);
  readF32(times + (n - 1) * 4, keyTimes, 1);
  const first = keyTimes[0], last = keyTimes[1];
  if (n === 1 || t < first || t >= last) {
    const k = n === 1 || t < first ? 0 : n - 1;
    for (let l = 0; l < 4; l++) {
      if ((lanes & (1 << l)) === 0) continue;
      const left = leftAt(rec, l);
      decode(k, l, left);
      copyLane(left, left + right, components);
    }
    if (n === 1) interval[0] = -BOUND, interval[1] = BOUND;
    else if (k === 0) interval[0] = -BOUND, interval[1] = first;
    else interval[0] = last, interval[1] = BOUND;
    interval[2] = 0;
    setTiming(rec, lanes, NO_CURSOR);
    return;
  }
  const k = findKey(times, n);
  readF32(times + k * 4, keyTimes, 0);
  readF32(times + k * 4 + 4, keyTimes, 1);
  const lo = keyTimes[0], next = keyTimes[1];
  for (let l = 0; l < 4; l++) {
    if ((lanes & (1 << l)) === 0) continue;
    const left = leftAt(rec, l);
    decode(k, l, left);
    if (step) copyLane(left, left + right, components);
    else decode(k + 1, l, left + right);
  }
  if (step) {
    interval[0] = lo, interval[1] = next, interval[2] = 0;
    setTiming(rec, lanes, NO_CURSOR);
  } else if (source.bisect) {
    // A track's own lane: bisected tracks are never in sync blocks.
    span[0] = lo, span[1] = next, span[2] = t;
    bisectInterval(leftAt(rec, lane));
    const start = span[3], end = span[4];
    interval[0] = start, interval[1] = end, interval[2] = f(1 / f(end - start));
    setTiming(rec, lanes, NO_CURSOR);
  } else {
    interval[0] = lo, interval[1] = next, interval[2] = f(1 / f(next - lo));
    setTiming(rec, lanes, k);
  }
}

/** A bisected interval and time, then its piece's bounds (`bisectPieceInPlace`'s span). */
const span = new Float64Array(5);

/**
 * The bisection (`bisectPiece`) of the rotation lane whose left key is at
 * `left` (right key 64 bytes after it) over the interval and time in
 * {@linkcode span}: its keys become the piece's, its bounds follow in
 * `span`.
 */
function bisectInterval(left: number): void {
  const f32 = heap.f32, l = left >>> 2, r = (left + recordRight(1)) >>> 2;
  for (let c = 0; c < 4; c++) {
    bisectLeft[c] = f32[l + c * 4];
    bisectRight[c] = f32[r + c * 4];
  }
  bisectPieceInPlace(bisectLeft, bisectRight, span);
  for (let c = 0; c < 4; c++) {
    f32[l + c * 4] = bisectLeft[c];
    f32[r + c * 4] = bisectRight[c];
  }
}

/**
 * Samples the compact clip at byte `clip` of `memory` at time `t` into the
 * pose at `out` (`groupCount` SoA×4 groups, at most the clip's), through
 * the playback cache at `cache`: lanes whose cached interval does not hold
 * `t` are refilled, then every lane interpolates its cached keys
 * (translation and scale lerped, rotation normalized-lerped). A
 * shared-timeline clip samples by `sampleShared` (`shared.ts`). The clip
 * may lie at any byte; `cache` and `out` are 4-byte aligned (the core's
 * allocations are 16).
 */
export function sampleCompact(
  memory: SampleMemory,
  clip: number,
  cache: number,
  out: number,
  groupCount: number,
  t: number,
): void {
  sampleTime[0] = f(t);
  sampleCompactAtTime(memory, clip, cache, out, groupCount);
}

/**
 * @internal {@linkcode sampleCompact} at the time in {@linkcode sampleTime}
 * (float32): the scalar core's batch sets it from a job row, no double
 * passed.
 */
export function sampleCompactAtTime(
  memory: SampleMemory,
  clip: number,
  cache: number,
  out: number,
  groupCount: number,
): void {
  useMemory(memory);
  groupCount = Math.min(groupCount, u32At(clip));
  const trackCount = u32At(clip + 4);
  const lanes = clip + u32At(clip + 8);
  const tracks = clip + u32At(clip + 12);
  const syncCount = u32At(clip + 16);
  const syncs = clip + u32At(clip + 20);
  const t = sampleTime[0];
  const sharedKeys = u32At(clip + CLIP_SHARED_KEYS);
  if (sharedKeys !== 0 && syncCount !== 0 && u32At(clip + CLIP_SHARED_GROUPS) !== 0) {
    sampleShared(clip, out, groupCount, sharedKeys);
    return;
  }
  const f32 = heap.f32, u32 = heap.u32;
  // The clip's plan (`PLAN_GROUP_BYTES`): held values and where each path's record is.
  // An int32 from the view: above 2^31 when the plan lies below the cache, a call's result is boxed.
  const offset = (cache & 3) === 0 ? u32[cache >>> 2] | 0 : u32At(cache) | 0;
  const plan = (cache + offset) >>> 0;
  for (let g = 0; g < groupCount; g++) {
    const planGroup = plan + g * PLAN_GROUP_BYTES, records = (planGroup + PLAN_RECORDS) >>> 2;
    const o = out + g * 160;
    for (let p = 0; p < 3; p++) {
      // A path held in all four lanes has no record (offset 0): never refilled.
      const offset = u32[records + p];
      if (offset === 0) continue;
      const rec = cache + offset;
      for (let lane = 0; lane < 4; lane++) {
        const timing = timingAt(rec, lane) >>> 2;
        if (t < f32[timing] || t >= f32[timing + 4]) {
          const entry = i16At(lanes + ((g * 3 + p) * 4 + lane) * 2);
          if (entry >= 0 && entry < trackCount) {
            useTrack(clip, tracks + entry * TRACK_BYTES, p === 1);
            refill(rec, p, lane, 1 << lane);
          } else if (entry <= -2 && -2 - entry < syncCount) {
            const mask = useSync(clip, syncs + (-2 - entry) * SYNC_BYTES, p === 1);
            refill(rec, p, lane, mask);
          }
        }
      }
    }
    for (let lane = 0; lane < 4; lane++) {
      for (let p = 0; p < 3; p++) {
        const offset = u32[records + p];
        const rec = cache + offset, timing = timingAt(rec, lane) >>> 2;
        // Held paths (no record) copy the plan's values; a held rotation is normalized.
        const w = offset === 0 ? 0 : f(f(t - f32[timing]) * f32[timing + 8]);
        const field = pathField(p);
        // The left keys: the record's, or the plan's pose group's (right keys the same).
        const left = offset === 0 ? planGroup + field : rec + RECORD_LEFT;
        const right = offset === 0 ? 0 : recordRight(p);
        for (let c = 0; c < (p === 1 ? 4 : 3); c++) {
          // Lerped here, not in a function: a double passed or returned is boxed.
          const at = (left + c * 16 + lane * 4) >>> 2;
          const a = f32[at];
          const v = offset === 0 && p !== 1 ? a : f(a + f(f(f32[at + (right >>> 2)] - a) * w));
          if (p === 1) rotationScratch[c] = v;
          else f32[(o + field + c * 16 + lane * 4) >>> 2] = v;
        }
        if (p === 1) storeNormalized(rotationScratch, o + 48 + lane * 4);
      }
    }
  }
}
