/**
 * The greedy pass of the key reduction (`_reduce.ts`): the candidates a
 * channel keeps so that interpolating them as the compact sampler does
 * (nlerp, or bisected intervals) stays within the tolerance at every
 * candidate and halfway between two.
 *
 * @module
 */

import { BisectedInterval } from "./_bisected_interval.ts";
import type { BuildWork } from "./_build_work.ts";
import type { ClipChannel } from "./clip.ts";
import { widestNlerpAngle } from "./_shared_blocks.ts";

/** Most candidates one kept interval may span (bounds the build's time). */
const MAX_SPAN = 256;

/** Distance of two values; for rotations, of the nearer of `b` and `-b`. */
export function distance(
  a: ArrayLike<number>,
  ia: number,
  b: ArrayLike<number>,
  ib: number,
  n: number,
): number {
  let d = 0, e = 0;
  for (let c = 0; c < n; c++) {
    const minus = a[ia + c] - b[ib + c], plus = a[ia + c] + b[ib + c];
    d += minus * minus;
    e += plus * plus;
  }
  return Math.sqrt(n === 4 ? Math.min(d, e) : d);
}

/** Interpolates like the kernel: lerp, or nlerp along the shorter arc. */
function interpolate(
  q: Float32Array,
  i: number,
  j: number,
  u: number,
  n: number,
  out: Float64Array,
): void {
  let dot = 0;
  for (let c = 0; c < n; c++) dot += q[i * n + c] * q[j * n + c];
  const sign = n === 4 && dot < 0 ? -1 : 1;
  let length = 0;
  for (let c = 0; c < n; c++) {
    out[c] = q[i * n + c] + (sign * q[j * n + c] - q[i * n + c]) * u;
    length += out[c] * out[c];
  }
  if (n === 4) { for (let c = 0; c < 4; c++) out[c] /= Math.sqrt(length); }
}

/**
 * The greedy pass's bisected interval (4 KB of piece ends: one per build
 * step was a tenth of a small clip's reduction). The reduction is
 * synchronous and selects its interval before each use, so sharing is safe.
 */
const bisectScratch = new BisectedInterval();

/**
 * Indices of the candidates kept by the greedy pass; undefined once it
 * would keep more than `most`. With `stops` (ascending candidate indices,
 * the first and the last among them), keys are kept at stops only, and
 * the span to the next stop is taken to fit, as the span to the next
 * candidate is without them: the bisected pass's stops are the channel's
 * keys, between which the sampler's pieces follow slerp's arc. Without
 * `halfway` (a LINEAR vector, whose error is largest at a candidate), only
 * the candidates are checked.
 */
export function keepKeys(
  times: Float64Array,
  exact: Float64Array,
  halfway: Float64Array | undefined,
  quantized: Float32Array,
  n: number,
  tolerance: number,
  work: BuildWork,
  bisect: boolean,
  most: number,
  stops?: Int32Array,
): number[] | undefined {
  const m = times.length;
  const kept = [0];
  const value = new Float64Array(4), bisected = bisectScratch;
  const at = (i: number, j: number, t: number) => {
    if (bisect) {
      bisected.select(quantized, i, j, times[i], times[j]);
      bisected.at(t, value);
    } else interpolate(quantized, i, j, (t - times[i]) / (times[j] - times[i]), n, value);
    return value;
  };
  // A bisected interpolation halves up to six times: it counts as four.
  const unitsPerTime = bisect ? 8 : 2;
  const strays = (i: number, j: number, l: number) =>
    (l > i && distance(at(i, j, times[l]), 0, exact, l * n, n) > tolerance) ||
    (halfway !== undefined &&
      distance(at(i, j, (times[l] + times[l + 1]) / 2), 0, halfway, l * n, n) > tolerance);
  // Where the last span from this start strayed: a shorter one that
  // still holds it mostly strays there too, so it is checked first.
  let strayed = -1;
  const fits = (i: number, j: number) => {
    work.spend((j - i) * unitsPerTime);
    if (strayed > i && strayed < j && strays(i, j, strayed)) return false;
    for (let l = i; l < j; l++) {
      if (strays(i, j, l)) return (strayed = l), false;
    }
    return true;
  };
  // With stops, keys are kept at stops only: positions are stop numbers.
  const positions = stops ? stops.length : m;
  const index = (p: number) => stops ? stops[p] : p;
  // The longest span found by doubling, then halving: checking every
  // extension from the interval's start again costs the span squared
  // (a rotation turning fast has up to 64 candidates per key). From
  // candidate i, the farthest of positions first..last that fits (the
  // first is taken to fit).
  const longest = (i: number, first: number, last: number) => {
    let good = first, bad = last + 1;
    for (let step = 2; good < last;) {
      const j = Math.min(last, first - 1 + step);
      if (!fits(i, index(j))) {
        bad = j;
        break;
      }
      good = j, step *= 2;
    }
    while (bad - good > 1) {
      const j = (good + bad) >> 1;
      if (fits(i, index(j))) good = j;
      else bad = j;
    }
    return good;
  };
  let p = 0;
  while (p < positions - 1) {
    const i = index(p);
    let last = Math.min(positions - 1, p + MAX_SPAN);
    while (last > p + 1 && index(last) - i > MAX_SPAN) last--;
    p = longest(i, p + 1, last);
    if (kept.push(index(p)) > most) return undefined;
  }
  return kept;
}

/**
 * Fewest keys plain nlerp could keep for LINEAR rotation `channel` within
 * `tolerance`, or fewer: each key interval is one slerp arc, and nlerp
 * between two points of an arc strays from it by a function of their
 * angle (`widestNlerpAngle` of `_shared_blocks.ts`, at twice the tolerance:
 * the greedy pass checks candidates, not every point of the arc), so an
 * arc longer than the widest angle within it needs keys inside (a span
 * across a key, where arcs meet, strays at least as far). A fast
 * rotation's plain pass ran until it passed the bisected keys' ratio;
 * where this count passes it, the pass is skipped.
 */
export function plainKeysAtLeast(channel: ClipChannel, tolerance: number): number {
  const widest = widestNlerpAngle(2 * tolerance);
  const { times, values } = channel;
  // The first and the last; the others may go where arcs line up.
  let keys = Math.min(2, times.length);
  if (!(widest > 0)) return keys;
  for (let k = 0; k + 1 < times.length; k++) {
    let dot = 0;
    for (let c = 0; c < 4; c++) dot += values[k * 4 + c] * values[k * 4 + 4 + c];
    const angle = Math.acos(Math.min(1, Math.abs(dot)));
    keys += Math.max(0, Math.ceil(angle / widest) - 1);
  }
  return keys;
}
