/**
 * A synchronous LZMA decoder (the `.lzma` format: a 13-byte header, then
 * one LZMA stream) for the embedded cores: the bytes stay compressed in the
 * bundle and are decoded once, when a core of that build is first made.
 * LZMA, not DEFLATE: its window spans a whole core and it models code better,
 * so a core takes 20 KB where DEFLATE's best takes 27 KB (gzip cannot shrink
 * either further, and `DecompressionStream` is asynchronous anyway, while
 * `Core.create` is not). Written from Igor Pavlov's `LzmaSpec.cpp` (public
 * domain), the format's reference decoder.
 *
 * @module
 */

const HEADER_BYTES = 13;
/** The header's size when the stream ends with an end marker instead (2^64 - 1). */
const UNKNOWN_SIZE = 2 ** 64;
const STATES = 12;
const END_POS_MODEL_INDEX = 14;
const FULL_DISTANCES = 128;
const ALIGN_BITS = 4;
const LEN_TO_POS_STATES = 4;
const PROBABILITY_ONE = 2048;
const MOVE_BITS = 5;
const TOP = 2 ** 24;

function corrupt(what: string): never {
  throw new RangeError(`lzma: corrupt input: ${what}`);
}

function probabilities(length: number): Uint16Array {
  return new Uint16Array(length).fill(PROBABILITY_ONE / 2);
}

/**
 * Decodes the `.lzma` data `input` (header and stream) into exactly `length`
 * bytes, which its header must state (or leave unknown); a `RangeError` when
 * it is malformed, ends early, or would write more bytes.
 */
export function decodeLzma(input: Uint8Array, length: number): Uint8Array<ArrayBuffer> {
  if (input.length < HEADER_BYTES + 5) corrupt("shorter than a header");
  let props = input[0];
  if (props >= 9 * 5 * 5) corrupt("properties");
  const lc = props % 9;
  props = Math.floor(props / 9);
  const lp = props % 5, pb = Math.floor(props / 5);
  let stated = 0;
  for (let i = 12; i >= 5; i--) stated = stated * 256 + input[i];
  if (stated !== length && stated !== UNKNOWN_SIZE) {
    corrupt(`the header states ${stated} bytes, expected ${length}`);
  }

  // The range decoder. `range` and `code` are unsigned 32-bit values kept
  // as plain numbers (code < range), so no operation here wraps.
  let pos = HEADER_BYTES;
  const next = (): number => pos < input.length ? input[pos++] : corrupt("ends early");
  if (next() !== 0) corrupt("range coder start");
  let range = 0xffffffff, code = 0;
  for (let i = 0; i < 4; i++) code = code * 256 + next();
  if (code === range) corrupt("range coder start");
  const normalize = () => {
    if (range < TOP) {
      range *= 256;
      code = code * 256 + next();
    }
  };
  const bit = (probs: Uint16Array, i: number): number => {
    const p = probs[i], bound = (range >>> 11) * p;
    if (code < bound) {
      probs[i] = p + ((PROBABILITY_ONE - p) >>> MOVE_BITS);
      range = bound;
      normalize();
      return 0;
    }
    probs[i] = p - (p >>> MOVE_BITS);
    code -= bound;
    range -= bound;
    normalize();
    return 1;
  };
  const directBits = (n: number): number => {
    let value = 0;
    for (let i = 0; i < n; i++) {
      range = range >>> 1;
      let b = 0;
      if (code >= range) {
        code -= range;
        b = 1;
      }
      normalize();
      value = value * 2 + b;
    }
    return value;
  };
  const tree = (probs: Uint16Array, base: number, bits: number): number => {
    let m = 1;
    for (let i = 0; i < bits; i++) m = (m << 1) + bit(probs, base + m);
    return m - (1 << bits);
  };
  const reverseTree = (probs: Uint16Array, base: number, bits: number): number => {
    let m = 1, symbol = 0;
    for (let i = 0; i < bits; i++) {
      const b = bit(probs, base + m);
      m = (m << 1) + b;
      symbol |= b << i;
    }
    return symbol;
  };

  const lengthCoder = () => {
    const choice = probabilities(2), low = probabilities(16 << 3), mid = probabilities(16 << 3);
    const high = probabilities(256);
    return (posState: number): number => {
      if (bit(choice, 0) === 0) return tree(low, posState << 3, 3);
      if (bit(choice, 1) === 0) return 8 + tree(mid, posState << 3, 3);
      return 16 + tree(high, 0, 8);
    };
  };
  const matchLength = lengthCoder(), repLength = lengthCoder();
  const literals = probabilities(0x300 << (lc + lp));
  const posSlots = probabilities(LEN_TO_POS_STATES << 6);
  const posProbs = probabilities(1 + FULL_DISTANCES - END_POS_MODEL_INDEX);
  const align = probabilities(1 << ALIGN_BITS);
  const isMatch = probabilities(STATES << 4), isRep0Long = probabilities(STATES << 4);
  const isRep = probabilities(STATES), isRepG0 = probabilities(STATES);
  const isRepG1 = probabilities(STATES), isRepG2 = probabilities(STATES);

  /** The distance minus one of a match of length code `len` (0xffffffff: the end marker). */
  const distance = (len: number): number => {
    const slot = tree(posSlots, Math.min(len, LEN_TO_POS_STATES - 1) << 6, 6);
    if (slot < 4) return slot;
    const bits = (slot >>> 1) - 1;
    const dist = (2 | (slot & 1)) * 2 ** bits;
    if (slot < END_POS_MODEL_INDEX) return dist + reverseTree(posProbs, dist - slot, bits);
    return dist + directBits(bits - ALIGN_BITS) * (1 << ALIGN_BITS) +
      reverseTree(align, 0, ALIGN_BITS);
  };

  const out = new Uint8Array(length);
  const pbMask = (1 << pb) - 1, lpMask = (1 << lp) - 1;
  let at = 0, state = 0, rep0 = 0, rep1 = 0, rep2 = 0, rep3 = 0;
  while (at < length) {
    const posState = at & pbMask;
    if (bit(isMatch, (state << 4) + posState) === 0) {
      const previous = at > 0 ? out[at - 1] : 0;
      const base = 0x300 * (((at & lpMask) << lc) + (previous >>> (8 - lc)));
      let symbol = 1;
      if (state >= 7) {
        let matchByte = out[at - rep0 - 1];
        while (symbol < 0x100) {
          const matchBit = (matchByte >>> 7) & 1;
          matchByte <<= 1;
          const b = bit(literals, base + ((1 + matchBit) << 8) + symbol);
          symbol = (symbol << 1) | b;
          if (matchBit !== b) break;
        }
      }
      while (symbol < 0x100) symbol = (symbol << 1) | bit(literals, base + symbol);
      out[at++] = symbol - 0x100;
      state = state < 4 ? 0 : state < 10 ? state - 3 : state - 6;
      continue;
    }
    let len: number;
    if (bit(isRep, state) !== 0) {
      if (at === 0) corrupt("a repeat before any byte");
      if (bit(isRepG0, state) === 0) {
        if (bit(isRep0Long, (state << 4) + posState) === 0) {
          state = state < 7 ? 9 : 11;
          out[at] = out[at - rep0 - 1];
          at++;
          continue;
        }
      } else {
        let dist: number;
        if (bit(isRepG1, state) === 0) dist = rep1;
        else {
          if (bit(isRepG2, state) === 0) dist = rep2;
          else {
            dist = rep3;
            rep3 = rep2;
          }
          rep2 = rep1;
        }
        rep1 = rep0;
        rep0 = dist;
      }
      len = repLength(posState);
      state = state < 7 ? 8 : 11;
    } else {
      rep3 = rep2;
      rep2 = rep1;
      rep1 = rep0;
      len = matchLength(posState);
      state = state < 7 ? 7 : 10;
      rep0 = distance(len);
      if (rep0 === 0xffffffff) corrupt(`ends at ${at} bytes, expected ${length}`);
      if (rep0 >= at) corrupt("a match before the start");
    }
    len += 2;
    if (at + len > length) corrupt("longer than expected");
    for (let i = 0; i < len; i++, at++) out[at] = out[at - rep0 - 1];
  }
  return out;
}
