/**
 * Clips baked for the core: a clip's poses at the union of its channels'
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

import { type Clip, sampleChannel, sampleClip } from "./clip.ts";
import { POSE_GROUP_FLOATS, PoseField, poseFloats } from "../simd/layout.ts";
import { Core } from "../simd/core.ts";
import type { CoreMemory } from "../simd/_memory.ts";
import type { SkeletonAsset } from "./skeleton_asset.ts";

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

/** Gives a collected clip's frames back to its core. */
const frames = new FinalizationRegistry<{ memory: CoreMemory; block: number }>(
  ({ memory, block }) => memory.free(block),
);

/**
 * A clip's frames for one skeleton, in the core's memory. They live as long
 * as the clip object and the players using them; then the garbage
 * collector's finalization returns them to the core.
 */
export class BakedClip {
  readonly clip: Clip;
  readonly skeleton: SkeletonAsset;
  /** Baked times, increasing. */
  readonly times: Float64Array;
  /** Byte offset of the frame holding the pose at `times[k]`. */
  readonly at: Uint32Array;
  /** Byte offset of the frame holding the limit from the left at `times[k]`. */
  readonly before: Uint32Array;
  /** The block holding every frame. */
  readonly block: number;

  constructor(clip: Clip, skeleton: SkeletonAsset) {
    this.clip = clip;
    this.skeleton = skeleton;
    const times = new Set<number>();
    for (const channel of clip.channels) {
      const keys = channel.times;
      for (let k = 0; k < keys.length; k++) {
        times.add(keys[k]);
        if (k + 1 === keys.length || channel.interpolation === "STEP") continue;
        const parts = channel.interpolation === "CUBICSPLINE"
          ? CUBIC_SUBDIVISIONS
          : channel.path === "rotation"
          ? rotationSubdivisions(channel.values, k)
          : 1;
        for (let s = 1; s < parts; s++) times.add(keys[k] + ((keys[k + 1] - keys[k]) * s) / parts);
      }
    }
    if (times.size === 0) times.add(0);
    this.times = Float64Array.from([...times].sort((a, b) => a - b));
    const steps = clip.channels.filter((c) => c.interpolation === "STEP");
    const count = this.times.length;
    const floats = poseFloats(skeleton.jointCount);
    const frameCount = steps.length ? count * 2 : count;
    const memory = Core.memoryOf(skeleton.core);
    this.block = memory.alloc(frameCount * floats * 4);
    frames.register(this, { memory, block: this.block });
    this.at = new Uint32Array(count);
    this.before = new Uint32Array(count);
    const value = new Float64Array(4);
    for (let k = 0; k < count; k++) {
      this.at[k] = this.block + k * floats * 4;
      const frame = memory.views().f32.subarray(this.at[k] >> 2, (this.at[k] >> 2) + floats);
      skeleton.copyRestPoseTo(frame);
      sampleClip(clip, this.times[k], frame);
      if (!steps.length) {
        this.before[k] = this.at[k];
        continue;
      }
      // From the left, a STEP channel still holds the previous baked time's value.
      this.before[k] = this.block + (count + k) * floats * 4;
      const left = memory.views().f32.subarray(this.before[k] >> 2, (this.before[k] >> 2) + floats);
      left.set(frame);
      for (const channel of steps) {
        sampleChannel(channel, this.times[Math.max(0, k - 1)], value);
        const field = channel.path === "translation"
          ? PoseField.TX
          : channel.path === "rotation"
          ? PoseField.QX
          : PoseField.SX;
        const base = (channel.joint >> 2) * POSE_GROUP_FLOATS + (channel.joint & 3) + field * 4;
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

const baked = new WeakMap<Clip, Map<SkeletonAsset, BakedClip>>();

/** The clip baked for `skeleton`, baking it on first use. */
export function bakedClip(clip: Clip, skeleton: SkeletonAsset): BakedClip {
  let bySkeleton = baked.get(clip);
  if (!bySkeleton) baked.set(clip, bySkeleton = new Map());
  let result = bySkeleton.get(skeleton);
  if (!result) bySkeleton.set(skeleton, result = new BakedClip(clip, skeleton));
  return result;
}
