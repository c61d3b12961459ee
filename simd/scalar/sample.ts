/**
 * Scalar reference of compact clip sampling (`simd/wasm/assembly/sample.ts`),
 * over the same bytes: a compact clip (`animation/compact_clip.ts` builds
 * it), a playback's cache and a SoA×4 pose, all byte offsets into one
 * buffer. The SIMD kernels must agree with it; the scalar core runs it, so
 * a call allocates nothing: the key source of a refill and the scratch
 * values live in this module (sampling is synchronous). Key arithmetic is
 * in `reference_keys.ts`, shared-timeline clips in `reference_shared.ts`.
 *
 * @module
 */

import {
  CACHE_CURSORS,
  CACHE_GROUP_BYTES,
  CACHE_RIGHT,
  CACHE_TIMING,
  NO_CURSOR,
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
  decodeSmallestThree,
  decodeSmallestThreeWide,
  decodeTrackKey,
  findKey,
  pieceBounds,
  storeNormalized,
} from "./keys.ts";
import { sampleShared } from "./shared.ts";

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

/** Byte offset of path p's first field in a pose group (tx, qx, sx). */
function fieldOffset(p: number): number {
  return p === 0 ? 0 : p === 1 ? 48 : 112;
}

// Scratch (synchronous, so sharing is safe): a decoded key, a bisected
// interval's two keys, a lane's blended rotation.
const key = new Float32Array(4);
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
function useTrack(view: DataView, clip: number, track: number, rotation: boolean): void {
  const flags = view.getUint32(track + 12, true);
  source.times = clip + view.getUint32(track, true);
  source.n = view.getUint32(track + 8, true);
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
function useSync(view: DataView, clip: number, record: number, rotation: boolean): number {
  const flags = view.getUint32(record + 12, true);
  source.times = clip + view.getUint32(record, true);
  source.n = view.getUint32(record + 8, true);
  source.step = false;
  source.bisect = false;
  source.sync = true;
  source.clip = clip;
  source.record = record;
  source.rotation = rotation;
  source.format = flags & 15;
  source.span = (flags >>> SYNC_SPAN_SHIFT) & 7;
  source.values = clip + view.getUint32(record + 4, true);
  return (flags >>> SYNC_MASK_SHIFT) & 15;
}

/** Decodes key `k` of lane `lane` of the sync block of {@linkcode source} into `key`. */
function decodeSyncKey(view: DataView, k: number, lane: number, n: number): void {
  const { format, span, values } = source;
  if (format === TRACK_SMALLEST_THREE) {
    const at = values + k * span * 8 + lane * 4;
    decodeSmallestThree(view.getUint32(at, true), view.getUint32(at + span * 4, true), key);
  } else if (format === TRACK_SMALLEST_THREE_WIDE) {
    const at = values + k * span * 12 + lane * 4;
    decodeSmallestThreeWide(
      view.getUint32(at, true),
      view.getUint32(at + span * 4, true),
      view.getUint32(at + 2 * span * 4, true),
      key,
    );
  } else if (format === TRACK_RANGED) {
    for (let c = 0; c < 3; c++) {
      const q = view.getUint16(
        values + SYNC_RANGE_BYTES + (k * 3 + c) * span * 2 + lane * 2,
        true,
      );
      const min = view.getFloat32(values + c * 16 + lane * 4, true);
      key[c] = f(min + f(q * view.getFloat32(values + 48 + c * 16 + lane * 4, true)));
    }
  } else {
    for (let c = 0; c < n; c++) {
      key[c] = view.getFloat32(values + ((k * n + c) * span + lane) * 4, true);
    }
  }
}

/** Decodes key `k` of lane `lane` of {@linkcode source} into the cache lane at `dst` (stride 16 bytes). */
function decode(view: DataView, k: number, lane: number, dst: number): void {
  const n = source.rotation ? 4 : 3;
  if (source.sync) decodeSyncKey(view, k, lane, n);
  else decodeTrackKey(view, source.clip, source.record, k, n, key);
  for (let c = 0; c < n; c++) view.setFloat32(dst + c * 16, key[c], true);
}

function copyLane(view: DataView, from: number, to: number, n: number): void {
  for (let c = 0; c < n; c++) {
    view.setFloat32(to + c * 16, view.getFloat32(from + c * 16, true), true);
  }
}

/** Byte offset of lane `l`'s left key of path `p` in the cache group at `group`. */
function leftAt(group: number, p: number, l: number): number {
  return group + fieldOffset(p) + l * 4;
}

/** Byte offset of lane `l`'s interval start of path `p` (end +16, inverse length +32). */
function timingAt(group: number, p: number, l: number): number {
  return group + CACHE_TIMING + p * 48 + l * 4;
}

/** Byte offset of lane `l`'s cursor of path `p`. */
function cursorAt(group: number, p: number, l: number): number {
  return group + CACHE_CURSORS + p * 16 + l * 4;
}

/**
 * An interval's start, end and inverse length for {@linkcode setTiming}:
 * passed in an array, not as arguments (a double passed to a function the
 * compiler does not inline is boxed, a new heap number per call).
 */
const interval = new Float64Array(3);

/** Sets the interval (of {@linkcode interval}) and cursor of the lanes in mask `lanes` of path `p`. */
function setTiming(view: DataView, group: number, p: number, lanes: number, cursor: number): void {
  const lo = interval[0], hi = interval[1], inv = interval[2];
  for (let l = 0; l < 4; l++) {
    if ((lanes & (1 << l)) === 0) continue;
    const timing = timingAt(group, p, l);
    view.setFloat32(timing, lo, true);
    view.setFloat32(timing + 16, hi, true);
    view.setFloat32(timing + 32, inv, true);
    view.setUint32(cursorAt(group, p, l), cursor, true);
  }
}

/**
 * Refills the lanes of mask `lanes` (lanes of path `p` of the cache group
 * at `group` reading {@linkcode source}, among them `lane`) for time `t`.
 * The cursor is the left key of a LINEAR interval held, else
 * {@linkcode NO_CURSOR}: then playing on into the next interval decodes one
 * key (the held right key becomes the left one); anything else searches.
 */
function refill(
  view: DataView,
  group: number,
  p: number,
  lane: number,
  lanes: number,
  t: number,
): void {
  const { times, n, step } = source;
  const components = p === 1 ? 4 : 3;
  const cursor = view.getUint32(cursorAt(group, p, lane), true);
  const hi = view.getFloat32(timingAt(group, p, lane) + 16, true);
  if (
    cursor !== NO_CURSOR && cursor + 2 < n && t >= hi &&
    t < view.getFloat32(times + (cursor + 2) * 4, true)
  ) {
    const next = view.getFloat32(times + (cursor + 2) * 4, true);
    for (let l = 0; l < 4; l++) {
      if ((lanes & (1 << l)) === 0) continue;
      const left = leftAt(group, p, l);
      copyLane(view, left + CACHE_RIGHT, left, components);
      decode(view, cursor + 2, l, left + CACHE_RIGHT);
    }
    interval[0] = hi, interval[1] = next, interval[2] = f(1 / f(next - hi));
    setTiming(view, group, p, lanes, cursor + 1);
    return;
  }
  const first = view.getFloat32(times, true), last = view.getFloat32(times + (n - 1) * 4, true);
  if (n === 1 || t < first || t >= last) {
    const k = n === 1 || t < first ? 0 : n - 1;
    for (let l = 0; l < 4; l++) {
      if ((lanes & (1 << l)) === 0) continue;
      const left = leftAt(group, p, l);
      decode(view, k, l, left);
      copyLane(view, left, left + CACHE_RIGHT, components);
    }
    if (n === 1) interval[0] = -BOUND, interval[1] = BOUND;
    else if (k === 0) interval[0] = -BOUND, interval[1] = first;
    else interval[0] = last, interval[1] = BOUND;
    interval[2] = 0;
    setTiming(view, group, p, lanes, NO_CURSOR);
    return;
  }
  const k = findKey(view, times, n, t);
  const lo = view.getFloat32(times + k * 4, true), next = view.getFloat32(times + k * 4 + 4, true);
  for (let l = 0; l < 4; l++) {
    if ((lanes & (1 << l)) === 0) continue;
    const left = leftAt(group, p, l);
    decode(view, k, l, left);
    if (step) copyLane(view, left, left + CACHE_RIGHT, components);
    else decode(view, k + 1, l, left + CACHE_RIGHT);
  }
  if (step) {
    interval[0] = lo, interval[1] = next, interval[2] = 0;
    setTiming(view, group, p, lanes, NO_CURSOR);
  } else if (source.bisect) {
    // A track's own lane: bisected tracks are never in sync blocks.
    bisectInterval(view, leftAt(group, p, lane), lo, next, t);
    const { start, end } = pieceBounds;
    interval[0] = start, interval[1] = end, interval[2] = f(1 / f(end - start));
    setTiming(view, group, p, lanes, NO_CURSOR);
  } else {
    interval[0] = lo, interval[1] = next, interval[2] = f(1 / f(next - lo));
    setTiming(view, group, p, lanes, k);
  }
}

/**
 * The bisection (`bisectPiece`) of the lane whose left key is at `left`
 * (right key `CACHE_RIGHT` after it): its keys become the piece's, its
 * bounds are in `pieceBounds`.
 */
function bisectInterval(view: DataView, left: number, lo: number, hi: number, t: number): void {
  const right = left + CACHE_RIGHT;
  for (let c = 0; c < 4; c++) {
    bisectLeft[c] = view.getFloat32(left + c * 16, true);
    bisectRight[c] = view.getFloat32(right + c * 16, true);
  }
  bisectPieceInPlace(bisectLeft, bisectRight, lo, hi, t);
  for (let c = 0; c < 4; c++) {
    view.setFloat32(left + c * 16, bisectLeft[c], true);
    view.setFloat32(right + c * 16, bisectRight[c], true);
  }
}

/** Whether path `p` of group `g` has nothing keyed in any of its four lanes (it copies its held values). */
function pathHeld(view: DataView, lanes: number, g: number, p: number): boolean {
  for (let l = 0; l < 4; l++) {
    if (view.getInt16(lanes + ((g * 3 + p) * 4 + l) * 2, true) !== -1) return false;
  }
  return true;
}

/**
 * Samples the compact clip at byte `clip` at time `t` into the pose at
 * `out` (`groupCount` SoA×4 groups, at most the clip's), through the
 * playback cache at `cache`: lanes whose cached interval does not hold `t`
 * are refilled, then every lane interpolates its cached keys (translation
 * and scale lerped, rotation normalized-lerped). A shared-timeline clip
 * samples by `sampleShared` (`reference_shared.ts`).
 */
export function sampleCompact(
  view: DataView,
  clip: number,
  cache: number,
  out: number,
  groupCount: number,
  t: number,
): void {
  groupCount = Math.min(groupCount, view.getUint32(clip, true));
  const trackCount = view.getUint32(clip + 4, true);
  const lanes = clip + view.getUint32(clip + 8, true);
  const tracks = clip + view.getUint32(clip + 12, true);
  const syncCount = view.getUint32(clip + 16, true);
  const syncs = clip + view.getUint32(clip + 20, true);
  t = f(t);
  const sharedKeys = view.getUint32(clip + CLIP_SHARED_KEYS, true);
  if (
    sharedKeys !== 0 && syncCount !== 0 && view.getUint32(clip + CLIP_SHARED_GROUPS, true) !== 0
  ) {
    sampleShared(view, clip, out, groupCount, t, sharedKeys);
    return;
  }
  for (let g = 0; g < groupCount; g++) {
    const group = cache + g * CACHE_GROUP_BYTES;
    const o = out + g * 160;
    for (let p = 0; p < 3; p++) {
      for (let lane = 0; lane < 4; lane++) {
        const timing = timingAt(group, p, lane);
        if (t < view.getFloat32(timing, true) || t >= view.getFloat32(timing + 16, true)) {
          const entry = view.getInt16(lanes + ((g * 3 + p) * 4 + lane) * 2, true);
          if (entry >= 0 && entry < trackCount) {
            useTrack(view, clip, tracks + entry * TRACK_BYTES, p === 1);
            refill(view, group, p, lane, 1 << lane, t);
          } else if (entry <= -2 && -2 - entry < syncCount) {
            const mask = useSync(view, clip, syncs + (-2 - entry) * SYNC_BYTES, p === 1);
            refill(view, group, p, lane, mask, t);
          }
        }
      }
    }
    const heldTranslation = pathHeld(view, lanes, g, 0), heldScale = pathHeld(view, lanes, g, 2);
    for (let lane = 0; lane < 4; lane++) {
      for (let p = 0; p < 3; p += 2) {
        const timing = timingAt(group, p, lane);
        const w = f(f(t - view.getFloat32(timing, true)) * view.getFloat32(timing + 32, true));
        const heldPath = p === 0 ? heldTranslation : heldScale;
        for (let c = 0; c < 3; c++) {
          const at = (p === 0 ? 0 : 112) + c * 16 + lane * 4;
          // Lerped here, not in a function: a double passed or returned is boxed.
          const a = view.getFloat32(group + at, true);
          view.setFloat32(
            o + at,
            heldPath ? a : f(a + f(f(view.getFloat32(group + at + CACHE_RIGHT, true) - a) * w)),
            true,
          );
        }
      }
      const timing = timingAt(group, 1, lane);
      const w = f(f(t - view.getFloat32(timing, true)) * view.getFloat32(timing + 32, true));
      for (let c = 0; c < 4; c++) {
        const at = group + 48 + c * 16 + lane * 4, a = view.getFloat32(at, true);
        rotationScratch[c] = f(a + f(f(view.getFloat32(at + CACHE_RIGHT, true) - a) * w));
      }
      storeNormalized(view, rotationScratch, o + 48 + lane * 4);
    }
  }
}
