/**
 * Key value encodings of compact clips (decoded by `simd/wasm/assembly/sample.ts`
 * and `simd/scalar/sample.ts`):
 *
 * - smallest-three rotations: the largest component is dropped (the
 *   quaternion negated so that it is positive) and the other three, within
 *   ±1/√2, are stored in 20 bits each, with the dropped index and a bit
 *   that negates the result (so that a track's neighbouring keys lie in
 *   one hemisphere and sampling needs no shorter-arc test): 8 bytes a key,
 *   an error below 7e-7 per component;
 * - ranged vectors (translation, scale): three u16 in the track's
 *   `[min, max]` per component: 6 bytes a key.
 *
 * @module
 */

import {
  SMALLEST_THREE_MAX,
  SMALLEST_THREE_RANGE,
  SMALLEST_THREE_WIDE_MAX,
  TRACK_RANGED,
  TRACK_SMALLEST_THREE,
  TRACK_SMALLEST_THREE_WIDE,
} from "../simd/wasm/assembly/abi.ts";
import { decodeSmallestThree, decodeSmallestThreeWide } from "../simd/scalar/sample.ts";

const QUANTUM = Math.fround(
  Math.fround(2 * Math.fround(SMALLEST_THREE_RANGE)) / SMALLEST_THREE_MAX,
);
const WIDE_QUANTUM = Math.fround(
  Math.fround(2 * Math.fround(SMALLEST_THREE_RANGE)) / SMALLEST_THREE_WIDE_MAX,
);

/**
 * The last {@linkcode smallestThree}'s result: the three fields, the
 * dropped index and whether decoding must negate (no object per key: the
 * build encodes every candidate of every rotation).
 */
const fields = new Int32Array(3);
let largestIndex = 0, negated = false;

/**
 * The smallest-three fields of unit quaternion `q` (at `q[at..at+4)`) with
 * `quantum` and largest field value `max`, into {@linkcode fields}: the
 * three smaller components (of the quaternion negated so that the largest
 * is positive), the dropped index and whether decoding must negate.
 */
function smallestThree(q: ArrayLike<number>, at: number, quantum: number, max: number): void {
  let largest = 0;
  for (let c = 1; c < 4; c++) if (Math.abs(q[at + c]) > Math.abs(q[at + largest])) largest = c;
  const sign = q[at + largest] < 0 ? -1 : 1;
  let f = 0;
  for (let c = 0; c < 4; c++) {
    if (c === largest) continue;
    const u = Math.round((sign * q[at + c] + SMALLEST_THREE_RANGE) / quantum);
    fields[f++] = Math.min(max, Math.max(0, u));
  }
  largestIndex = largest, negated = sign < 0;
}

/**
 * Encodes unit quaternion `q` (x, y, z, w at `q[at..at+4)`) into the two
 * 32-bit halves of a smallest-three word, written to `out[o]`, `out[o + 1]`;
 * it decodes to `q` with its sign.
 */
export function encodeSmallestThree(
  q: ArrayLike<number>,
  at: number,
  out: Uint32Array,
  o: number,
): void {
  smallestThree(q, at, QUANTUM, SMALLEST_THREE_MAX);
  const a = fields[0], b = fields[1], c = fields[2];
  out[o] = (a | (b << 20)) >>> 0;
  out[o + 1] = ((b >>> 12) | (c << 8) | (largestIndex << 28) | (negated ? 1 << 30 : 0)) >>> 0;
}

/**
 * Encodes unit quaternion `q` into the three words of a wide smallest-three
 * key (`TRACK_SMALLEST_THREE_WIDE`), written to `out[o..o+3)`.
 */
export function encodeSmallestThreeWide(
  q: ArrayLike<number>,
  at: number,
  out: Uint32Array,
  o: number,
): void {
  smallestThree(q, at, WIDE_QUANTUM, SMALLEST_THREE_WIDE_MAX);
  out[o] = (fields[0] | (largestIndex << 30)) >>> 0;
  out[o + 1] = (fields[1] | (negated ? 1 << 30 : 0)) >>> 0;
  out[o + 2] = fields[2];
}

const word = new Uint32Array(3);

/** `q` as the kernel decodes its smallest-three encoding, into `out`. */
export function roundTripSmallestThree(
  q: ArrayLike<number>,
  at: number,
  out: Float32Array,
): void {
  encodeSmallestThree(q, at, word, 0);
  decodeSmallestThree(word[0], word[1], out);
}

/** A per-component range of a vector track: `value = min + u16 * scale`. */
export interface VectorRange {
  readonly min: Float32Array;
  readonly scale: Float32Array;
}

/** The range of `count` 3-vectors at `values` (stride 3). */
export function vectorRange(values: ArrayLike<number>, count: number): VectorRange {
  const min = new Float32Array(3), scale = new Float32Array(3);
  for (let c = 0; c < 3; c++) {
    let lo = Infinity, hi = -Infinity;
    for (let k = 0; k < count; k++) {
      lo = Math.min(lo, values[k * 3 + c]);
      hi = Math.max(hi, values[k * 3 + c]);
    }
    min[c] = lo;
    scale[c] = (hi - min[c]) / 65535;
  }
  return { min, scale };
}

/** The u16 code of component `c` of value `v` in `range`. */
export function encodeRanged(v: number, c: number, range: VectorRange): number {
  const s = range.scale[c];
  return s > 0 ? Math.min(65535, Math.max(0, Math.round((v - range.min[c]) / s))) : 0;
}

/** The value the kernel decodes from `code`, component `c`. */
export function decodeRanged(code: number, c: number, range: VectorRange): number {
  return Math.fround(range.min[c] + Math.fround(code * range.scale[c]));
}

/** `q` as the kernel decodes its wide smallest-three encoding, into `out`. */
export function roundTripSmallestThreeWide(
  q: ArrayLike<number>,
  at: number,
  out: Float32Array,
): void {
  encodeSmallestThreeWide(q, at, word, 0);
  decodeSmallestThreeWide(word[0], word[1], word[2], out);
}

/** The values of keys `kept` (indices into `exact` and `quantized`, `n` floats each) in `format`. */
export function encodeKeys(
  kept: number[],
  quantized: Float32Array,
  exact: Float64Array,
  n: number,
  format: number,
  range: VectorRange | undefined,
): Uint8Array {
  if (format === TRACK_SMALLEST_THREE) {
    const words = new Uint32Array(kept.length * 2);
    kept.forEach((i, k) => encodeSmallestThree(exact, i * 4, words, k * 2));
    return new Uint8Array(words.buffer);
  }
  if (format === TRACK_SMALLEST_THREE_WIDE) {
    const words = new Uint32Array(kept.length * 3);
    kept.forEach((i, k) => encodeSmallestThreeWide(exact, i * 4, words, k * 3));
    return new Uint8Array(words.buffer);
  }
  if (format === TRACK_RANGED) {
    const codes = new Uint16Array(kept.length * 3);
    kept.forEach((i, k) => {
      for (let c = 0; c < 3; c++) codes[k * 3 + c] = encodeRanged(exact[i * 3 + c], c, range!);
    });
    return new Uint8Array(codes.buffer);
  }
  const floats = new Float32Array(kept.length * n);
  kept.forEach((i, k) => floats.set(quantized.subarray(i * n, i * n + n), k * n));
  return new Uint8Array(floats.buffer);
}
