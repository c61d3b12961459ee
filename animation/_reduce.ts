/**
 * Key reduction of one clip channel for the compact format: the channel is
 * sampled exactly (`sampleChannel`'s values, by a `ChannelCursor`) at
 * candidate times (its keys; LINEAR rotation intervals subdivided so that
 * nlerp can follow slerp; CUBICSPLINE intervals resampled), its values
 * quantized, and a greedy pass (`_greedy_keys.ts`) keeps a key only where
 * interpolating the kept, quantized keys would leave the tolerance at a
 * candidate time or halfway between two. STEP channels keep their keys and
 * values exactly. Rotation channels are reduced twice, for plain nlerp
 * between kept keys and for bisected intervals (`TRACK_BISECT`: slerp's
 * values at halvings of a large arc, computed by the sampler), and keep the
 * fewer keys.
 *
 * @module
 */

import type { ClipChannel } from "./clip.ts";
import { ChannelCursor } from "./_channel_cursor.ts";
import {
  decodeRanged,
  encodeKeys,
  encodeRanged,
  roundTripSmallestThree,
  roundTripSmallestThreeWide,
  type VectorRange,
  vectorRange,
} from "./_quantize.ts";
import {
  TRACK_RANGED,
  TRACK_RAW,
  TRACK_SMALLEST_THREE,
  TRACK_SMALLEST_THREE_WIDE,
} from "../simd/wasm/assembly/abi.ts";
import { bisectPieceCount, pieceStart } from "../simd/scalar/sample.ts";
import { distance, keepKeys, plainKeysAtLeast } from "./_greedy_keys.ts";
import { BuildWork } from "./_build_work.ts";
import { NLERP_WORST } from "./_measure_plan.ts";

/** Largest angle (radians) between candidate rotations of a LINEAR interval. */
const CANDIDATE_ANGLE = 0.05;
/**
 * Most candidate intervals per LINEAR rotation interval (bounds the build's
 * work on hostile files; past it the measured error tells).
 */
const MAX_ROTATION_CANDIDATES = 64;
/**
 * Fewest times as many keys as bisected that plain nlerp must need for a
 * rotation to be bisected: a bisected lane refills by a search at every
 * piece and stays out of synchronous blocks. Bisecting wherever it saved a
 * key cost more sampling time than its memory was worth
 * (`docs/performance_notes.md`).
 */
const BISECT_KEY_RATIO = 1.25;
/** Candidate intervals per CUBICSPLINE key interval. */
const CUBIC_CANDIDATES = 8;
// The reduction is synchronous: one cursor and value serve every channel.
const reduceCursor = new ChannelCursor();
const reduceScratch = new Float64Array(4);

/** Most elements a scratch array keeps between channels (larger ones are made per channel). */
const SCRATCH_KEPT = 1 << 14;

/**
 * A typed array the reduction reuses from channel to channel (it is
 * synchronous, and nothing it returns views one): a channel's arrays
 * allocated off the heap were most of a short channel's reduction.
 */
class Scratch<T extends Float64Array | Float32Array | Int32Array | Uint8Array> {
  #array: T;
  constructor(readonly make: (length: number) => T) {
    this.#array = make(256);
  }

  /** `length` elements (their values are left from an earlier channel). */
  take(length: number): T {
    if (length > SCRATCH_KEPT) return this.make(length);
    if (this.#array.length < length) {
      this.#array = this.make(Math.max(length, 2 * this.#array.length));
    }
    return this.#array.subarray(0, length) as T;
  }
}

const partsScratch = new Scratch((n) => new Uint8Array(n));
const candidateScratch = new Scratch((n) => new Float64Array(n));
const exactScratch = new Scratch((n) => new Float64Array(n));
const halfwayScratch = new Scratch((n) => new Float64Array(n));
const quantizedScratch = new Scratch((n) => new Float32Array(n));
const trialScratch = new Scratch((n) => new Float32Array(n));
const keyScratch = new Float32Array(4);
/** Per key of the channel, its index among the candidates (`candidateTimes`). */
const keyIndexScratch = new Scratch((n) => new Int32Array(n));

/** A channel's keys as the compact format stores them. */
export interface KeyTrack {
  readonly joint: number;
  /** 0 translation, 1 rotation, 2 scale (the kernel's path index). */
  readonly path: number;
  readonly step: boolean;
  /** Rotation intervals are bisected by the sampler (`TRACK_BISECT`). */
  readonly bisect: boolean;
  readonly format: number;
  readonly times: Float32Array;
  /**
   * Times the error is measured at besides the measurement's grid: in
   * some pieces of each interval of a bisected track (see
   * {@linkcode MEASURED_PIECES}), the two where nlerp strays most from the
   * arc ({@linkcode NLERP_WORST}; the sampler is on the arc at the pieces'
   * bounds and middles).
   */
  readonly pieceTimes?: Float32Array;
  /** The encoded key values. */
  readonly bytes: Uint8Array;
  readonly range?: VectorRange;
}

/** What a channel becomes: held values (no keys at all), or keys. */
export type ReducedChannel =
  | { readonly joint: number; readonly path: number; readonly constant: Float32Array }
  | { readonly joint: number; readonly path: number; readonly keys: KeyTrack };

const PATHS = { translation: 0, rotation: 1, scale: 2 } as const;

/**
 * Candidate times of a channel, increasing (float32 values); their count
 * is counted as work (three exact samples each) before they are made.
 */
function candidateTimes(channel: ClipChannel, work: BuildWork): Float64Array {
  const { times, values, interpolation, path } = channel;
  const parts = partsScratch.take(times.length).fill(1);
  let count = times.length;
  for (let k = 0; k + 1 < times.length && interpolation !== "STEP"; k++) {
    if (interpolation === "CUBICSPLINE") parts[k] = CUBIC_CANDIDATES;
    else if (path === "rotation") {
      let dot = 0;
      for (let c = 0; c < 4; c++) dot += values[k * 4 + c] * values[k * 4 + 4 + c];
      parts[k] = rotationParts(Math.abs(dot));
    }
    count += parts[k] - 1;
  }
  work.spend(3 * count);
  const out = candidateScratch.take(count), keys = keyIndexScratch.take(times.length);
  let m = 0;
  for (let k = 0; k < times.length; k++) {
    keys[k] = m;
    out[m++] = times[k];
    if (k + 1 === times.length || interpolation === "STEP") continue;
    for (let s = 1; s < parts[k]; s++) {
      const t = Math.fround(times[k] + ((times[k + 1] - times[k]) * s) / parts[k]);
      if (t > out[m - 1] && t < times[k + 1]) out[m++] = t;
    }
  }
  return out.subarray(0, m);
}

/**
 * Per count of candidate intervals `p`, the least dot product of two keys
 * whose arc (`2 acos(dot)`) spans at most `p` of {@linkcode CANDIDATE_ANGLE}.
 */
const PART_COSINES = Float64Array.from(
  { length: MAX_ROTATION_CANDIDATES + 1 },
  (_, p) => Math.cos((p * CANDIDATE_ANGLE) / 2),
);

/**
 * Candidate intervals of a LINEAR rotation interval whose keys have the
 * dot product `dot` (absolute): its arc over {@linkcode CANDIDATE_ANGLE},
 * rounded up, within 1 to {@linkcode MAX_ROTATION_CANDIDATES}; the table
 * holds the arccosine's thresholds, searched by halving.
 */
function rotationParts(dot: number): number {
  // The least p whose cosine the dot product reaches (the cosines fall with p).
  let lo = 1, hi = MAX_ROTATION_CANDIDATES;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (dot >= PART_COSINES[mid]) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/**
 * Reduces `channel` so that its values stay within `tolerance` (a distance
 * between values: vectors, or quaternions with sign) of the exact ones.
 */
export function reduceChannel(
  channel: ClipChannel,
  tolerance: number,
  work: BuildWork = new BuildWork(Infinity),
): ReducedChannel {
  const path = PATHS[channel.path], joint = channel.joint;
  const n = path === 1 ? 4 : 3;
  const step = channel.interpolation === "STEP";
  if (step) work.spend(3 * channel.times.length);
  const candidates = step
    ? candidateScratch.take(channel.times.length)
    : candidateTimes(channel, work);
  if (step) candidates.set(channel.times);
  const m = candidates.length;
  // A LINEAR vector's candidates are its keys: the exact curve and any
  // lerp between kept keys are linear between two candidates, so their
  // distance (convex) is largest at a candidate, never halfway.
  const linearVector = n === 3 && channel.interpolation === "LINEAR";
  // Exact values at the candidates, and halfway between neighbours.
  const exact = exactScratch.take(m * n);
  const halfway = linearVector ? undefined : halfwayScratch.take(Math.max(0, m - 1) * n);
  const value = reduceScratch, cursor = reduceCursor.reset(channel);
  if (linearVector) linearVectorKeys(channel.values, m, exact);
  for (let i = 0; i < m && !linearVector; i++) {
    cursor.at(candidates[i], value);
    for (let c = 0; c < n; c++) exact[i * n + c] = value[c];
    if (halfway && i + 1 < m) {
      cursor.at((candidates[i] + candidates[i + 1]) / 2, value);
      for (let c = 0; c < n; c++) halfway[i * n + c] = value[c];
    }
  }
  let constant = true;
  for (let i = 1; i < m && constant; i++) {
    constant = distance(exact, 0, exact, i * n, n) <= tolerance;
  }
  for (let i = 0; halfway && i + 1 < m && constant; i++) {
    constant = distance(exact, 0, halfway, i * n, n) <= tolerance;
  }
  if (constant) return { joint, path, constant: new Float32Array(exact.subarray(0, n)) };
  // Quantize; fall back to floats where quantization alone takes too much of the tolerance.
  // Neighbouring rotations in one hemisphere: the kernel interpolates without a shorter-arc test.
  if (n === 4) {
    for (let i = 1; i < m; i++) {
      let dot = 0;
      for (let c = 0; c < 4; c++) dot += exact[i * 4 - 4 + c] * exact[i * 4 + c];
      if (dot < 0) { for (let c = 0; c < 4; c++) exact[i * 4 + c] = -exact[i * 4 + c]; }
    }
  }
  const quantized = quantizedScratch.take(m * n);
  quantized.set(exact);
  let format = TRACK_RAW, range: VectorRange | undefined;
  if (!step) {
    const trial = trialScratch.take(m * n);
    const key = keyScratch;
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
    const worst = () => {
      let most = 0;
      for (let i = 0; i < m; i++) most = Math.max(most, distance(trial, i * n, exact, i * n, n));
      return most;
    };
    if (worst() <= tolerance / 4) {
      quantized.set(trial);
      format = n === 4 ? TRACK_SMALLEST_THREE : TRACK_RANGED;
    } else if (n === 4) {
      // Wide fields (12 bytes a key) are about as precise as floats (16).
      for (let i = 0; i < m; i++) {
        roundTripSmallestThreeWide(exact, i * 4, key);
        trial.set(key, i * 4);
      }
      if (worst() <= tolerance / 4) quantized.set(trial), format = TRACK_SMALLEST_THREE_WIDE;
    } else range = undefined;
  }
  const pass = (bisect: boolean, most = Infinity, stops?: Int32Array) =>
    keepKeys(candidates, exact, halfway, quantized, n, tolerance, work, bisect, most, stops);
  let kept: number[] | undefined, bisect = false;
  if (step) kept = [...candidates.keys()];
  else if (n === 4 && m > channel.times.length) {
    // Turning fast (intervals cut into candidates): bisected keys first,
    // then plain nlerp only while it could still keep fewer than their
    // ratio (a plain pass keeping a key every few candidates was most of
    // such a track's reduction).
    // A bisected interval follows slerp's arc from key to key: bisected
    // keys are kept at the channel's keys only (spans ending inside an
    // interval were most of the pass's work, for about as many keys).
    const bisected = pass(true, Infinity, keyIndexScratch.take(channel.times.length))!;
    const most = Math.ceil(bisected.length * BISECT_KEY_RATIO) - 1;
    kept = plainKeysAtLeast(channel, tolerance) > most ? undefined : pass(false, most);
    if (!kept) kept = bisected, bisect = true;
  } else {
    kept = pass(false)!;
    if (n === 4 && kept.length > 2) {
      // Bisected keys only where they are fewer by the ratio: the pass
      // stops as soon as they cannot be.
      const bisected = pass(true, Math.floor(kept.length / BISECT_KEY_RATIO));
      if (bisected) kept = bisected, bisect = true;
    }
  }
  const times = new Float32Array(kept.length);
  for (let k = 0; k < kept.length; k++) times[k] = candidates[kept[k]];
  const pieceTimes = bisect ? bisectedPieceTimes(kept, times, quantized) : undefined;
  return {
    joint,
    path,
    keys: {
      joint,
      path,
      step,
      bisect,
      format,
      times,
      ...(pieceTimes ? { pieceTimes } : {}),
      bytes: encodeKeys(kept, quantized, exact, n, format, range),
      range,
    },
  };
}

/**
 * A LINEAR vector's values at its `m` keys (its candidates), into `exact`,
 * as `sampleChannel` gives them there: the first and last as they are, the
 * others lerped at weight 0 from their interval (`-0` becomes `0`), without
 * a search or a call per key (most of a character's channels are these).
 */
function linearVectorKeys(values: Float32Array, m: number, exact: Float64Array): void {
  for (let c = 0; c < 3; c++) exact[c] = values[c];
  for (let i = 1; i + 1 < m; i++) {
    for (let c = 0; c < 3; c++) {
      exact[i * 3 + c] = values[i * 3 + c] * 1 + values[i * 3 + 3 + c] * 0;
    }
  }
  for (let c = 0; c < 3 && m > 1; c++) exact[(m - 1) * 3 + c] = values[(m - 1) * 3 + c];
}

/**
 * The pieces of a bisected interval that the error is measured in: those
 * holding these shares of the interval (the first and the last, beside
 * the keys, and three inside). Its pieces span equal arcs, so nlerp
 * strays alike in each, and the grid of the measurement
 * (`_measure_plan.ts`) measures the rest of the interval; every piece (up
 * to 64 an interval) was most of some clips' measured times. On random
 * wide turns, the error played at 2,000 times came to at most 1.37 times
 * the reported one (1.28 measuring every piece, 1.73 three pieces only).
 */
const MEASURED_PIECES = [0, NLERP_WORST[0], 0.5, NLERP_WORST[1], 0.999];

/**
 * In some pieces ({@linkcode MEASURED_PIECES}) the sampler cuts a bisected
 * track's intervals into (its bounds float32 as the sampler computes them),
 * in intervals of more than one piece, the times of {@linkcode NLERP_WORST}.
 */
function bisectedPieceTimes(
  kept: number[],
  times: Float32Array,
  quantized: Float32Array,
): Float32Array {
  const a = pieceKeys[0], b = pieceKeys[1];
  // At most two times in each measured piece of each interval.
  const out = pieceScratch.take(Math.max(0, kept.length - 1) * MEASURED_PIECES.length * 2);
  let count = 0;
  for (let k = 0; k + 1 < kept.length; k++) {
    for (let c = 0; c < 4; c++) {
      a[c] = quantized[kept[k] * 4 + c], b[c] = quantized[kept[k + 1] * 4 + c];
    }
    const pieces = bisectPieceCount(a, b);
    if (pieces <= 1) continue;
    // The shares ascend: a piece holding two of them follows itself.
    let last = -1;
    for (let m = 0; m < MEASURED_PIECES.length; m++) {
      const s = Math.min(pieces - 1, Math.floor(MEASURED_PIECES[m] * pieces));
      if (s === last) continue;
      last = s;
      const start = pieceStart(times[k], times[k + 1], s, pieces);
      const end = pieceStart(times[k], times[k + 1], s + 1, pieces);
      for (let f = 0; f < NLERP_WORST.length; f++) {
        out[count++] = start + (end - start) * NLERP_WORST[f];
      }
    }
  }
  return out.slice(0, count);
}

/** The piece times of one track before they are copied out (no array of numbers per track). */
const pieceScratch = new Scratch((n) => new Float32Array(n));

/** Two keys of a bisected interval (no views made per interval). */
const pieceKeys = [new Float32Array(4), new Float32Array(4)];
