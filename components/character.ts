/**
 * {@linkcode addCharacter}: the components of a skinned character, added in
 * one call.
 *
 * @module
 */

import { SkinAsset } from "../animation/skin_asset.ts";
import type { SkeletonAsset } from "../animation/skeleton_asset.ts";
import { ComponentError } from "./errors.ts";
import { addJointMat } from "./joint_mat.ts";
import { addJointQuat } from "./joint_quat.ts";
import { addSkeleton, removeSkeleton } from "./skeleton.ts";
import { addSkin, type SkinStreams } from "./skin.ts";

/**
 * Makes entity `eid` a skinned character in one call: Skeleton, JointQuat
 * (at the rest pose) and JointMat, and a Skin of `skin` (all its meshes)
 * when given, with `streams`. The same errors as the single add functions;
 * on error nothing is added.
 */
export function addCharacter(
  world: object,
  eid: number,
  skeleton: SkeletonAsset,
  skin?: SkinAsset,
  streams: SkinStreams = {},
): void {
  if (skin !== undefined && !(skin instanceof SkinAsset && skin.skeleton === skeleton)) {
    throw new ComponentError(eid, "Skin", "the skin is not bound to the given skeleton");
  }
  addSkeleton(world, eid, skeleton);
  try {
    addJointQuat(world, eid);
    addJointMat(world, eid);
    if (skin) addSkin(world, eid, skin, streams);
  } catch (error) {
    removeSkeleton(world, eid);
    throw error;
  }
}
