/**
 * The baked clip format that compact clips replaced, kept for the benches
 * only (`sampling_bench.ts`, `_clip_memory.ts` compare against it). Clips
 * baked for the core: a clip's poses at the union of its channels'
 * key times, as SoA×4 frames in the core's memory, so that sampling is one
 * lane-wise blend of two frames (the `blendPoses` kernel) instead of a key
 * search and a slerp per channel.
 *
 * Between two consecutive baked times no channel has a key, so LINEAR
 * translation and scale are exact. Rotations are nlerped where glTF slerps:
 * nlerp's error grows with the cube of the angle, so LINEAR rotation
 * intervals are subdivided until neighbouring baked rotations are at most
 * {@linkcode MAX_BAKED_ANGLE} apart (an error below 1e-6 rad). STEP
 * channels are exact because each time keeps two frames, the value from
 * the left and the value at the key; CUBICSPLINE intervals are subdivided
 * ({@linkcode CUBIC_SUBDIVISIONS}).
 *
 * @module
 */

import { type Clip, sampleChannel, sampleClip } from "../animation/clip.ts";
import { PoseField, poseFloats, poseLane } from "../simd/memory/layout.ts";
import { coreMemory } from "../simd/memory/_instance.ts";
import type { SkeletonAsset } from "../animation/skeleton_asset.ts";
import { Lifetime } from "../animation/_lifetime.ts";
import { budgetOf, ClipBudgetError } from "../animation/clip_budget.ts";
import { skeletonInternals } from "../animation/_asset_internals.ts";

/** Baked samples per CUBICSPLINE key interval. */
export const CUBIC_SUBDIVISIONS = 8;

/** Largest quaternion angle (radians, `acos |dot|`) between baked neighbours. */
export const MAX_BAKED_ANGLE = 0.02;

/** Sub-intervals for a LINEAR rotation interval from key `k` to `k + 1`. */
function rotationSubdivisions(values: Float32Array, k: number): number {
  const a = k * 4, b = a + 4;
  const dot = Math.abs(
    values[a] * values[b] + values[a + 1] * values[b + 1] + values[a + 2] * values[b + 2] +
      values[a + 3] * values[b + 3],
  );
  return Math.max(1, Math.ceil(Math.acos(Math.min(1, dot)) / MAX_BAKED_ANGLE));
}

/** Walks the times one channel is baked at, in increasing order. */
class TimeCursor {
  #k = 0;
  #step = 0;
  #parts: number;
  /** The current time. */
  time: number;

  constructor(private readonly channel: Clip["channels"][number]) {
    this.#parts = this.#partsAfter(0);
    this.time = channel.times[0];
  }

  /** Moves to the next time; false when there is none. */
  advance(): boolean {
    const keys = this.channel.times;
    if (++this.#step < this.#parts) {
      const k = this.#k;
      this.time = keys[k] + ((keys[k + 1] - keys[k]) * this.#step) / this.#parts;
      return true;
    }
    if (++this.#k >= keys.length) return false;
    this.#step = 0;
    this.#parts = this.#partsAfter(this.#k);
    this.time = keys[this.#k];
    return true;
  }

  /** How many times `channel` is baked at (its cursor's length), without walking them. */
  static count(channel: Clip["channels"][number]): number {
    const cursor = new TimeCursor(channel);
    let count = 0;
    for (let k = 0; k < channel.times.length; k++) count += cursor.#partsAfter(k);
    return count;
  }

  /** Baked intervals between key `k` and the next. */
  #partsAfter(k: number): number {
    const { times, interpolation, path, values } = this.channel;
    if (k + 1 >= times.length || interpolation === "STEP") return 1;
    if (interpolation === "CUBICSPLINE") return CUBIC_SUBDIVISIONS;
    return path === "rotation" ? rotationSubdivisions(values, k) : 1;
  }
}

/**
 * Calls `visit` with each distinct baked time of `clip` in increasing order
 * and its index, stopping after `limit + 1` of them; returns how many it
 * visited. A k-way merge over the channels (a binary heap of cursors).
 */
function forEachBakedTime(
  clip: Clip,
  limit: number,
  visit?: (time: number, k: number) => void,
): number {
  const heap: TimeCursor[] = [];
  const sift = (i: number) => {
    for (;;) {
      const l = 2 * i + 1, r = l + 1;
      let m = i;
      if (l < heap.length && heap[l].time < heap[m].time) m = l;
      if (r < heap.length && heap[r].time < heap[m].time) m = r;
      if (m === i) return;
      [heap[i], heap[m]] = [heap[m], heap[i]];
      i = m;
    }
  };
  for (const channel of clip.channels) {
    if (channel.times.length) heap.push(new TimeCursor(channel));
  }
  for (let i = (heap.length >> 1) - 1; i >= 0; i--) sift(i);
  let count = 0, last = NaN;
  while (heap.length && count <= limit) {
    const top = heap[0];
    if (top.time !== last) {
      visit?.(top.time, count);
      count++;
      last = top.time;
    }
    if (!top.advance()) {
      heap[0] = heap[heap.length - 1];
      heap.pop();
    }
    sift(0);
  }
  return count;
}

/**
 * The distinct baked times of `clip`, increasing, or the error `refuse`
 * makes (given a lower bound of the frame count) when there are more than
 * `maxFrames`. The count is bounded before any array is allocated: by the
 * sum of the channels' lengths when that fits (then the times are gathered
 * and sorted), else by a merge that holds one cursor per channel and stops
 * at the first time that does not fit.
 */
function bakedTimes(
  clip: Clip,
  maxFrames: number,
  refuse: (frames: number) => Error,
): Float64Array {
  let bound = 0;
  for (const channel of clip.channels) bound += TimeCursor.count(channel);
  if (bound === 0) return new Float64Array(1);
  if (bound <= maxFrames) {
    const all = new Float64Array(bound);
    let n = 0;
    for (const channel of clip.channels) {
      if (channel.times.length === 0) continue;
      const cursor = new TimeCursor(channel);
      do all[n++] = cursor.time; while (cursor.advance());
    }
    all.sort();
    let count = 0;
    for (let i = 0; i < n; i++) if (i === 0 || all[i] !== all[count - 1]) all[count++] = all[i];
    return all.slice(0, count);
  }
  const union = forEachBakedTime(clip, maxFrames);
  if (union > maxFrames) throw refuse(union);
  const times = new Float64Array(union);
  forEachBakedTime(clip, Infinity, (time, k) => (times[k] = time));
  return times;
}

/**
 * A clip's frames for one skeleton, in the core's memory. Players acquire
 * it; it goes back to the core when disposed and unplayed, or when
 * collected.
 */
export class BakedClip {
  /** Name of the clip, for messages. */
  readonly name: string;
  /** The clip's duration. */
  readonly duration: number;
  /** Baked times, increasing. */
  readonly times: Float64Array;
  /** Byte offset of the frame holding the pose at `times[k]`. */
  readonly at: Uint32Array;
  /** Byte offset of the frame holding the limit from the left at `times[k]`. */
  readonly before: Uint32Array;
  /** Players using the frames, and their release. */
  readonly lifetime: Lifetime;

  constructor(clip: Clip, skeleton: SkeletonAsset) {
    this.name = clip.name;
    this.duration = clip.duration;
    const floats = poseFloats(skeleton.jointCount);
    const steps = clip.channels.filter((c) => c.interpolation === "STEP");
    const frameBytes = floats * 4 * (steps.length ? 2 : 1);
    const budget = budgetOf(skeleton.core);
    const maxFrames = Math.floor((budget.limit - budget.used) / frameBytes);
    this.times = bakedTimes(
      clip,
      maxFrames,
      (frames) => new ClipBudgetError(clip.name, skeleton, frames * frameBytes, true, budget),
    );
    const count = this.times.length;
    const memory = coreMemory(skeleton.core);
    const bytes = count * frameBytes;
    const block = memory.alloc(bytes);
    budget.used += bytes;
    this.lifetime = new Lifetime(this, () => {
      memory.free(block);
      budget.used -= bytes;
    });
    this.at = new Uint32Array(count);
    this.before = new Uint32Array(count);
    const value = new Float64Array(4);
    for (let k = 0; k < count; k++) {
      this.at[k] = block + k * floats * 4;
      const frame = memory.views().f32.subarray(this.at[k] >> 2, (this.at[k] >> 2) + floats);
      frame.set(skeletonInternals(skeleton).restPose);
      sampleClip(clip, this.times[k], frame);
      if (!steps.length) {
        this.before[k] = this.at[k];
        continue;
      }
      // From the left, a STEP channel still holds the previous baked time's value.
      this.before[k] = block + (count + k) * floats * 4;
      const left = memory.views().f32.subarray(this.before[k] >> 2, (this.before[k] >> 2) + floats);
      left.set(frame);
      for (const channel of steps) {
        sampleChannel(channel, this.times[Math.max(0, k - 1)], value);
        const field = channel.path === "translation"
          ? PoseField.TX
          : channel.path === "rotation"
          ? PoseField.QX
          : PoseField.SX;
        const base = poseLane(channel.joint) + field * 4;
        for (let c = 0; c < (channel.path === "rotation" ? 4 : 3); c++) {
          left[base + c * 4] = value[c];
        }
      }
    }
  }

  /**
   * The two frames to blend and the weight for clip time `time` (already
   * wrapped): `[from, to, weight]`.
   */
  locate(time: number): [number, number, number] {
    const t = this.times, last = t.length - 1;
    if (!(time > t[0])) return [this.at[0], this.at[0], 0];
    if (time >= t[last]) return [this.at[last], this.at[last], 0];
    let lo = 0, hi = last;
    while (hi - lo > 1) {
      const mid = (lo + hi) >> 1;
      if (t[mid] <= time) lo = mid;
      else hi = mid;
    }
    return [this.at[lo], this.before[hi], (time - t[lo]) / (t[hi] - t[lo])];
  }
}
