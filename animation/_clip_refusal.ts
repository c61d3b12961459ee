/**
 * Why a clip could not be built for a skeleton, as a {@linkcode ClipError}
 * naming the channel and key at fault. A build finds no layout whose error
 * is finite when a key is not what validation saw (the clip was changed
 * after it was validated) or when keys within ±1e18 multiply along a chain
 * of joints beyond what float32 holds (scale keys of 1e18 on four chained
 * joints). Both used to surface as a bare `TypeError` from the build.
 *
 * @module
 */

import type { Clip } from "./clip.ts";
import type { SkeletonAsset } from "./skeleton_asset.ts";
import { ClipError, revalidateClip } from "./clip_validation.ts";
import { PoseField, poseIndex } from "../simd/memory/layout.ts";

/** Largest magnitude a joint's model-space scale or position may reach: the palettes' bound (±1e18). */
const MAX_MODEL_MAGNITUDE = 1e18;

/** The largest component of one channel's keys, and the key holding it. */
interface ChannelPeak {
  readonly channel: number;
  readonly key: number;
  readonly value: number;
}

/** The error of a clip whose build for `skeleton` found no finite layout. */
export function unbuildableClipError(clip: Clip, skeleton: SkeletonAsset): ClipError {
  try {
    revalidateClip(clip);
  } catch (error) {
    if (error instanceof ClipError) return error;
    throw error;
  }
  const parents = skeleton.parentIndices, rest = skeleton.restPose;
  const peaks = new Map<string, ChannelPeak>();
  clip.channels.forEach((channel, c) => {
    if (channel.path === "rotation") return;
    const stride = channel.interpolation === "CUBICSPLINE" ? 9 : 3;
    const offset = channel.interpolation === "CUBICSPLINE" ? 3 : 0;
    let peak: ChannelPeak = { channel: c, key: 0, value: 0 };
    for (let k = 0; k * stride < channel.values.length; k++) {
      for (let i = 0; i < 3; i++) {
        const value = Math.abs(channel.values[k * stride + offset + i]);
        if (value > peak.value) peak = { channel: c, key: k, value };
      }
    }
    peaks.set(`${channel.joint}/${channel.path}`, peak);
  });
  const restPeak = (joint: number, first: PoseField) =>
    Math.max(...[0, 1, 2].map((i) => Math.abs(rest[poseIndex(joint, (first + i) as PoseField)])));
  const scale = new Float64Array(parents.length), reach = new Float64Array(parents.length);
  for (let j = 0; j < parents.length; j++) {
    const p = parents[j];
    const s = peaks.get(`${j}/scale`), t = peaks.get(`${j}/translation`);
    const parentScale = p >= 0 ? scale[p] : 1;
    scale[j] = parentScale * Math.max(s?.value ?? 0, restPeak(j, PoseField.SX));
    reach[j] = (p >= 0 ? reach[p] : 0) +
      parentScale * Math.max(t?.value ?? 0, restPeak(j, PoseField.TX));
    for (const [what, value, own] of [["scale", scale[j], s], ["position", reach[j], t]] as const) {
      if (!(value <= MAX_MODEL_MAGNITUDE)) {
        const at = own ?? s ?? t;
        return new ClipError(
          clip.name,
          at?.channel ?? -1,
          at?.key ?? -1,
          `joint ${j}'s model-space ${what} reaches ${value} with its parents' keys and rest ` +
            `pose, beyond ±1e18`,
        );
      }
    }
  }
  return new ClipError(clip.name, -1, -1, "no pose of it is finite in model space");
}
