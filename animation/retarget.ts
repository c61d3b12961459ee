/**
 * Retargeting: a clip made for one skeleton ({@linkcode RetargetOptions.source})
 * rebuilt, once, into an ordinary {@linkcode Clip} for another
 * ({@linkcode RetargetOptions.target}), which then plays, compacts and
 * saves like any clip: the retargeting costs nothing per frame.
 *
 * - Joints map by name: an explicit table, then the same name, then the
 *   same name without a prefix (`mixamorig:Hips` and `Hips`); unmapped
 *   target joints keep their rest pose.
 * - A mapped joint turns in model space as its source joint turns from its
 *   rest pose, applied to the target joint's rest pose in model space: rigs
 *   whose joints' local axes differ (Soldier's and Xbot's) agree.
 * - The hips move as the source's hips move from rest, scaled by the
 *   hips' height ratio; other joints keep the target's rest translations
 *   (joints of the same rig, the source's offsets from rest).
 * - The motion is turned about +y from the source character's facing to
 *   the target's (measured from hips and feet, or given), so the target
 *   faces as it does in its own scene.
 * - Optionally ({@linkcode RetargetOptions.plantFeet}), the target's legs
 *   are bent by two-bone IK where the source's toes touch the ground.
 *
 * See `docs/retargeting.md` for the math and how it compares with three.js
 * `SkeletonUtils.retargetClip`.
 *
 * @example A Mixamo clip on a rig without the prefix, half as tall
 * ```ts
 * import { createClip, type SkeletonDefinition } from "@marrow/anim";
 * import { poseFloats, PoseField, poseIndex } from "@marrow/anim/kernels";
 * import { retargetClip } from "@marrow/anim/retarget";
 *
 * // Hips 1 m up (0.5 m on the target), a spine above them; rotations identity.
 * function rig(names: string[], hipsHeight: number): SkeletonDefinition {
 *   const restPose = new Float32Array(poseFloats(2));
 *   for (let j = 0; j < 2; j++) {
 *     restPose[poseIndex(j, PoseField.QW)] = 1;
 *     for (const f of [PoseField.SX, PoseField.SY, PoseField.SZ]) restPose[poseIndex(j, f)] = 1;
 *   }
 *   restPose[poseIndex(0, PoseField.TY)] = hipsHeight;
 *   restPose[poseIndex(1, PoseField.TY)] = 0.2;
 *   return { names, parents: Int16Array.of(-1, 0), restPose, inverseBind: new Float32Array(24) };
 * }
 * const source = rig(["mixamorig:Hips", "mixamorig:Spine"], 1);
 * const target = rig(["Hips", "Spine"], 0.5);
 * // The source's hips rise 10 cm over a second.
 * const rise = createClip({
 *   name: "rise",
 *   channels: [{
 *     joint: 0,
 *     path: "translation",
 *     interpolation: "LINEAR",
 *     times: Float32Array.of(0, 1),
 *     values: Float32Array.of(0, 1, 0, 0, 1.1, 0),
 *   }],
 * });
 * const retargeted = retargetClip(rise, { source, target });
 * const hips = retargeted.channels.find((c) => c.path === "translation")!;
 * console.log(hips.values[4].toFixed(2)); // 0.55: the target's hips rise 5 cm
 * ```
 * @module
 */

import type { Clip } from "./clip.ts";
import { createClip, validateClip } from "./clip_validation.ts";
import {
  DEFAULT_RETARGET_MAX_VALUES,
  RetargetError,
  type RetargetOptions,
} from "./retarget_options.ts";
import { plan } from "./_retarget_setup.ts";
import { readSkeleton } from "./_retarget_skeleton.ts";
import { retargetChannels } from "./_retarget_build.ts";
import { describeValue } from "../simd/memory/internal.ts";

/**
 * `clip`, made for `options.source`, rebuilt for `options.target` (see the
 * module doc): a validated, frozen clip of the same name, start and
 * duration, whose channels are `LINEAR` (`STEP` when the source's all are)
 * rotations of the mapped target joints and translations of the hips (and
 * of the joints that keep the source's offsets, or are told to move).
 *
 * Throws a {@linkcode RetargetError} naming the option and joint at fault:
 * a skeleton that is not one (parents after their children, a rest pose
 * short or not finite); a `jointMap`, `hips` or `overrides` entry naming no
 * joint or an ambiguous one; no joint mapped; a channel animating a joint
 * the source skeleton does not have; hips at the ground without
 * `rootScale`; a result not finite; more than `maxValues` numbers to
 * allocate or samples to compute (checked before either). A clip that does
 * not validate throws its `ClipError`.
 */
export function retargetClip(clip: Clip, options: RetargetOptions): Clip {
  validateClip(clip);
  if (!options || typeof options !== "object") {
    throw new RetargetError("options", "expected { source, target, … }");
  }
  const maxValues = options.maxValues ?? DEFAULT_RETARGET_MAX_VALUES;
  if (typeof maxValues !== "number" || !(maxValues >= 0)) {
    throw new RetargetError("maxValues", `expected a count, got ${describeValue(maxValues)}`);
  }
  const source = readSkeleton(options.source, "source");
  const target = readSkeleton(options.target, "target");
  const feet = options.plantFeet === true;
  const channels = retargetChannels(clip, plan(source, target, options), maxValues, feet);
  return createClip({
    name: clip.name,
    animation: clip.animation,
    start: clip.start,
    duration: clip.duration,
    channels,
  });
}
