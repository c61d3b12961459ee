/**
 * The loops of a compact clip file's checks that read every key: they
 * bound what loading costs per byte, so each reads the file's 4-byte
 * words as typed arrays (where they are 4-aligned, as a file's arrays
 * are) and does as little per float as the check needs.
 *
 * @module
 */

import { MAX_VALUE, MIN_KEY_INTERVAL } from "./clip_validation.ts";
import { BEYOND_CHUNK, HEADER, MAX_VALUE_BITS } from "./_clip_file_format.ts";

/** The views of a file that the checks read (the file little-endian, as the core's memory is). */
export interface FileViews {
  readonly bytes: Uint8Array;
  readonly view: DataView;
  /** The file's 4-byte words as floats, and as ints. */
  readonly f32: Float32Array;
  readonly words: Int32Array;
  /**
   * Per {@linkcode BEYOND_CHUNK} words from word {@linkcode BEYOND_FROM},
   * 0 when none is beyond ±{@linkcode MAX_VALUE} (`xxhash32Words`' `beyond`,
   * set as the checksum is checked); none until then.
   */
  beyond: Uint8Array | undefined;
}

/** The first word the chunks of `FileViews.beyond` count from: the checksum's first. */
const BEYOND_FROM = HEADER.jointCount >> 2;

/** Kept between files (the flags of the file being read), grown as needed. */
let beyondScratch = new Uint8Array(1024);

/** A scratch for `xxhash32Words`' `beyond` over a file of `words` 4-byte words. */
export function beyondFlags(words: number): Uint8Array {
  const chunks = Math.ceil(words / BEYOND_CHUNK) + 1;
  if (beyondScratch.length < chunks) beyondScratch = new Uint8Array(chunks);
  return beyondScratch;
}

/** The views of `bytes`, which lie at a multiple of 4 in their buffer. */
export function fileViews(bytes: Uint8Array): FileViews {
  const { buffer, byteOffset, length } = bytes;
  return {
    bytes,
    view: new DataView(buffer, byteOffset, length),
    f32: new Float32Array(buffer, byteOffset, length >> 2),
    words: new Int32Array(buffer, byteOffset, length >> 2),
    beyond: undefined,
  };
}

/**
 * The first of `n` floats from word `from` of the file beyond
 * ±{@linkcode MAX_VALUE} or not finite: its index, or -1. Only the words
 * of chunks the checksum's pass flagged are read (none, in a file of float
 * keys within bounds; a chunk that holds a name or lane entries next to the
 * floats is flagged, and only its words are read again).
 */
export function firstBeyondIn(file: FileViews, from: number, n: number): number {
  const beyond = file.beyond;
  if (!beyond || n <= 0 || from < BEYOND_FROM) return firstBeyond(file.words, from, n);
  const end = from + n, last = ((end - 1 - BEYOND_FROM) / BEYOND_CHUNK) | 0;
  for (let c = ((from - BEYOND_FROM) / BEYOND_CHUNK) | 0; c <= last; c++) {
    if (beyond[c] === 0) continue;
    const start = Math.max(from, BEYOND_FROM + c * BEYOND_CHUNK);
    const stop = Math.min(end, BEYOND_FROM + (c + 1) * BEYOND_CHUNK);
    const k = firstBeyond(file.words, start, stop - start);
    if (k >= 0) return start - from + k;
  }
  return -1;
}

/** Largest magnitude of a key time: far from `TIME_BOUND`, and intervals cannot overflow. */
export const MAX_KEY_TIME = 1e18;

/**
 * The first of `n` floats from word `from` of `words` (a file's words)
 * beyond ±{@linkcode MAX_VALUE} or not finite: its index, or -1. Integer
 * tests, eight words per step (V8's loop costs as much as a few words'
 * tests), the index searched only for a file that fails: the most of a
 * large file's checks.
 */
export function firstBeyond(words: Int32Array, from: number, n: number): number {
  const end = from + n;
  let over = 0, i = from;
  // `MAX_VALUE_BITS - magnitude` is negative for a float beyond, and cannot overflow.
  for (; i + 8 <= end; i += 8) {
    over |= (MAX_VALUE_BITS - (words[i] & 0x7fffffff)) |
      (MAX_VALUE_BITS - (words[i + 1] & 0x7fffffff)) |
      (MAX_VALUE_BITS - (words[i + 2] & 0x7fffffff)) |
      (MAX_VALUE_BITS - (words[i + 3] & 0x7fffffff)) |
      (MAX_VALUE_BITS - (words[i + 4] & 0x7fffffff)) |
      (MAX_VALUE_BITS - (words[i + 5] & 0x7fffffff)) |
      (MAX_VALUE_BITS - (words[i + 6] & 0x7fffffff)) |
      (MAX_VALUE_BITS - (words[i + 7] & 0x7fffffff));
  }
  for (; i < end; i++) over |= MAX_VALUE_BITS - (words[i] & 0x7fffffff);
  if (over >= 0) return -1;
  for (let k = 0; k < n; k++) if ((words[from + k] & 0x7fffffff) > MAX_VALUE_BITS) return k;
  return -1;
}

/**
 * The first of `n` floats from byte `from` of the file beyond
 * ±{@linkcode MAX_VALUE} or not finite: its index, or -1; through a
 * DataView where `from` is not 4-aligned (a hostile image's offset).
 */
export function badValue(file: FileViews, from: number, n: number): number {
  if (from % 4 === 0) return firstBeyondIn(file, from >> 2, n);
  for (let k = 0; k < n; k++) {
    if (!(Math.abs(file.view.getFloat32(from + k * 4, true)) <= MAX_VALUE)) return k;
  }
  return -1;
}

/**
 * The first of `n` key times from byte `from` of the file that is not
 * finite within ±1e18 or not 1e-30 after the one before: its index, or
 * -1. Read as floats where 4-aligned (twice a DataView's speed).
 */
export function badTime(file: FileViews, from: number, n: number): number {
  let previous = -Infinity;
  if (from % 4 === 0) {
    const f32 = file.f32;
    for (let k = 0, i = from >> 2; k < n; k++) {
      const t = f32[i + k];
      if (!(Math.abs(t) <= MAX_KEY_TIME) || !(Math.fround(t - previous) >= MIN_KEY_INTERVAL)) {
        return k;
      }
      previous = t;
    }
    return -1;
  }
  for (let k = 0; k < n; k++) {
    const t = file.view.getFloat32(from + k * 4, true);
    if (!(Math.abs(t) <= MAX_KEY_TIME) || !(Math.fround(t - previous) >= MIN_KEY_INTERVAL)) {
      return k;
    }
    previous = t;
  }
  return -1;
}

/**
 * The first of a clip's held values from word `from` of the file (one per
 * float of the rest pose `rest`) beyond ±{@linkcode MAX_VALUE}: its index,
 * or -1. The rest pose's own values pass as they are (finite, checked by
 * the skeleton).
 */
export function badHeld(file: FileViews, from: number, rest: Float32Array): number {
  const n = rest.length;
  for (let k = firstBeyondIn(file, from, n); k >= 0;) {
    if (!Object.is(file.f32[from + k], rest[k])) return k;
    const next = firstBeyondIn(file, from + k + 1, n - k - 1);
    k = next < 0 ? -1 : k + 1 + next;
  }
  return -1;
}

/**
 * The first of `n` root motion key times from word `from` of `f32` that
 * is not finite, or not after the one before by {@linkcode MIN_KEY_INTERVAL}
 * (in double precision, as `validateClip`): its index, or -1.
 */
export function badMotionTime(f32: Float32Array, from: number, n: number): number {
  let previous = -Infinity;
  for (let k = 0; k < n; k++) {
    const t = f32[from + k];
    if (!Number.isFinite(t) || (k > 0 && !(t > previous && t - previous >= MIN_KEY_INTERVAL))) {
      return k;
    }
    previous = t;
  }
  return -1;
}

/** How far a LINEAR or STEP rotation key may be from unit length (as `validateClip`). */
const UNIT_TOLERANCE = 1e-3;

/**
 * The first of `n` quaternions from word `from` of `f32` not of unit
 * length within 1e-3 (as `validateClip`): its index, or -1.
 */
export function notUnit(f32: Float32Array, from: number, n: number): number {
  for (let k = 0; k < n; k++) {
    const o = from + k * 4;
    const x = f32[o], y = f32[o + 1], z = f32[o + 2], w = f32[o + 3];
    if (!(Math.abs(Math.sqrt(x * x + y * y + z * z + w * w) - 1) <= UNIT_TOLERANCE)) return k;
  }
  return -1;
}
