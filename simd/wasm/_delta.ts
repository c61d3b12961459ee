/**
 * A core build as a delta from another: the four builds share almost all
 * their bytes (the relaxed-SIMD build differs in the kernels that fuse
 * multiply-adds, the shared-memory builds only in their memory's import), so
 * the bundle carries one build whole and the others as deltas, each a few
 * kilobytes once compressed.
 *
 * A delta is a sequence of operations, each opening with an unsigned LEB128
 * `n`: odd, copy `n >> 1` bytes of the base from the cursor moved by a
 * zigzag LEB128 offset; even, insert the `n >> 1` bytes that follow. The
 * cursor is where the previous copy ended, and an insert moves it on by its
 * length, so a changed byte costs the byte and a copy that goes on where
 * the last one stopped costs one offset byte.
 *
 * @module
 */

/** The bytes of `target` rebuilt from `base` and their `delta` (`encodeDelta`). */
export function applyDelta(
  base: Uint8Array,
  delta: Uint8Array,
  length: number,
): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(length);
  let at = 0, pos = 0, cursor = 0;
  const varint = (): number => {
    let value = 0;
    for (let shift = 0;; shift += 7) {
      if (pos >= delta.length || shift > 28) throw new RangeError("delta: corrupt input");
      const byte = delta[pos++];
      value += (byte & 127) * 2 ** shift;
      if (byte < 128) return value;
    }
  };
  while (pos < delta.length) {
    const op = varint(), n = Math.floor(op / 2);
    if (at + n > length) throw new RangeError("delta: longer than expected");
    if (op % 2 === 1) {
      const zigzag = varint();
      cursor += zigzag % 2 === 1 ? -(zigzag + 1) / 2 : zigzag / 2;
      if (cursor < 0 || cursor + n > base.length) throw new RangeError("delta: copy outside base");
      out.set(base.subarray(cursor, cursor + n), at);
    } else {
      if (pos + n > delta.length) throw new RangeError("delta: corrupt input");
      out.set(delta.subarray(pos, pos + n), at);
      pos += n;
    }
    at += n;
    cursor += n;
  }
  if (at !== length) throw new RangeError(`delta: ${at} bytes, expected ${length}`);
  return out;
}

/** Bytes a copy must match to be worth its opcode and offset away from the cursor. */
const MIN_JUMP = 8;
/** Bytes a copy from the cursor must match. */
const MIN_RUN = 4;
/** Candidate positions kept per hash of {@linkcode MIN_JUMP} bytes. */
const CANDIDATES = 16;

/**
 * A delta (see the module doc) that rebuilds `target` from `base`: at each
 * position the longest copy from the cursor or from a position of `base`
 * with the same next {@linkcode MIN_JUMP} bytes, else one inserted byte.
 * Deterministic: the same inputs give the same delta.
 */
export function encodeDelta(base: Uint8Array, target: Uint8Array): Uint8Array {
  const hash = (bytes: Uint8Array, i: number): number => {
    let h = 0;
    for (let k = 0; k < MIN_JUMP; k++) h = (Math.imul(h, 0x01000193) ^ bytes[i + k]) >>> 0;
    return h;
  };
  const index = new Map<number, number[]>();
  for (let i = 0; i + MIN_JUMP <= base.length; i++) {
    const h = hash(base, i);
    const list = index.get(h) ?? [];
    if (list.length < CANDIDATES) list.push(i);
    index.set(h, list);
  }
  const matched = (from: number, at: number): number => {
    let n = 0;
    while (from + n < base.length && at + n < target.length && base[from + n] === target[at + n]) {
      n++;
    }
    return n;
  };
  const out: number[] = [], pending: number[] = [];
  const varint = (value: number) => {
    for (; value >= 128; value = Math.floor(value / 128)) out.push((value % 128) | 128);
    out.push(value);
  };
  const flush = () => {
    if (pending.length === 0) return;
    varint(pending.length * 2);
    out.push(...pending);
    pending.length = 0;
  };
  let cursor = 0;
  for (let at = 0; at < target.length;) {
    let best = matched(cursor, at), from = cursor;
    if (best < MIN_RUN) best = 0;
    if (at + MIN_JUMP <= target.length) {
      for (const candidate of index.get(hash(target, at)) ?? []) {
        const n = matched(candidate, at);
        if (n >= MIN_JUMP && n > best) [best, from] = [n, candidate];
      }
    }
    if (best === 0) {
      pending.push(target[at++]);
      cursor++;
      continue;
    }
    flush();
    varint(best * 2 + 1);
    const offset = from - cursor;
    varint(offset < 0 ? -2 * offset - 1 : 2 * offset);
    at += best;
    cursor = from + best;
  }
  flush();
  return Uint8Array.from(out);
}
