/**
 * A clip channel sampled at times that mostly move forward (a build's
 * candidates, shared timeline and measured times): the same values as
 * `sampleChannel`, bit for bit, without its search per sample (the cursor
 * steps from the interval it was last in) and with each LINEAR rotation
 * interval's angle and its sine computed once, not at every sample (a
 * slerp is then two sines, not an arccosine and three sines). STEP and
 * CUBICSPLINE channels are sampled by `sampleChannel` itself.
 *
 * @module
 */

import { type ClipChannel, sampleChannel } from "./clip.ts";

/** Intervals the cursor steps one by one before it searches. */
const STEPS_BEFORE_SEARCH = 4;

/** A cursor's keys before its first channel. */
const NO_KEYS = new Float32Array(4);

/** A cursor over one channel's key intervals (see the module doc). */
export class ChannelCursor {
  #times: Float32Array = NO_KEYS;
  #values: Float32Array = NO_KEYS;
  #channel: ClipChannel | undefined;
  #n = 3;
  #linear = true;
  #last = 0;
  /** The interval `[times[i], times[i + 1])` the cursor is in. */
  #i = 0;
  /** The interval whose slerp terms below are computed (-1: none). */
  #termsOf = -1;
  /** Slerp terms: 0 equal keys, 1 trigonometric, 2 lerp and normalize. */
  #slerp = 0;
  #theta = 0;
  #sin = 0;
  /** The interval's second key, on the first's side (fields, not an array: a build makes a cursor per channel). */
  #bx = 0;
  #by = 0;
  #bz = 0;
  #bw = 0;

  /** A cursor over `channel` (or none yet: {@linkcode reset} before sampling). */
  constructor(channel?: ClipChannel) {
    if (channel) this.reset(channel);
  }

  /** Points the cursor at `channel`'s first interval. */
  reset(channel: ClipChannel): this {
    this.#times = channel.times;
    this.#values = channel.values;
    this.#n = channel.path === "rotation" ? 4 : 3;
    this.#channel = channel;
    this.#linear = channel.interpolation === "LINEAR";
    this.#last = channel.times.length - 1;
    this.#i = 0;
    this.#termsOf = -1;
    return this;
  }

  /** The index `i` with `times[i] <= time < times[i + 1]`, for `times[0] < time < times[last]`. */
  #seek(time: number): number {
    const times = this.#times;
    let i = this.#i;
    for (let s = 0; s < STEPS_BEFORE_SEARCH; s++) {
      if (time < times[i]) i--;
      else if (time >= times[i + 1]) i++;
      else return (this.#i = i);
    }
    let lo = 0, hi = this.#last;
    while (hi - lo > 1) {
      const mid = (lo + hi) >> 1;
      if (times[mid] <= time) lo = mid;
      else hi = mid;
    }
    return (this.#i = lo);
  }

  /** The channel's value at `time` into `out[0..n)`, as `sampleChannel` gives it. */
  at(time: number, out: Float64Array | Float32Array): void {
    const channel = this.#channel;
    // STEP and CUBICSPLINE keys: sampleChannel's own search (the cursor's
    // gain is in LINEAR intervals, a build's candidates and measurements).
    if (!this.#linear) return sampleChannel(channel!, time, out);
    const times = this.#times, values = this.#values, n = this.#n, last = this.#last;
    if (!(time > times[0]) || last === 0) {
      for (let c = 0; c < n; c++) out[c] = values[c];
      return;
    }
    if (time >= times[last]) {
      for (let c = 0; c < n; c++) out[c] = values[last * n + c];
      return;
    }
    const i = this.#seek(time);
    const a = i * n, b = a + n;
    const u = (time - times[i]) / (times[i + 1] - times[i]);
    if (n === 3) {
      const s = 1 - u;
      for (let c = 0; c < 3; c++) out[c] = values[a + c] * s + values[b + c] * u;
      return;
    }
    this.#slerpAt(i, a, b, u, out);
  }

  /** `slerp` of `clip.ts` (three.js `slerpFlat`) with the interval's terms kept. */
  #slerpAt(i: number, a: number, b: number, t: number, out: Float64Array | Float32Array): void {
    const values = this.#values;
    let x0 = values[a], y0 = values[a + 1], z0 = values[a + 2], w0 = values[a + 3];
    if (this.#termsOf !== i) {
      this.#termsOf = i;
      let x1 = values[b], y1 = values[b + 1], z1 = values[b + 2], w1 = values[b + 3];
      if (x0 !== x1 || y0 !== y1 || z0 !== z1 || w0 !== w1) {
        let dot = x0 * x1 + y0 * y1 + z0 * z1 + w0 * w1;
        if (dot < 0) {
          x1 = -x1, y1 = -y1, z1 = -z1, w1 = -w1;
          dot = -dot;
        }
        this.#bx = x1, this.#by = y1, this.#bz = z1, this.#bw = w1;
        if (dot < 0.9995) {
          this.#slerp = 1;
          this.#theta = Math.acos(dot);
          this.#sin = Math.sin(this.#theta);
        } else this.#slerp = 2;
      } else this.#slerp = 0;
    }
    const kind = this.#slerp, bx = this.#bx, by = this.#by, bz = this.#bz, bw = this.#bw;
    if (kind === 1 && t !== 0) {
      const theta = this.#theta, sin = this.#sin;
      const s = Math.sin((1 - t) * theta) / sin;
      t = Math.sin(t * theta) / sin;
      x0 = x0 * s + bx * t, y0 = y0 * s + by * t;
      z0 = z0 * s + bz * t, w0 = w0 * s + bw * t;
    } else if (kind === 2) {
      const s = 1 - t;
      x0 = x0 * s + bx * t, y0 = y0 * s + by * t;
      z0 = z0 * s + bz * t, w0 = w0 * s + bw * t;
      const f = 1 / Math.sqrt(x0 * x0 + y0 * y0 + z0 * z0 + w0 * w0);
      x0 *= f, y0 *= f, z0 *= f, w0 *= f;
    }
    out[0] = x0, out[1] = y0, out[2] = z0, out[3] = w0;
  }
}
