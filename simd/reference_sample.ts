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
  TRACK_RANGED,
  TRACK_SMALLEST_THREE,
  TRACK_STEP,
} from "./assembly/abi.ts";

const f = Math.fround;
const BOUND = f(TIME_BOUND);
const RANGE = f(SMALLEST_THREE_RANGE);
const QUANTUM = f(f(2 * RANGE) / SMALLEST_THREE_MAX);

/** Byte offset of path p's first field in a pose group (tx, qx, sx). */
function fieldOffset(p: number): number {
  return p === 0 ? 0 : p === 1 ? 48 : 112;
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
  const largest = (high >>> 28) & 3;
  const d = f(Math.sqrt(Math.max(0, f(f(f(1 - f(a * a)) - f(b * b)) - f(c * c)))));
  const q = largest === 0
    ? [d, a, b, c]
    : largest === 1
    ? [a, d, b, c]
    : largest === 2
    ? [a, b, d, c]
    : [a, b, c, d];
  const sign = high & (1 << 30) ? -1 : 1;
  for (let i = 0; i < 4; i++) out[i] = sign * q[i];
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
  } else if (format === TRACK_RANGED) {
    for (let c = 0; c < 3; c++) {
      const q = view.getUint16(values + k * 6 + c * 2, true);
      key[c] = f(
        view.getFloat32(track + 16 + c * 4, true) +
          f(q * view.getFloat32(track + 28 + c * 4, true)),
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

/**
 * Refills lane `lane` of path `p` of the cache group at `group` for time
 * `t`. The cursor is the left key of a LINEAR interval held, else
 * {@linkcode NO_CURSOR}: then playing on into the next interval decodes one
 * key (the held right key becomes the left one); anything else searches.
 */
function refill(
  view: DataView,
  clip: number,
  track: number,
  group: number,
  p: number,
  lane: number,
  t: number,
): void {
  const times = clip + view.getUint32(track, true);
  const n = view.getUint32(track + 8, true);
  const timing = group + CACHE_TIMING + p * 48 + lane * 4;
  const cursorAt = group + CACHE_CURSORS + p * 16 + lane * 4;
  const left = group + fieldOffset(p) + lane * 4, right = left + CACHE_RIGHT;
  const rotation = p === 1, components = rotation ? 4 : 3;
  const time = (k: number) => view.getFloat32(times + k * 4, true);
  const set = (lo: number, hi: number, inv: number, cursor: number) => {
    view.setFloat32(timing, lo, true);
    view.setFloat32(timing + 16, hi, true);
    view.setFloat32(timing + 32, inv, true);
    view.setUint32(cursorAt, cursor, true);
  };
  const cursor = view.getUint32(cursorAt, true);
  const hi = view.getFloat32(timing + 16, true);
  if (cursor !== NO_CURSOR && cursor + 2 < n && t >= hi && t < time(cursor + 2)) {
    const next = time(cursor + 2);
    copyLane(view, right, left, components);
    decodeKey(view, clip, track, cursor + 2, rotation, right);
    set(hi, next, f(1 / f(next - hi)), cursor + 1);
    return;
  }
  const step = (view.getUint32(track + 12, true) & TRACK_STEP) !== 0;
  const first = time(0), last = time(n - 1);
  if (n === 1 || t < first || t >= last) {
    const k = n === 1 || t < first ? 0 : n - 1;
    decodeKey(view, clip, track, k, rotation, left);
    copyLane(view, left, right, components);
    if (n === 1) set(-BOUND, BOUND, 0, NO_CURSOR);
    else if (k === 0) set(-BOUND, first, 0, NO_CURSOR);
    else set(last, BOUND, 0, NO_CURSOR);
    return;
  }
  const k = findKey(view, times, n, t);
  const lo = time(k), next = time(k + 1);
  decodeKey(view, clip, track, k, rotation, left);
  if (step) {
    copyLane(view, left, right, components);
    set(lo, next, 0, NO_CURSOR);
  } else {
    decodeKey(view, clip, track, k + 1, rotation, right);
    if (view.getUint32(track + 12, true) & TRACK_BISECT) {
      const piece = bisectInterval(view, left, right, lo, next, t);
      set(piece.start, piece.end, f(1 / f(piece.end - piece.start)), NO_CURSOR);
    } else set(lo, next, f(1 / f(next - lo)), k);
  }
}

/** Halvings of an arc whose ends have dot product `d` until a piece is within BISECT_COSINE. */
export function bisectLevels(d: number): number {
  let levels = 0;
  for (let c = f(d); c < f(BISECT_COSINE) && levels < BISECT_LEVELS; levels++) {
    c = f(Math.sqrt(Math.max(0, f(f(1 + c) * 0.5))));
  }
  return levels;
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
  const levels = bisectLevels(
    f(f(f(a[0] * b[0]) + f(a[1] * b[1])) + f(f(a[2] * b[2]) + f(a[3] * b[3]))),
  );
  const pieces = 1 << levels;
  const start = (i: number) => i === pieces ? hi : f(lo + f(f(hi - lo) * f(i / pieces)));
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
 * Samples the compact clip at byte `clip` at time `t` into the pose at
 * `out` (`groupCount` SoA×4 groups, at most the clip's), through the
 * playback cache at `cache`: lanes whose cached interval does not hold `t`
 * are refilled, then every lane interpolates its cached keys (translation
 * and scale lerped, rotation normalized-lerped).
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
  t = f(t);
  const get = (at: number) => view.getFloat32(at, true);
  for (let g = 0; g < groupCount; g++) {
    const group = cache + g * CACHE_GROUP_BYTES;
    const o = out + g * 160;
    for (let p = 0; p < 3; p++) {
      for (let lane = 0; lane < 4; lane++) {
        const timing = group + CACHE_TIMING + p * 48 + lane * 4;
        if (t < get(timing) || t >= get(timing + 16)) {
          const track = view.getInt16(lanes + ((g * 3 + p) * 4 + lane) * 2, true);
          if (track >= 0 && track < trackCount) {
            refill(view, clip, tracks + track * TRACK_BYTES, group, p, lane, t);
          }
        }
      }
    }
    for (let lane = 0; lane < 4; lane++) {
      const weight = (p: number) => {
        const timing = group + CACHE_TIMING + p * 48 + lane * 4;
        return f(f(t - get(timing)) * get(timing + 32));
      };
      const lerp = (at: number, w: number) => {
        const a = get(group + at);
        return f(a + f(f(get(group + at + CACHE_RIGHT) - a) * w));
      };
      for (const [p, fields] of [[0, [0, 16, 32]], [2, [112, 128, 144]]] as const) {
        const w = weight(p);
        for (const at of fields) view.setFloat32(o + at + lane * 4, lerp(at + lane * 4, w), true);
      }
      const w = weight(1);
      const q = [48, 64, 80, 96].map((at) => lerp(at + lane * 4, w));
      const l = f(f(q[0] * q[0] + q[1] * q[1]) + f(q[2] * q[2] + q[3] * q[3]));
      const n = f(1 / f(Math.sqrt(l)));
      for (let c = 0; c < 4; c++) {
        const value = l > 0 ? f(q[c] * n) : c === 3 ? 1 : 0;
        view.setFloat32(o + 48 + c * 16 + lane * 4, value, true);
      }
    }
  }
}
