/**
 * Scalar reference of the arithmetic on a compact clip's keys
 * (`simd/wasm/assembly/sample.ts`, `sample_bisect.ts`, `sample_shared.ts`): the
 * smallest-three decoders, the key search, the bisection of LINEAR
 * rotation intervals, the slerp correction of shared clips and the
 * normalized store. Float32 arithmetic, as the kernels. Nothing here
 * allocates (the scalar build runs it every frame) except the exported
 * conveniences that return objects ({@linkcode bisectPiece},
 * {@linkcode slerpTerms}).
 *
 * @module
 */

import {
  BISECT_COSINE,
  BISECT_LEVELS,
  SLERP_FIT_C0,
  SLERP_FIT_C1,
  SLERP_FIT_C2,
  SLERP_FIT_C3,
  SMALLEST_THREE_MAX,
  SMALLEST_THREE_RANGE,
  SMALLEST_THREE_WIDE_MAX,
  TRACK_RANGE_BYTES,
  TRACK_RANGED,
  TRACK_SMALLEST_THREE,
  TRACK_SMALLEST_THREE_WIDE,
} from "../wasm/assembly/abi.ts";
import { heap, readF32, readU32, sampleTime, u16At, u32At } from "./_sample_memory.ts";

const f = Math.fround;
const RANGE = f(SMALLEST_THREE_RANGE);
const QUANTUM = f(f(2 * RANGE) / SMALLEST_THREE_MAX);
const WIDE_MAX = SMALLEST_THREE_WIDE_MAX;
const WIDE_QUANTUM = f(f(2 * RANGE) / WIDE_MAX);

// The three smallest components of a key being decoded, and its words:
// passed through these, not as arguments (a double, or a word past a small
// integer's range, passed to a function the compiler does not inline is a
// new heap number). Decoding is synchronous, so sharing is safe.
const fields = new Float64Array(3);
const words = new Uint32Array(3);

/**
 * Writes into `out` the quaternion whose three smallest components are
 * `fields` (in order, the `largest` one rebuilt from unit length), negated
 * when `negate`.
 */
function placeSmallestThree(largest: number, negate: boolean, out: Float32Array): void {
  const a = fields[0], b = fields[1], c = fields[2];
  const d = f(Math.sqrt(Math.max(0, f(f(f(1 - f(a * a)) - f(b * b)) - f(c * c)))));
  // The components in order, the largest put back at its index.
  const x = largest === 0 ? d : a;
  const y = largest === 0 ? a : largest === 1 ? d : b;
  const z = largest <= 1 ? b : largest === 2 ? d : c;
  const w = largest <= 2 ? c : d;
  out[0] = negate ? -x : x;
  out[1] = negate ? -y : y;
  out[2] = negate ? -z : z;
  out[3] = negate ? -w : w;
}

/**
 * Decodes a smallest-three key: `low` holds bits 0..31 and `high` bits
 * 32..63 of the 64-bit word (three 20-bit fields, the index of the
 * dropped, largest component, then a bit that negates the result). Writes
 * x, y, z, w into `out`.
 */
export function decodeSmallestThree(low: number, high: number, out: Float32Array): void {
  words[0] = low, words[1] = high;
  decodeSmallestThreeWords(out);
}

/** {@linkcode decodeSmallestThree} of the key in `words[0..2)`. */
function decodeSmallestThreeWords(out: Float32Array): void {
  const low = words[0], high = words[1];
  fields[0] = f(f((low & 0xfffff) * QUANTUM) - RANGE);
  fields[1] = f(f((((low >>> 20) | (high << 12)) & 0xfffff) * QUANTUM) - RANGE);
  fields[2] = f(f(((high >>> 8) & 0xfffff) * QUANTUM) - RANGE);
  placeSmallestThree((high >>> 28) & 3, (high & (1 << 30)) !== 0, out);
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
  words[0] = w0, words[1] = w1, words[2] = w2;
  decodeSmallestThreeWideWords(out);
}

/** {@linkcode decodeSmallestThreeWide} of the key in `words`. */
function decodeSmallestThreeWideWords(out: Float32Array): void {
  for (let i = 0; i < 3; i++) {
    fields[i] = f(f(f(words[i] & WIDE_MAX) * WIDE_QUANTUM) - RANGE);
  }
  placeSmallestThree(words[0] >>> 30, (words[1] & (1 << 30)) !== 0, out);
}

/**
 * @internal Decodes the smallest-three key at byte `at` of
 * {@linkcode heap} (its words `stride` bytes apart; wide: three words)
 * into `out`.
 */
export function decodeSmallestThreeAt(
  at: number,
  stride: number,
  wide: boolean,
  out: Float32Array,
): void {
  readU32(at, words, 0);
  readU32(at + stride, words, 1);
  if (!wide) return decodeSmallestThreeWords(out);
  readU32(at + 2 * stride, words, 2);
  decodeSmallestThreeWideWords(out);
}

/** Two floats read from a clip ({@linkcode readF32} writes, does not return). */
const pair = new Float64Array(2);

/**
 * Decodes key `k` (`n` components) of the track record at `track` of the
 * clip at `clip` (bytes of {@linkcode heap}) into `key`.
 */
export function decodeTrackKey(
  clip: number,
  track: number,
  k: number,
  n: number,
  key: Float32Array,
): void {
  const values = clip + u32At(track + 4);
  const format = u32At(track + 12) & 15;
  if (format === TRACK_SMALLEST_THREE) {
    decodeSmallestThreeAt(values + k * 8, 4, false, key);
  } else if (format === TRACK_SMALLEST_THREE_WIDE) {
    decodeSmallestThreeAt(values + k * 12, 4, true, key);
  } else if (format === TRACK_RANGED) {
    for (let c = 0; c < 3; c++) {
      const q = u16At(values + TRACK_RANGE_BYTES + k * 6 + c * 2);
      readF32(values + c * 4, pair, 0);
      readF32(values + 12 + c * 4, pair, 1);
      key[c] = f(pair[0] + f(q * pair[1]));
    }
  } else {
    for (let c = 0; c < n; c++) readF32(values + (k * n + c) * 4, key, c);
  }
}

/**
 * Index of the key interval `[times[k], times[k + 1])` holding `t`
 * ({@linkcode sampleTime}), for `times[0] <= t < times[n - 1]` (`times` a
 * byte offset in {@linkcode heap}).
 */
export function findKey(times: number, n: number): number {
  const t = sampleTime[0];
  let lo = 0, hi = n - 1;
  while (hi - lo > 1) {
    const mid = (lo + hi) >>> 1;
    readF32(times + mid * 4, pair, 0);
    if (pair[0] <= t) lo = mid;
    else hi = mid;
  }
  return lo;
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
 * @internal {@linkcode bisectPiece} without allocating: the interval and
 * time are `span[0..3)` (lo, hi, t); `a` and `b` become the piece's ends,
 * its bounds are written to `span[3]` and `span[4]`. Doubles go through
 * `span`, and the level count and piece starts are computed here, not in
 * calls: a double passed to or returned from a function the compiler does
 * not inline is a new heap number.
 */
export function bisectPieceInPlace(
  a: { [c: number]: number },
  b: { [c: number]: number },
  span: Float64Array,
): void {
  const lo = span[0], hi = span[1], t = span[2];
  let levels = 0;
  for (
    let c = f(f(f(a[0] * b[0]) + f(a[1] * b[1])) + f(f(a[2] * b[2]) + f(a[3] * b[3])));
    c < f(BISECT_COSINE) && levels < BISECT_LEVELS;
    levels++
  ) {
    c = f(Math.sqrt(Math.max(0, f(f(1 + c) * 0.5))));
  }
  const pieces = 1 << levels, width = f(hi - lo);
  let s = Math.floor(f(f(f(t - lo) / width) * pieces));
  s = Math.min(pieces - 1, Math.max(0, s));
  // Piece i starts at `pieceStart(lo, hi, i, pieces)`, written out.
  while (s > 0 && t < f(lo + f(width * f(s / pieces)))) s--;
  while (s < pieces - 1 && t >= (s + 1 === pieces ? hi : f(lo + f(width * f((s + 1) / pieces))))) {
    s++;
  }
  for (let level = levels - 1; level >= 0; level--) {
    const m0 = f(a[0] + b[0]), m1 = f(a[1] + b[1]), m2 = f(a[2] + b[2]), m3 = f(a[3] + b[3]);
    const l = f(f(f(m0 * m0) + f(m1 * m1)) + f(f(m2 * m2) + f(m3 * m3)));
    if (!(l > 0)) break;
    const n = f(1 / f(Math.sqrt(l)));
    const half = (s >> level) & 1 ? a : b;
    half[0] = f(m0 * n);
    half[1] = f(m1 * n);
    half[2] = f(m2 * n);
    half[3] = f(m3 * n);
  }
  span[3] = f(lo + f(width * f(s / pieces)));
  span[4] = s + 1 === pieces ? hi : f(lo + f(width * f((s + 1) / pieces)));
}

/** {@linkcode bisectPiece}'s span (synchronous, so sharing is safe). */
const pieceSpan = new Float64Array(5);

/**
 * The piece of the bisected interval `[lo, hi)` (keys `a`, `b`) holding
 * `t` (see `simd/wasm/assembly/sample_bisect.ts`): `a` and `b` become the
 * piece's ends; its bounds are returned. Float32 arithmetic, as the kernel.
 */
export function bisectPiece(
  a: number[],
  b: number[],
  lo: number,
  hi: number,
  t: number,
): { start: number; end: number } {
  pieceSpan[0] = lo, pieceSpan[1] = hi, pieceSpan[2] = t;
  bisectPieceInPlace(a, b, pieceSpan);
  return { start: pieceSpan[3], end: pieceSpan[4] };
}

/**
 * Stores the blended quaternion `q` normalized into the pose lane at byte
 * `at` of {@linkcode heap} (component stride 16 bytes); the identity where
 * it has no length (zero padding lanes), as `blendPoses`.
 */
export function storeNormalized(q: ArrayLike<number>, at: number): void {
  const l = f(f(q[0] * q[0] + q[1] * q[1]) + f(q[2] * q[2] + q[3] * q[3]));
  const n = f(1 / f(Math.sqrt(l)));
  const f32 = heap.f32, i = at >>> 2;
  for (let c = 0; c < 4; c++) f32[i + c * 4] = l > 0 ? f(q[c] * n) : c === 3 ? 1 : 0;
}

/** The terms of shared clips' slerp correction (`SLERP_FIT_C0`) that depend on the weight `w` alone. */
export interface SlerpTerms {
  readonly w: number;
  readonly g: number;
  readonly p: number;
  readonly q: number;
}

/**
 * @internal Completes `terms` as the {@link SlerpTerms} of its weight
 * `terms.w` (float32, as the kernel); the weight is not an argument, which
 * would be a new heap number where the call is not inlined.
 */
export function setSlerpTerms(terms: { w: number; g: number; p: number; q: number }): void {
  const w = terms.w, h = f(w - 0.5), s = f(h * h);
  terms.g = f(f(w * h) * f(w - 1));
  terms.p = f(f(SLERP_FIT_C0) + f(f(SLERP_FIT_C2) * s));
  terms.q = f(f(SLERP_FIT_C1) + f(f(SLERP_FIT_C3) * s));
}

/** {@link SlerpTerms} of weight `w` (float32, as the kernel computes them). */
export function slerpTerms(w: number): SlerpTerms {
  const terms = { w, g: 0, p: 0, q: 0 };
  setSlerpTerms(terms);
  return terms;
}

/**
 * The weight at which rotations `a` and `b` normalized-lerp onto slerp's
 * curve at the weight of `terms`.
 */
export function slerpWeight(terms: SlerpTerms, a: ArrayLike<number>, b: ArrayLike<number>): number {
  setSlerpWeight(terms, a, b, weightScratch);
  return weightScratch[0];
}

const weightScratch = new Float64Array(1);

/** @internal {@linkcode slerpWeight} written to `out[0]` (a returned double is a new heap number where not inlined). */
export function setSlerpWeight(
  terms: SlerpTerms,
  a: ArrayLike<number>,
  b: ArrayLike<number>,
  out: Float64Array,
): void {
  const d = f(f(f(a[0] * b[0]) + f(a[1] * b[1])) + f(f(a[2] * b[2]) + f(a[3] * b[3])));
  const e = f(1 - Math.abs(d));
  out[0] = f(f(terms.g * f(e * f(f(e * terms.q) + terms.p))) + terms.w);
}
