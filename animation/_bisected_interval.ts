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
  /**
   * The arc's points at piece bounds (4 floats each), once halved out: a
   * point is the normalized sum of its two neighbours a level up, so each
   * is computed once per interval, not once per piece below it.
   */
  readonly #points = new Float64Array(65 * 4);
  readonly #pointReady = new Uint8Array(65);
  /** The interval's keys (no views made per interval). */
  readonly #a = new Float32Array(4);
  readonly #b = new Float32Array(4);
  /** A sum of opposite points was 0: halving stops there, piece by piece. */
  #degenerate = false;

  /** The interval from key `i` to `j` of `q`, at times `lo`, `hi`. */
  select(q: Float32Array, i: number, j: number, lo: number, hi: number): void {
    if (q === this.#q && i === this.#i && j === this.#j) return;
    this.#q = q, this.#i = i, this.#j = j, this.#lo = lo, this.#hi = hi;
    const a = this.#a, b = this.#b;
    for (let c = 0; c < 4; c++) a[c] = q[i * 4 + c], b[c] = q[j * 4 + c];
    this.#pieces = bisectPieceCount(a, b);
    this.#levels = Math.log2(this.#pieces);
    this.#ready.fill(0, 0, this.#pieces);
    this.#pointReady.fill(0, 1, this.#pieces);
    this.#pointReady[0] = this.#pointReady[this.#pieces] = 1;
    const points = this.#points, end = this.#pieces * 4;
    for (let c = 0; c < 4; c++) points[c] = q[i * 4 + c], points[end + c] = q[j * 4 + c];
    this.#degenerate = false;
  }

  /** The interval's value at time `t`, into `out`. */
  at(t: number, out: Float64Array): void {
    const f = Math.fround, lo = this.#lo, hi = this.#hi, pieces = this.#pieces;
    const time = f(t);
    if (pieces === 1) {
      // One piece (an arc within the sampler's angle): from key to key, as
      // below with the piece's bounds lo and hi (most spans of a greedy pass).
      const a = this.#a, b = this.#b, w = f(f(time - lo) * f(1 / f(hi - lo)));
      let length = 0;
      for (let c = 0; c < 4; c++) length += (out[c] = f(a[c] + f(f(b[c] - a[c]) * w))) ** 2;
      for (let c = 0; c < 4; c++) out[c] /= Math.sqrt(length);
      return;
    }
    let s = Math.floor(f(f(f(time - lo) / f(hi - lo)) * pieces));
    s = Math.min(pieces - 1, Math.max(0, s));
    while (s > 0 && time < pieceStart(lo, hi, s, pieces)) s--;
    while (s < pieces - 1 && time >= pieceStart(lo, hi, s + 1, pieces)) s++;
    const ends = this.#ends, e = s * 8;
    if (!this.#ready[s]) {
      if (this.#degenerate || !this.#point(s) || !this.#point(s + 1)) {
        this.#degenerate = true;
        this.#halve(s);
      } else {
        for (let c = 0; c < 8; c++) ends[e + c] = this.#points[s * 4 + c];
      }
      this.#ready[s] = 1;
    }
    const start = pieceStart(lo, hi, s, pieces), end = pieceStart(lo, hi, s + 1, pieces);
    const w = f(f(time - start) * f(1 / f(end - start)));
    let length = 0;
    for (let c = 0; c < 4; c++) {
      length += (out[c] = f(ends[e + c] + f(f(ends[e + 4 + c] - ends[e + c]) * w))) ** 2;
    }
    for (let c = 0; c < 4; c++) out[c] /= Math.sqrt(length);
  }

  /**
   * Computes the arc's point at bound `p` (in pieces), as `#halve` does on
   * the way to a piece it bounds; false when a sum on the way is 0.
   */
  #point(p: number): boolean {
    if (this.#pointReady[p]) return true;
    const h = p & -p, points = this.#points;
    if (!this.#point(p - h) || !this.#point(p + h)) return false;
    const f = Math.fround, a = (p - h) * 4, b = (p + h) * 4, o = p * 4;
    const m0 = f(points[a] + points[b]), m1 = f(points[a + 1] + points[b + 1]);
    const m2 = f(points[a + 2] + points[b + 2]), m3 = f(points[a + 3] + points[b + 3]);
    const l = f(f(f(m0 * m0) + f(m1 * m1)) + f(f(m2 * m2) + f(m3 * m3)));
    if (!(l > 0)) return false;
    const n = f(1 / f(Math.sqrt(l)));
    points[o] = f(m0 * n), points[o + 1] = f(m1 * n);
    points[o + 2] = f(m2 * n), points[o + 3] = f(m3 * n);
    this.#pointReady[p] = 1;
    return true;
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
