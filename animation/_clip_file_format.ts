/**
 * The layout of compact clip files (`docs/clip_file_format.md`): the
 * header and clip record offsets, the checksum (xxHash32), the hash of a
 * skeleton's rest pose, and a playback's starting cache rebuilt from the
 * part a file stores.
 *
 * @module
 */

import {
  CACHE_GROUP_BYTES,
  CACHE_RIGHT,
  CACHE_TIMING,
  SHARED_CACHE_BYTES,
  TIME_BOUND,
} from "../simd/wasm/assembly/abi.ts";
import { MAX_VALUE } from "./clip_validation.ts";
import type { Interpolation } from "./clip.ts";

/** "MRWC", little-endian. */
export const FILE_MAGIC = 0x4357524d;
/** The version this reader reads and writes. */
export const FILE_VERSION = 2;
/** Header fields: byte offsets. */
export const HEADER = {
  magic: 0,
  version: 4,
  flags: 6,
  fileBytes: 8,
  checksum: 12,
  jointCount: 16,
  restPoseHash: 20,
  clipCount: 24,
  reserved: 28,
} as const;
/** Bytes of the header; the checksum covers the file from `HEADER.jointCount` on. */
export const HEADER_BYTES = 32;
/** Clip record fields: byte offsets from the record's start. */
export const RECORD = {
  flags: 0,
  duration: 4,
  start: 12,
  tolerance: 20,
  virtualDistance: 28,
  maxError: 36,
  animation: 44,
  trackCount: 48,
  keyCount: 52,
  nameBytes: 56,
  imageBytes: 60,
} as const;
/** Bytes of a clip record before its name. */
export const RECORD_BYTES = 64;
/** A channel's interpolation as a file stores it: its index here (root motion and morph sections). */
export const FILE_INTERPOLATIONS: readonly Interpolation[] = ["STEP", "LINEAR", "CUBICSPLINE"];
/** Clip record flag: the clip is on one shared timeline; no held pose section. */
export const RECORD_SHARED = 1;
/** Clip record flag: a channel holds STEP keys (samplers round the time down to float32). */
export const RECORD_STEPS = 2;
/** Bytes of held values per SoA×4 group (a pose group: 40 f32). */
export const HELD_GROUP_BYTES = 160;

/** `n` rounded up to a multiple of 4. */
export function pad4(n: number): number {
  // Not `(n + 3) & ~3`: a hostile u32 size would wrap in 32-bit arithmetic.
  return Math.ceil(n / 4) * 4;
}

const P1 = 2654435761, P2 = 2246822519, P3 = 3266489917, P4 = 668265263, P5 = 374761393;
const LITTLE_ENDIAN = new Uint8Array(Uint32Array.of(1).buffer)[0] === 1;

function rotl(x: number, r: number): number {
  return (x << r) | (x >>> (32 - r));
}

/**
 * xxHash32 (seed 0) of `bytes`, as the reference implementation computes
 * it: four lanes of 32-bit words, about as fast as a copy of the bytes
 * (several times CRC-32's speed in JavaScript), which is what lets loading
 * run at memory speed.
 */
export function xxhash32(bytes: Uint8Array): number {
  let words: Int32Array;
  if (LITTLE_ENDIAN && bytes.byteOffset % 4 === 0) {
    words = new Int32Array(bytes.buffer, bytes.byteOffset, bytes.length >> 2);
  } else {
    words = new Int32Array(bytes.length >> 2);
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.length);
    for (let i = 0; i < words.length; i++) words[i] = view.getInt32(i * 4, true);
  }
  return xxhash32Words(words, 0, bytes, 0, bytes.length);
}

/**
 * The bits of the largest float32 within ±{@linkcode MAX_VALUE} (1e18 is
 * none): a float32 is within it, finite, when its bits without the sign
 * are at most these (positive floats order as their bits; NaN and
 * infinities come after).
 */
export const MAX_VALUE_BITS = new Int32Array(Float32Array.of(MAX_VALUE).buffer)[0];

/** Words per flag of {@linkcode xxhash32Words}'s `beyond`. */
export const BEYOND_CHUNK = 32;

/**
 * xxHash32 (seed 0) of the `n` bytes of `bytes` from byte `from` (a
 * multiple of 4), whose 4-byte words, little-endian, are `words` from
 * word `wordFrom`: a file's words read by its checks, no view made.
 *
 * With `beyond`, the same pass also sets `beyond[k]` to 0 when none of
 * the {@linkcode BEYOND_CHUNK} words from `wordFrom + k * BEYOND_CHUNK`,
 * read as float32, is beyond ±{@linkcode MAX_VALUE} or not finite, else 1
 * (1 for every chunk past the last whole one, to the end of `beyond`): the
 * checks of the key values then read only the chunks flagged. Each word is
 * read once for both, where two passes cost twice.
 */
export function xxhash32Words(
  words: Int32Array,
  wordFrom: number,
  bytes: Uint8Array,
  from: number,
  n: number,
  beyond?: Uint8Array,
): number {
  const count = n >>> 2, end = wordFrom + count;
  let h: number, i = wordFrom;
  if (n >= 16) {
    let v1 = (P1 + P2) | 0, v2 = P2 | 0, v3 = 0, v4 = -P1 | 0;
    const last = end - (count & 3);
    if (beyond) {
      let chunk = 0;
      for (; i + BEYOND_CHUNK <= last; chunk++) {
        // `MAX_VALUE_BITS - magnitude` is negative for a float beyond, and cannot overflow.
        let over = 0;
        for (const stop = i + BEYOND_CHUNK; i < stop; i += 4) {
          const a = words[i], b = words[i + 1], c = words[i + 2], d = words[i + 3];
          over |= (MAX_VALUE_BITS - (a & 0x7fffffff)) | (MAX_VALUE_BITS - (b & 0x7fffffff)) |
            (MAX_VALUE_BITS - (c & 0x7fffffff)) | (MAX_VALUE_BITS - (d & 0x7fffffff));
          v1 = Math.imul(rotl((v1 + Math.imul(a, P2)) | 0, 13), P1);
          v2 = Math.imul(rotl((v2 + Math.imul(b, P2)) | 0, 13), P1);
          v3 = Math.imul(rotl((v3 + Math.imul(c, P2)) | 0, 13), P1);
          v4 = Math.imul(rotl((v4 + Math.imul(d, P2)) | 0, 13), P1);
        }
        beyond[chunk] = over >>> 31;
      }
      beyond.fill(1, chunk);
    }
    for (; i < last; i += 4) {
      v1 = Math.imul(rotl((v1 + Math.imul(words[i], P2)) | 0, 13), P1);
      v2 = Math.imul(rotl((v2 + Math.imul(words[i + 1], P2)) | 0, 13), P1);
      v3 = Math.imul(rotl((v3 + Math.imul(words[i + 2], P2)) | 0, 13), P1);
      v4 = Math.imul(rotl((v4 + Math.imul(words[i + 3], P2)) | 0, 13), P1);
    }
    h = (rotl(v1, 1) + rotl(v2, 7) + rotl(v3, 12) + rotl(v4, 18)) | 0;
  } else {
    beyond?.fill(1);
    h = P5 | 0;
  }
  h = (h + n) | 0;
  for (; i < end; i++) h = Math.imul(rotl((h + Math.imul(words[i], P3)) | 0, 17), P4);
  for (let k = from + count * 4; k < from + n; k++) {
    h = Math.imul(rotl((h + Math.imul(bytes[k], P5)) | 0, 11), P1);
  }
  h = Math.imul(h ^ (h >>> 15), P2);
  h = Math.imul(h ^ (h >>> 13), P3);
  return (h ^ (h >>> 16)) >>> 0;
}

/** The hash a file keeps of a skeleton's rest pose: xxHash32 of its floats, little-endian. */
export function restPoseHash(restPose: Float32Array): number {
  const bytes = new Uint8Array(restPose.length * 4);
  const view = new DataView(bytes.buffer);
  restPose.forEach((v, i) => view.setFloat32(i * 4, v, true));
  return xxhash32(bytes);
}

/**
 * A playback's starting cache (`_clip_image.ts`) from what a file keeps of
 * it: per group the held values (left keys; the right keys are the same),
 * 40 floats of `held` from `heldFrom`, and a bit per lane whose track or
 * block has keys (`path * 4 + lane`, `keyedLanes` from `keyedFrom`: its
 * interval starts empty at `TIME_BOUND`, so the first sample refills it;
 * other lanes hold `[-TIME_BOUND, TIME_BOUND)`). Shared clips (no `held`):
 * the zero cursor.
 */
export function cacheTemplate(
  groups: number,
  held: Float32Array | undefined,
  heldFrom: number,
  keyedLanes: ArrayLike<number>,
  keyedFrom: number,
): Uint8Array {
  if (!held) return new Uint8Array(SHARED_CACHE_BYTES);
  // Little-endian typed arrays, as the core's memory is (its views are these).
  const f32 = new Float32Array((groups * CACHE_GROUP_BYTES) >> 2);
  const right = CACHE_RIGHT >> 2, timing = CACHE_TIMING >> 2;
  for (let g = 0, base = 0; g < groups; g++, base += CACHE_GROUP_BYTES >> 2) {
    for (let i = 0; i < 40; i++) {
      f32[base + i] = f32[base + right + i] = held[heldFrom + g * 40 + i];
    }
    const keyed = keyedLanes[keyedFrom + g];
    for (let i = 0; i < 12; i++) {
      const lane = base + timing + (i >> 2) * 12 + (i & 3);
      f32[lane] = keyed & (1 << i) ? TIME_BOUND : -TIME_BOUND;
      f32[lane + 4] = TIME_BOUND;
    }
  }
  return new Uint8Array(f32.buffer);
}
