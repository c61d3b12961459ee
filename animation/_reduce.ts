/**
 * Key reduction of one clip channel for the compact format: the channel is
 * sampled exactly (`sampleChannel`) at candidate times (its keys; LINEAR
 * rotation intervals subdivided so that nlerp can follow slerp; CUBICSPLINE
 * intervals resampled), its values quantized, and a greedy pass keeps a key
 * only where interpolating the kept, quantized keys would leave the
 * tolerance at a candidate time or halfway between two. STEP channels keep
 * their keys and values exactly.
 *
 * @module
 */

import { type ClipChannel, sampleChannel } from "./clip.ts";
import {
  decodeRanged,
  encodeRanged,
  encodeSmallestThree,
  roundTripSmallestThree,
  type VectorRange,
  vectorRange,
} from "./_quantize.ts";
import { TRACK_RANGED, TRACK_RAW, TRACK_SMALLEST_THREE } from "../simd/assembly/abi.ts";

/** Largest angle (radians) between candidate rotations of a LINEAR interval. */
const CANDIDATE_ANGLE = 0.05;
/**
 * Most candidate intervals per LINEAR rotation interval (bounds the build's
 * work on hostile files; past it the measured error tells).
 */
const MAX_ROTATION_CANDIDATES = 64;
/** Candidate intervals per CUBICSPLINE key interval. */
const CUBIC_CANDIDATES = 8;
/** Most candidates one kept interval may span (bounds the build's time). */
const MAX_SPAN = 256;

/** A channel's keys as the compact format stores them. */
export interface KeyTrack {
  readonly joint: number;
  /** 0 translation, 1 rotation, 2 scale (the kernel's path index). */
  readonly path: number;
  readonly step: boolean;
  readonly format: number;
  readonly times: Float32Array;
  /** The encoded key values. */
  readonly bytes: Uint8Array;
  readonly range?: VectorRange;
}

/** What a channel becomes: held values (no keys at all), or keys. */
export type ReducedChannel =
  | { readonly joint: number; readonly path: number; readonly constant: Float32Array }
  | { readonly joint: number; readonly path: number; readonly keys: KeyTrack };

const PATHS = { translation: 0, rotation: 1, scale: 2 } as const;

/** Distance of two values; for rotations, of the nearer of `b` and `-b`. */
function distance(a: ArrayLike<number>, ia: number, b: ArrayLike<number>, ib: number, n: number) {
  let d = 0, e = 0;
  for (let c = 0; c < n; c++) {
    d += (a[ia + c] - b[ib + c]) ** 2;
    e += (a[ia + c] + b[ib + c]) ** 2;
  }
  return Math.sqrt(n === 4 ? Math.min(d, e) : d);
}

/** Candidate times of a channel, increasing (float32 values). */
function candidateTimes(channel: ClipChannel): Float64Array {
  const { times, values, interpolation, path } = channel;
  const out: number[] = [];
  for (let k = 0; k < times.length; k++) {
    out.push(times[k]);
    if (k + 1 === times.length || interpolation === "STEP") continue;
    let parts = 1;
    if (interpolation === "CUBICSPLINE") parts = CUBIC_CANDIDATES;
    else if (path === "rotation") {
      let dot = 0;
      for (let c = 0; c < 4; c++) dot += values[k * 4 + c] * values[k * 4 + 4 + c];
      const angle = 2 * Math.acos(Math.min(1, Math.abs(dot)));
      parts = Math.min(MAX_ROTATION_CANDIDATES, Math.max(1, Math.ceil(angle / CANDIDATE_ANGLE)));
    }
    for (let s = 1; s < parts; s++) {
      const t = Math.fround(times[k] + ((times[k + 1] - times[k]) * s) / parts);
      if (t > out[out.length - 1] && t < times[k + 1]) out.push(t);
    }
  }
  return Float64Array.from(out);
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
 * Reduces `channel` so that its values stay within `tolerance` (a distance
 * between values: vectors, or quaternions with sign) of the exact ones.
 */
export function reduceChannel(channel: ClipChannel, tolerance: number): ReducedChannel {
  const path = PATHS[channel.path], joint = channel.joint;
  const n = path === 1 ? 4 : 3;
  const step = channel.interpolation === "STEP";
  const candidates = step ? Float64Array.from(channel.times) : candidateTimes(channel);
  const m = candidates.length;
  // Exact values at the candidates, and halfway between neighbours.
  const exact = new Float64Array(m * n), halfway = new Float64Array(Math.max(0, m - 1) * n);
  const value = new Float64Array(4);
  for (let i = 0; i < m; i++) {
    sampleChannel(channel, candidates[i], value);
    exact.set(value.subarray(0, n), i * n);
    if (i + 1 < m) {
      sampleChannel(channel, (candidates[i] + candidates[i + 1]) / 2, value);
      halfway.set(value.subarray(0, n), i * n);
    }
  }
  let constant = true;
  for (let i = 1; i < m && constant; i++) {
    constant = distance(exact, 0, exact, i * n, n) <= tolerance;
  }
  for (let i = 0; i + 1 < m && constant; i++) {
    constant = distance(exact, 0, halfway, i * n, n) <= tolerance;
  }
  if (constant) return { joint, path, constant: Float32Array.from(exact.subarray(0, n)) };
  // Quantize; fall back to floats where quantization alone takes too much of the tolerance.
  // Neighbouring rotations in one hemisphere: the kernel interpolates without a shorter-arc test.
  if (n === 4) {
    for (let i = 1; i < m; i++) {
      let dot = 0;
      for (let c = 0; c < 4; c++) dot += exact[i * 4 - 4 + c] * exact[i * 4 + c];
      if (dot < 0) { for (let c = 0; c < 4; c++) exact[i * 4 + c] = -exact[i * 4 + c]; }
    }
  }
  const quantized = Float32Array.from(exact);
  let format = TRACK_RAW, range: VectorRange | undefined;
  if (!step) {
    const trial = new Float32Array(m * n);
    const key = new Float32Array(4);
    if (n === 4) {
      for (let i = 0; i < m; i++) {
        roundTripSmallestThree(exact, i * 4, key);
        trial.set(key, i * 4);
      }
    } else {
      range = vectorRange(exact, m);
      for (let i = 0; i < m; i++) {
        for (let c = 0; c < 3; c++) {
          trial[i * 3 + c] = decodeRanged(encodeRanged(exact[i * 3 + c], c, range), c, range);
        }
      }
    }
    let worst = 0;
    for (let i = 0; i < m; i++) worst = Math.max(worst, distance(trial, i * n, exact, i * n, n));
    if (worst <= tolerance / 4) {
      quantized.set(trial);
      format = n === 4 ? TRACK_SMALLEST_THREE : TRACK_RANGED;
    } else range = undefined;
  }
  const kept = step
    ? [...candidates.keys()]
    : keepKeys(candidates, exact, halfway, quantized, n, tolerance);
  const times = Float32Array.from(kept, (i) => candidates[i]);
  return {
    joint,
    path,
    keys: {
      joint,
      path,
      step,
      format,
      times,
      bytes: encode(kept, quantized, exact, n, format, range),
      range,
    },
  };
}

/** Indices of the candidates kept by the greedy pass. */
function keepKeys(
  times: Float64Array,
  exact: Float64Array,
  halfway: Float64Array,
  quantized: Float32Array,
  n: number,
  tolerance: number,
): number[] {
  const m = times.length;
  const kept = [0];
  const value = new Float64Array(4);
  const fits = (i: number, j: number) => {
    const span = times[j] - times[i];
    for (let l = i; l < j; l++) {
      if (l > i) {
        interpolate(quantized, i, j, (times[l] - times[i]) / span, n, value);
        if (distance(value, 0, exact, l * n, n) > tolerance) return false;
      }
      interpolate(quantized, i, j, ((times[l] + times[l + 1]) / 2 - times[i]) / span, n, value);
      if (distance(value, 0, halfway, l * n, n) > tolerance) return false;
    }
    return true;
  };
  let i = 0;
  while (i < m - 1) {
    let j = i + 1;
    while (j + 1 < m && j + 1 - i <= MAX_SPAN && fits(i, j + 1)) j++;
    kept.push(j);
    i = j;
  }
  return kept;
}

/** The kept keys' values in `format`. */
function encode(
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
