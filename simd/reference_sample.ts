/**
 * Scalar reference of compact clip sampling (`simd/assembly/sample.ts`),
 * over the same bytes: a compact clip (`animation/compact_clip.ts` builds
 * it), a playback's cache and a SoA×4 pose, all byte offsets into one
 * buffer. The SIMD kernels must agree with it; the scalar core runs it.
 *
 * @module
 */

import {
  BISECT_COSINE,
  BISECT_LEVELS,
  CACHE_CURSORS,
  CACHE_GROUP_BYTES,
  CACHE_RIGHT,
  CACHE_TIMING,
  NO_CURSOR,
  SMALLEST_THREE_MAX,
  SMALLEST_THREE_RANGE,
  TIME_BOUND,
  TRACK_BISECT,
  TRACK_BYTES,
  TRACK_RANGE_BYTES,
  TRACK_RANGED,
  TRACK_SMALLEST_THREE,
  TRACK_STEP,
} from "./assembly/abi.ts";
import {
  CLIP_SHARED_GROUPS,
  CLIP_SHARED_KEYS,
  SHARED_GROUP_BYTES,
  SHARED_GROUP_FLAGS,
  SHARED_SLERP,
  SLERP_FIT_C0,
  SLERP_FIT_C1,
  SLERP_FIT_C2,
  SLERP_FIT_C3,
  SMALLEST_THREE_WIDE_MAX,
  SYNC_BYTES,
  SYNC_MASK_SHIFT,
  SYNC_RANGE_BYTES,
  SYNC_SPAN_SHIFT,
  TRACK_SMALLEST_THREE_WIDE,
} from "./assembly/abi.ts";

const f = Math.fround;
const BOUND = f(TIME_BOUND);
const RANGE = f(SMALLEST_THREE_RANGE);
const QUANTUM = f(f(2 * RANGE) / SMALLEST_THREE_MAX);
const WIDE_MAX = SMALLEST_THREE_WIDE_MAX;
const WIDE_QUANTUM = f(f(2 * RANGE) / WIDE_MAX);

/** Byte offset of path p's first field in a pose group (tx, qx, sx). */
function fieldOffset(p: number): number {
  return p === 0 ? 0 : p === 1 ? 48 : 112;
}

/**
 * Writes into `out` the quaternion whose three smallest components are `a,
 * b, c` (in order, the `largest` one rebuilt from unit length), negated when
 * `negate`.
 */
function placeSmallestThree(
  a: number,
  b: number,
  c: number,
  largest: number,
  negate: boolean,
  out: Float32Array,
): void {
  const d = f(Math.sqrt(Math.max(0, f(f(f(1 - f(a * a)) - f(b * b)) - f(c * c)))));
  const q = largest === 0
    ? [d, a, b, c]
    : largest === 1
    ? [a, d, b, c]
    : largest === 2
    ? [a, b, d, c]
    : [a, b, c, d];
  for (let i = 0; i < 4; i++) out[i] = negate ? -q[i] : q[i];
}

/**
 * Decodes a smallest-three key: `low` holds bits 0..31 and `high` bits
 * 32..63 of the 64-bit word (three 20-bit fields, the index of the
 * dropped, largest component, then a bit that negates the result). Writes
 * x, y, z, w into `out`.
 */
export function decodeSmallestThree(low: number, high: number, out: Float32Array): void {
  const a = f(f((low & 0xfffff) * QUANTUM) - RANGE);
  const b = f(f((((low >>> 20) | (high << 12)) & 0xfffff) * QUANTUM) - RANGE);
  const c = f(f(((high >>> 8) & 0xfffff) * QUANTUM) - RANGE);
  placeSmallestThree(a, b, c, (high >>> 28) & 3, (high & (1 << 30)) !== 0, out);
}

/**
 * Decodes a wide smallest-three key (sync blocks only): three words of a
 * 30-bit field each; the dropped index in bits 30..31 of `w0`, the negating
 * bit at bit 30 of `w1`. Each field is rounded to f32 before scaling, as
 * the kernel converts it.
 */
export function decodeSmallestThreeWide(
  w0: number,
  w1: number,
  w2: number,
  out: Float32Array,
): void {
  const field = (w: number) => f(f(f(w & WIDE_MAX) * WIDE_QUANTUM) - RANGE);
  placeSmallestThree(field(w0), field(w1), field(w2), w0 >>> 30, (w1 & (1 << 30)) !== 0, out);
}

const key = new Float32Array(4);

/** Decodes key `k` of the track record at `track` into the lane at `dst` (stride 16 bytes). */
function decodeKey(
  view: DataView,
  clip: number,
  track: number,
  k: number,
  rotation: boolean,
  dst: number,
): void {
  const values = clip + view.getUint32(track + 4, true);
  const format = view.getUint32(track + 12, true) & 15;
  const n = rotation ? 4 : 3;
  if (format === TRACK_SMALLEST_THREE) {
    const at = values + k * 8;
    decodeSmallestThree(view.getUint32(at, true), view.getUint32(at + 4, true), key);
  } else if (format === TRACK_SMALLEST_THREE_WIDE) {
    const word = (i: number) => view.getUint32(values + k * 12 + i * 4, true);
    decodeSmallestThreeWide(word(0), word(1), word(2), key);
  } else if (format === TRACK_RANGED) {
    for (let c = 0; c < 3; c++) {
      const q = view.getUint16(values + TRACK_RANGE_BYTES + k * 6 + c * 2, true);
      key[c] = f(
        view.getFloat32(values + c * 4, true) + f(q * view.getFloat32(values + 12 + c * 4, true)),
      );
    }
  } else {
    for (let c = 0; c < n; c++) key[c] = view.getFloat32(values + (k * n + c) * 4, true);
  }
  for (let c = 0; c < n; c++) view.setFloat32(dst + c * 16, key[c], true);
}

/** Index of the key interval `[times[k], times[k + 1])` holding `t`, for `times[0] <= t < times[n - 1]`. */
function findKey(view: DataView, times: number, n: number, t: number): number {
  let lo = 0, hi = n - 1;
  while (hi - lo > 1) {
    const mid = (lo + hi) >>> 1;
    if (view.getFloat32(times + mid * 4, true) <= t) lo = mid;
    else hi = mid;
  }
  return lo;
}

function copyLane(view: DataView, from: number, to: number, n: number): void {
  for (let c = 0; c < n; c++) {
    view.setFloat32(to + c * 16, view.getFloat32(from + c * 16, true), true);
  }
}

/** Where a refill reads keys: a track's or a sync block's times, and how to decode one lane. */
interface KeySource {
  readonly times: number;
  readonly n: number;
  readonly step: boolean;
  /** LINEAR rotation intervals are bisected (`TRACK_BISECT`; tracks only). */
  readonly bisect: boolean;
  /** Decodes key `k` of lane `lane` into the cache lane at `dst`. */
  decode(k: number, lane: number, dst: number): void;
}

/**
 * Refills `lanes` (lanes of path `p` of the cache group at `group` reading
 * `source`, among them `lane`) for time `t`. The cursor is the left key of
 * a LINEAR interval held, else {@linkcode NO_CURSOR}: then playing on into
 * the next interval decodes one key (the held right key becomes the left
 * one); anything else searches.
 */
function refill(
  view: DataView,
  source: KeySource,
  group: number,
  p: number,
  lane: number,
  lanes: readonly number[],
  t: number,
): void {
  const { times, n, step } = source;
  const rotation = p === 1, components = rotation ? 4 : 3;
  const time = (k: number) => view.getFloat32(times + k * 4, true);
  const timing = (l: number) => group + CACHE_TIMING + p * 48 + l * 4;
  const cursorAt = (l: number) => group + CACHE_CURSORS + p * 16 + l * 4;
  const left = (l: number) => group + fieldOffset(p) + l * 4;
  const right = (l: number) => left(l) + CACHE_RIGHT;
  const set = (lo: number, hi: number, inv: number, cursor: number) => {
    for (const l of lanes) {
      view.setFloat32(timing(l), lo, true);
      view.setFloat32(timing(l) + 16, hi, true);
      view.setFloat32(timing(l) + 32, inv, true);
      view.setUint32(cursorAt(l), cursor, true);
    }
  };
  const cursor = view.getUint32(cursorAt(lane), true);
  const hi = view.getFloat32(timing(lane) + 16, true);
  if (cursor !== NO_CURSOR && cursor + 2 < n && t >= hi && t < time(cursor + 2)) {
    const next = time(cursor + 2);
    for (const l of lanes) {
      copyLane(view, right(l), left(l), components);
      source.decode(cursor + 2, l, right(l));
    }
    set(hi, next, f(1 / f(next - hi)), cursor + 1);
    return;
  }
  const first = time(0), last = time(n - 1);
  if (n === 1 || t < first || t >= last) {
    const k = n === 1 || t < first ? 0 : n - 1;
    for (const l of lanes) {
      source.decode(k, l, left(l));
      copyLane(view, left(l), right(l), components);
    }
    if (n === 1) set(-BOUND, BOUND, 0, NO_CURSOR);
    else if (k === 0) set(-BOUND, first, 0, NO_CURSOR);
    else set(last, BOUND, 0, NO_CURSOR);
    return;
  }
  const k = findKey(view, times, n, t);
  const lo = time(k), next = time(k + 1);
  for (const l of lanes) {
    source.decode(k, l, left(l));
    if (step) copyLane(view, left(l), right(l), components);
    else source.decode(k + 1, l, right(l));
  }
  if (step) set(lo, next, 0, NO_CURSOR);
  else if (source.bisect) {
    // A track's own lane: bisected tracks are never in sync blocks.
    const piece = bisectInterval(view, left(lane), right(lane), lo, next, t);
    set(piece.start, piece.end, f(1 / f(piece.end - piece.start)), NO_CURSOR);
  } else set(lo, next, f(1 / f(next - lo)), k);
}

/** The keys of the track record at `track`. */
function trackSource(view: DataView, clip: number, track: number, rotation: boolean): KeySource {
  return {
    times: clip + view.getUint32(track, true),
    n: view.getUint32(track + 8, true),
    step: (view.getUint32(track + 12, true) & TRACK_STEP) !== 0,
    bisect: (view.getUint32(track + 12, true) & TRACK_BISECT) !== 0,
    decode: (k, _lane, dst) => decodeKey(view, clip, track, k, rotation, dst),
  };
}

/**
 * The keys of the sync block record at `record`: `span` lanes per key in
 * SoA (a component's lanes together), in the block's format.
 */
function syncSource(view: DataView, clip: number, record: number, rotation: boolean): KeySource {
  const flags = view.getUint32(record + 12, true);
  const format = flags & 15, span = (flags >>> SYNC_SPAN_SHIFT) & 7;
  const values = clip + view.getUint32(record + 4, true);
  const n = rotation ? 4 : 3;
  const decode = (k: number, lane: number, dst: number) => {
    if (format === TRACK_SMALLEST_THREE) {
      const at = values + k * span * 8 + lane * 4;
      decodeSmallestThree(view.getUint32(at, true), view.getUint32(at + span * 4, true), key);
    } else if (format === TRACK_SMALLEST_THREE_WIDE) {
      const at = values + k * span * 12 + lane * 4,
        word = (i: number) => view.getUint32(at + i * span * 4, true);
      decodeSmallestThreeWide(word(0), word(1), word(2), key);
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
    for (let c = 0; c < n; c++) view.setFloat32(dst + c * 16, key[c], true);
  };
  return {
    times: clip + view.getUint32(record, true),
    n: view.getUint32(record + 8, true),
    step: false,
    bisect: false,
    decode,
  };
}

/** The lane mask of the sync block record at `record`. */
function syncLanes(view: DataView, record: number): number[] {
  const mask = (view.getUint32(record + 12, true) >>> SYNC_MASK_SHIFT) & 15;
  return [0, 1, 2, 3].filter((l) => mask & (1 << l));
}

/** Halvings of an arc whose ends have dot product `d` until a piece is within BISECT_COSINE. */
function bisectLevels(d: number): number {
  let levels = 0;
  for (let c = f(d); c < f(BISECT_COSINE) && levels < BISECT_LEVELS; levels++) {
    c = f(Math.sqrt(Math.max(0, f(f(1 + c) * 0.5))));
  }
  return levels;
}

/** How many pieces the sampler cuts the arc between keys `a` and `b` into (float32, as the kernel). */
export function bisectPieceCount(a: ArrayLike<number>, b: ArrayLike<number>): number {
  return 1 << bisectLevels(
    f(f(f(a[0] * b[0]) + f(a[1] * b[1])) + f(f(a[2] * b[2]) + f(a[3] * b[3]))),
  );
}

/** Start of piece `i` of `pieces` of `[lo, hi)` (float32, as the kernel); piece `pieces` starts at `hi`. */
export function pieceStart(lo: number, hi: number, i: number, pieces: number): number {
  return i === pieces ? hi : f(lo + f(f(hi - lo) * f(i / pieces)));
}

/**
 * The piece of the bisected interval `[lo, hi)` (keys `a`, `b`) holding
 * `t` (see `simd/assembly/sample_bisect.ts`): `a` and `b` become the
 * piece's ends; its bounds are returned. Float32 arithmetic, as the kernel.
 */
export function bisectPiece(
  a: number[],
  b: number[],
  lo: number,
  hi: number,
  t: number,
): { start: number; end: number } {
  const pieces = bisectPieceCount(a, b), levels = Math.log2(pieces);
  const start = (i: number) => pieceStart(lo, hi, i, pieces);
  let s = Math.floor(f(f(f(t - lo) / f(hi - lo)) * pieces));
  s = Math.min(pieces - 1, Math.max(0, s));
  while (s > 0 && t < start(s)) s--;
  while (s < pieces - 1 && t >= start(s + 1)) s++;
  for (let level = levels - 1; level >= 0; level--) {
    const m = a.map((v, c) => f(v + b[c]));
    const l = f(f(f(m[0] * m[0]) + f(m[1] * m[1])) + f(f(m[2] * m[2]) + f(m[3] * m[3])));
    if (!(l > 0)) break;
    const n = f(1 / f(Math.sqrt(l)));
    const half = (s >> level) & 1 ? a : b;
    for (let c = 0; c < 4; c++) half[c] = f(m[c] * n);
  }
  return { start: start(s), end: start(s + 1) };
}

/** {@linkcode bisectPiece} on the lane at `left` / `right` of a cache. */
function bisectInterval(
  view: DataView,
  left: number,
  right: number,
  lo: number,
  hi: number,
  t: number,
): { start: number; end: number } {
  const a = [0, 1, 2, 3].map((c) => view.getFloat32(left + c * 16, true));
  const b = [0, 1, 2, 3].map((c) => view.getFloat32(right + c * 16, true));
  const piece = bisectPiece(a, b, lo, hi, t);
  for (let c = 0; c < 4; c++) {
    view.setFloat32(left + c * 16, a[c], true);
    view.setFloat32(right + c * 16, b[c], true);
  }
  return piece;
}

/**
 * Stores the blended quaternion `q` normalized into the pose lane at `at`
 * (component stride 16 bytes); the identity where it has no length (zero
 * padding lanes), as `blendPoses`.
 */
function storeNormalized(view: DataView, q: readonly number[], at: number): void {
  const l = f(f(q[0] * q[0] + q[1] * q[1]) + f(q[2] * q[2] + q[3] * q[3]));
  const n = f(1 / f(Math.sqrt(l)));
  for (let c = 0; c < 4; c++) {
    view.setFloat32(at + c * 16, l > 0 ? f(q[c] * n) : c === 3 ? 1 : 0, true);
  }
}

/** The terms of shared clips' slerp correction (`SLERP_FIT_C0`) that depend on the weight `w` alone. */
export interface SlerpTerms {
  readonly w: number;
  readonly g: number;
  readonly p: number;
  readonly q: number;
}

/** {@link SlerpTerms} of weight `w` (float32, as the kernel computes them). */
export function slerpTerms(w: number): SlerpTerms {
  const h = f(w - 0.5), s = f(h * h);
  return {
    w,
    g: f(f(w * h) * f(w - 1)),
    p: f(f(SLERP_FIT_C0) + f(f(SLERP_FIT_C2) * s)),
    q: f(f(SLERP_FIT_C1) + f(f(SLERP_FIT_C3) * s)),
  };
}

/**
 * The weight at which rotations `a` and `b` normalized-lerp onto slerp's
 * curve at the weight of `terms`.
 */
export function slerpWeight(terms: SlerpTerms, a: ArrayLike<number>, b: ArrayLike<number>): number {
  const d = f(f(f(a[0] * b[0]) + f(a[1] * b[1])) + f(f(a[2] * b[2]) + f(a[3] * b[3])));
  const e = f(1 - Math.abs(d));
  return f(f(terms.g * f(e * f(f(e * terms.q) + terms.p))) + terms.w);
}

// Scratch of sampleShared (synchronous, so sharing is safe): a lane's two
// keys and their blend.
const keyScratch = [new Float32Array(4), new Float32Array(4)];
const blended = [0, 0, 0, 0];

/**
 * Samples a shared-timeline clip (`CLIP_SHARED_KEYS`: `keys` keys): the
 * interval around `t` by a search, then every group between its blocks'
 * two keys at one weight, rotations of groups flagged `SHARED_SLERP` at
 * their lanes' {@link slerpWeight}; held paths from the clip's group
 * records. The cache (`SHARED_CACHE_BYTES`) is not read: the twin searches.
 */
function sampleShared(
  view: DataView,
  clip: number,
  out: number,
  groupCount: number,
  t: number,
  keys: number,
): void {
  const lanes = clip + view.getUint32(clip + 8, true);
  const syncCount = view.getUint32(clip + 16, true);
  const syncs = clip + view.getUint32(clip + 20, true);
  const times = clip + view.getUint32(syncs, true);
  const time = (k: number) => view.getFloat32(times + k * 4, true);
  let kl = 0, kr = 0, w = 0;
  if (keys > 1 && t >= time(0)) {
    if (t >= time(keys - 1)) kl = kr = keys - 1;
    else {
      kl = findKey(view, times, keys, t);
      kr = kl + 1;
      w = f(f(t - time(kl)) * f(1 / f(time(kr) - time(kl))));
    }
  }
  const terms = slerpTerms(w);
  const get = (at: number) => view.getFloat32(at, true);
  const a = keyScratch[0], b = keyScratch[1];
  const records = clip + view.getUint32(clip + CLIP_SHARED_GROUPS, true);
  for (let g = 0; g < groupCount; g++) {
    const group = records + g * SHARED_GROUP_BYTES;
    const o = out + g * 160;
    const flags = view.getUint32(group + SHARED_GROUP_FLAGS, true);
    const slerp = (flags & SHARED_SLERP) !== 0;
    for (let p = 0; p < 3; p++) {
      const n = p === 1 ? 4 : 3, field = fieldOffset(p);
      for (let lane = 0; lane < 4; lane++) {
        const entry = view.getInt16(lanes + ((g * 3 + p) * 4 + lane) * 2, true);
        const sync = syncs + (-2 - entry) * SYNC_BYTES;
        const keyed = entry <= -2 && -2 - entry < syncCount;
        const values = keyed ? clip + view.getUint32(sync + 4, true) : 0;
        const span = keyed ? (view.getUint32(sync + 12, true) >>> SYNC_SPAN_SHIFT) & 7 : 0;
        for (let c = 0; c < n; c++) {
          const held = get(group + field + c * 16 + lane * 4);
          a[c] = keyed ? get(values + ((kl * n + c) * span + lane) * 4) : held;
          b[c] = keyed ? get(values + ((kr * n + c) * span + lane) * 4) : held;
        }
        const weight = !keyed ? 0 : p === 1 && slerp ? slerpWeight(terms, a, b) : w;
        for (let c = 0; c < n; c++) blended[c] = f(a[c] + f(f(b[c] - a[c]) * weight));
        if (p === 1) storeNormalized(view, blended, o + 48 + lane * 4);
        else {
          for (let c = 0; c < 3; c++) {
            view.setFloat32(o + field + c * 16 + lane * 4, blended[c], true);
          }
        }
      }
    }
  }
}

/**
 * Samples the compact clip at byte `clip` at time `t` into the pose at
 * `out` (`groupCount` SoA×4 groups, at most the clip's), through the
 * playback cache at `cache`: lanes whose cached interval does not hold `t`
 * are refilled, then every lane interpolates its cached keys (translation
 * and scale lerped, rotation normalized-lerped). A shared-timeline clip
 * samples by {@link sampleShared}.
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
  const get = (at: number) => view.getFloat32(at, true);
  for (let g = 0; g < groupCount; g++) {
    const group = cache + g * CACHE_GROUP_BYTES;
    const o = out + g * 160;
    for (let p = 0; p < 3; p++) {
      for (let lane = 0; lane < 4; lane++) {
        const timing = group + CACHE_TIMING + p * 48 + lane * 4;
        if (t < get(timing) || t >= get(timing + 16)) {
          const entry = view.getInt16(lanes + ((g * 3 + p) * 4 + lane) * 2, true);
          if (entry >= 0 && entry < trackCount) {
            const source = trackSource(view, clip, tracks + entry * TRACK_BYTES, p === 1);
            refill(view, source, group, p, lane, [lane], t);
          } else if (entry <= -2 && -2 - entry < syncCount) {
            const record = syncs + (-2 - entry) * SYNC_BYTES;
            refill(
              view,
              syncSource(view, clip, record, p === 1),
              group,
              p,
              lane,
              syncLanes(view, record),
              t,
            );
          }
        }
      }
    }
    // A path with nothing keyed in any of its four lanes copies its held values.
    const held = (p: number) => {
      for (let l = 0; l < 4; l++) {
        if (view.getInt16(lanes + ((g * 3 + p) * 4 + l) * 2, true) !== -1) return false;
      }
      return true;
    };
    const heldTranslation = held(0), heldScale = held(2);
    for (let lane = 0; lane < 4; lane++) {
      for (let p = 0; p < 3; p += 2) {
        const timing = group + CACHE_TIMING + p * 48 + lane * 4;
        const w = f(f(t - get(timing)) * get(timing + 32));
        const heldPath = p === 0 ? heldTranslation : heldScale;
        for (let c = 0; c < 3; c++) {
          const at = (p === 0 ? 0 : 112) + c * 16 + lane * 4;
          view.setFloat32(o + at, heldPath ? get(group + at) : lerpLane(view, group + at, w), true);
        }
      }
      const timing = group + CACHE_TIMING + 48 + lane * 4;
      const w = f(f(t - get(timing)) * get(timing + 32));
      for (let c = 0; c < 4; c++) {
        rotationScratch[c] = lerpLane(view, group + 48 + c * 16 + lane * 4, w);
      }
      storeNormalized(view, rotationScratch, o + 48 + lane * 4);
    }
  }
}

// Scratch of sampleCompact's rotations (synchronous, so sharing is safe).
const rotationScratch = [0, 0, 0, 0];

/** The cache's left value at `at` lerped toward its right one by `w` (float32, as the kernel). */
function lerpLane(view: DataView, at: number, w: number): number {
  const a = view.getFloat32(at, true);
  return f(a + f(f(view.getFloat32(at + CACHE_RIGHT, true) - a) * w));
}
