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
 *   hips' height ratio; other joints keep the target's rest translations.
 * - The motion is turned about +y from the source character's facing to
 *   the target's (measured from hips and feet, or given), so the target
 *   faces as it does in its own scene.
 *
 * See `docs/retargeting.md` for the math and how it compares with three.js
 * `SkeletonUtils.retargetClip`.
 *
 * @example Playing Soldier's walk on Xbot
 * ```ts
 * import { importGltf } from "@marrow/anim/gltf";
 * import { retargetClip } from "@marrow/anim/retarget";
 *
 * // Test assets beside the repository.
 * const dir = new URL("../../shared/assets/gltf/", import.meta.url);
 * const [soldier] = (await importGltf(new URL("Soldier.glb", dir))).skeletons;
 * const [xbot] = (await importGltf(new URL("Xbot.glb", dir))).skeletons;
 * const walk = soldier.clips.find((clip) => clip.name === "Walk")!;
 * const xbotWalk = retargetClip(walk, { source: soldier.skeleton, target: xbot.skeleton });
 * console.log(xbotWalk.channels.length > 0); // true
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

/**
 * `clip`, made for `options.source`, rebuilt for `options.target` (see the
 * module doc): a validated, frozen clip of the same name, start and
 * duration, whose channels are `LINEAR` (`STEP` when the source's all are)
 * rotations of the mapped target joints and translations of the hips.
 *
 * Throws a {@linkcode RetargetError} naming the option and joint at fault:
 * a skeleton that is not one (parents after their children, a rest pose
 * short or not finite); a `jointMap`, `hips` or `overrides` entry naming no
 * joint or an ambiguous one; no joint mapped; a channel animating a joint
 * the source skeleton does not have; hips at the ground without
 * `rootScale`; a result not finite; more than `maxValues` numbers needed
 * (checked before allocating them). A clip that does not validate throws
 * its `ClipError`.
 */
export function retargetClip(clip: Clip, options: RetargetOptions): Clip {
  validateClip(clip);
  if (!options || typeof options !== "object") {
    throw new RetargetError("options", "expected { source, target, … }");
  }
  const maxValues = options.maxValues ?? DEFAULT_RETARGET_MAX_VALUES;
  if (!(maxValues >= 0)) throw new RetargetError("maxValues", `expected a count, got ${maxValues}`);
  const source = readSkeleton(options.source, "source");
  const target = readSkeleton(options.target, "target");
  const channels = retargetChannels(clip, plan(source, target, options), maxValues);
  return createClip({
    name: clip.name,
    animation: clip.animation,
    start: clip.start,
    duration: clip.duration,
    channels,
  });
}

export {
  DEFAULT_RETARGET_MAX_VALUES,
  RetargetError,
  type RetargetFacing,
  type RetargetJointOverride,
  type RetargetOptions,
  type RetargetRotation,
  type RetargetSkeleton,
  type RetargetVector,
} from "./retarget_options.ts";
