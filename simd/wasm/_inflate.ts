/**
 * A synchronous raw DEFLATE (RFC 1951) decoder for the embedded cores: the
 * bytes stay compressed in the bundle (a third of their base64 size, once
 * gzipped) and are inflated once, when a core of that build is first made.
 * `DecompressionStream` would do it, but only asynchronously, and
 * `Core.create` is synchronous.
 *
 * @module
 */

// RFC 1951 section 3.2.5: length codes 257..285 and distance codes 0..29,
// each a base plus as many extra bits as the table says.
const LENGTH_EXTRA = Uint8Array.from(
  { length: 29 },
  (_, i) => i < 8 || i === 28 ? 0 : (i - 4) >> 2,
);
const LENGTH_BASE = bases(LENGTH_EXTRA, 3);
LENGTH_BASE[28] = 258;
const DISTANCE_EXTRA = Uint8Array.from({ length: 30 }, (_, i) => i < 4 ? 0 : (i - 2) >> 1);
const DISTANCE_BASE = bases(DISTANCE_EXTRA, 1);

function bases(extra: Uint8Array, first: number): Uint16Array {
  const base = new Uint16Array(extra.length);
  base[0] = first;
  for (let i = 1; i < extra.length; i++) base[i] = base[i - 1] + (1 << extra[i - 1]);
  return base;
}

/** The order in which a dynamic block lists its code-length code's lengths. */
const CODE_LENGTH_ORDER = Uint8Array.of(
  ...[16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15],
);

/** A canonical Huffman code: how many codes of each length, and the symbols in code order. */
interface Huffman {
  readonly counts: Uint16Array;
  readonly symbols: Uint16Array;
}

function huffman(lengths: Uint8Array): Huffman {
  const counts = new Uint16Array(16);
  for (const length of lengths) counts[length]++;
  counts[0] = 0;
  const offsets = new Uint16Array(16);
  for (let i = 1; i < 16; i++) offsets[i] = offsets[i - 1] + counts[i - 1];
  const symbols = new Uint16Array(lengths.length);
  for (let symbol = 0; symbol < lengths.length; symbol++) {
    if (lengths[symbol] !== 0) symbols[offsets[lengths[symbol]]++] = symbol;
  }
  return { counts, symbols };
}

const FIXED_LITERALS = huffman(
  Uint8Array.from({ length: 288 }, (_, i) => i < 144 ? 8 : i < 256 ? 9 : i < 280 ? 7 : 8),
);
const FIXED_DISTANCES = huffman(new Uint8Array(30).fill(5));

function corrupt(what: string): never {
  throw new RangeError(`inflate: corrupt input: ${what}`);
}

/**
 * Inflates the raw DEFLATE stream `input` into exactly `length` bytes; a
 * `RangeError` when the stream is malformed, ends early, or would write more
 * or fewer than `length` bytes.
 */
export function inflateRaw(input: Uint8Array, length: number): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(length);
  let at = 0, bitBuffer = 0, bitCount = 0, pos = 0;

  const bits = (n: number): number => {
    while (bitCount < n) {
      if (pos >= input.length) corrupt("ends early");
      bitBuffer |= input[pos++] << bitCount;
      bitCount += 8;
    }
    const value = bitBuffer & ((1 << n) - 1);
    bitBuffer >>>= n;
    bitCount -= n;
    return value;
  };

  const symbol = ({ counts, symbols }: Huffman): number => {
    let code = 0, first = 0, index = 0;
    for (let len = 1; len < 16; len++) {
      code |= bits(1);
      const count = counts[len];
      if (code - first < count) return symbols[index + code - first];
      index += count;
      first = (first + count) << 1;
      code <<= 1;
    }
    return corrupt("no such code");
  };

  const dynamicCodes = (): [Huffman, Huffman] => {
    const literalCount = bits(5) + 257, distanceCount = bits(5) + 1, codeLengthCount = bits(4) + 4;
    if (literalCount > 286 || distanceCount > 30) corrupt("too many codes");
    const codeLengths = new Uint8Array(19);
    for (let i = 0; i < codeLengthCount; i++) codeLengths[CODE_LENGTH_ORDER[i]] = bits(3);
    const codeLengthCode = huffman(codeLengths);
    const lengths = new Uint8Array(literalCount + distanceCount);
    for (let i = 0; i < lengths.length;) {
      const sym = symbol(codeLengthCode);
      if (sym < 16) {
        lengths[i++] = sym;
        continue;
      }
      let repeat: number, value = 0;
      if (sym === 16) {
        if (i === 0) corrupt("repeat with no previous length");
        value = lengths[i - 1];
        repeat = 3 + bits(2);
      } else repeat = sym === 17 ? 3 + bits(3) : 11 + bits(7);
      if (i + repeat > lengths.length) corrupt("code lengths overflow");
      lengths.fill(value, i, i + repeat);
      i += repeat;
    }
    return [huffman(lengths.subarray(0, literalCount)), huffman(lengths.subarray(literalCount))];
  };

  let last = 0;
  while (!last) {
    last = bits(1);
    const type = bits(2);
    if (type === 0) {
      bitBuffer = bitCount = 0; // a stored block starts on a byte boundary
      if (pos + 4 > input.length) corrupt("ends early");
      const n = input[pos] | input[pos + 1] << 8;
      if ((n ^ (input[pos + 2] | input[pos + 3] << 8)) !== 0xffff) corrupt("stored length");
      pos += 4;
      if (pos + n > input.length) corrupt("ends early");
      if (at + n > length) corrupt("longer than expected");
      out.set(input.subarray(pos, pos + n), at);
      pos += n;
      at += n;
      continue;
    }
    if (type === 3) corrupt("block type 3");
    const [literals, distances] = type === 1 ? [FIXED_LITERALS, FIXED_DISTANCES] : dynamicCodes();
    for (;;) {
      const sym = symbol(literals);
      if (sym < 256) {
        if (at >= length) corrupt("longer than expected");
        out[at++] = sym;
        continue;
      }
      if (sym === 256) break;
      if (sym > 285) corrupt("length code");
      const n = LENGTH_BASE[sym - 257] + bits(LENGTH_EXTRA[sym - 257]);
      const d = symbol(distances);
      if (d > 29) corrupt("distance code");
      const distance = DISTANCE_BASE[d] + bits(DISTANCE_EXTRA[d]);
      if (distance > at) corrupt("distance before the start");
      if (at + n > length) corrupt("longer than expected");
      for (let i = 0; i < n; i++, at++) out[at] = out[at - distance];
    }
  }
  if (at !== length) corrupt(`${at} bytes, expected ${length}`);
  return out;
}
