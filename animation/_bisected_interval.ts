/**
 * The compact sampler's values on a bisected rotation interval
 * (`TRACK_BISECT`), for the key reduction (`_reduce.ts`).
 *
 * @module
 */

import { bisectPieceCount, pieceStart } from "../simd/scalar/sample.ts";

/**
 * The kernel's values of a bisected rotation interval from keys `i` to `j`
 * (at times `lo`, `hi`), float32 as it computes them: its rounding of the
 * pieces' bounds is part of the error the reduction bounds. The greedy
 * pass asks one interval at many times: each piece's ends are halved out
 * once (as `bisectPiece` does) and kept.
 */
export class BisectedInterval {
  #q: Float32Array = new Float32Array(0);
  #i = -1;
  #j = -1;
  #lo = 0;
  #hi = 0;
  #pieces = 1;
  #levels = 0;
  /** Per piece: its two ends (8 floats), once halved out. */
  readonly #ends = new Float64Array(64 * 8);
  readonly #ready = new Uint8Array(64);

  /** The interval from key `i` to `j` of `q`, at times `lo`, `hi`. */
  select(q: Float32Array, i: number, j: number, lo: number, hi: number): void {
    if (q === this.#q && i === this.#i && j === this.#j) return;
    this.#q = q, this.#i = i, this.#j = j, this.#lo = lo, this.#hi = hi;
    this.#pieces = bisectPieceCount(q.subarray(i * 4, i * 4 + 4), q.subarray(j * 4, j * 4 + 4));
    this.#levels = Math.log2(this.#pieces);
    this.#ready.fill(0, 0, this.#pieces);
  }

  /** The interval's value at time `t`, into `out`. */
  at(t: number, out: Float64Array): void {
    const f = Math.fround, lo = this.#lo, hi = this.#hi, pieces = this.#pieces;
    const time = f(t);
    let s = Math.floor(f(f(f(time - lo) / f(hi - lo)) * pieces));
    s = Math.min(pieces - 1, Math.max(0, s));
    while (s > 0 && time < pieceStart(lo, hi, s, pieces)) s--;
    while (s < pieces - 1 && time >= pieceStart(lo, hi, s + 1, pieces)) s++;
    const ends = this.#ends, e = s * 8;
    if (!this.#ready[s]) this.#halve(s), this.#ready[s] = 1;
    const start = pieceStart(lo, hi, s, pieces), end = pieceStart(lo, hi, s + 1, pieces);
    const w = f(f(time - start) * f(1 / f(end - start)));
    let length = 0;
    for (let c = 0; c < 4; c++) {
      length += (out[c] = f(ends[e + c] + f(f(ends[e + 4 + c] - ends[e + c]) * w))) ** 2;
    }
    for (let c = 0; c < 4; c++) out[c] /= Math.sqrt(length);
  }

  /** Halves the arc down to piece `s`, as `bisectPiece` does. */
  #halve(s: number): void {
    const f = Math.fround, q = this.#q, ends = this.#ends, e = s * 8;
    for (let c = 0; c < 4; c++) {
      ends[e + c] = q[this.#i * 4 + c], ends[e + 4 + c] = q[this.#j * 4 + c];
    }
    const m = [0, 0, 0, 0];
    for (let level = this.#levels - 1; level >= 0; level--) {
      for (let c = 0; c < 4; c++) m[c] = f(ends[e + c] + ends[e + 4 + c]);
      const l = f(f(f(m[0] * m[0]) + f(m[1] * m[1])) + f(f(m[2] * m[2]) + f(m[3] * m[3])));
      if (!(l > 0)) break;
      const n = f(1 / f(Math.sqrt(l)));
      const half = (s >> level) & 1 ? e : e + 4;
      for (let c = 0; c < 4; c++) ends[half + c] = f(m[c] * n);
    }
  }
}
