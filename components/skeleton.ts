/**
 * The Skeleton component: which shared {@linkcode SkeletonAsset} an entity
 * animates. Add it first: JointQuat, JointMat and Skin need it.
 *
 * @module
 */

import { addComponent, removeComponent } from "bitecs";
import { checkEntity, stateOf, withAdding } from "./_world.ts";
import { ComponentError } from "./errors.ts";
import { SkeletonAsset } from "../animation/skeleton_asset.ts";
import { removeJointQuat } from "./joint_quat.ts";
import { removeJointMat } from "./joint_mat.ts";
import { removeSkin } from "./skin.ts";

/**
 * Gives entity `eid` the Skeleton component, referencing `skeleton` (which
 * must live in the world's core). Throws a {@linkcode ComponentError} if the
 * entity does not exist or already has one.
 */
export function addSkeleton(world: object, eid: number, skeleton: SkeletonAsset): void {
  const state = stateOf(world, "addSkeleton");
  checkEntity(state, eid, "Skeleton");
  if (state.skeletons.has(eid)) {
    throw new ComponentError(eid, "Skeleton", "the entity already has a Skeleton");
  }
  if (!(skeleton instanceof SkeletonAsset)) {
    throw new ComponentError(eid, "Skeleton", "expected a SkeletonAsset");
  }
  if (skeleton.core !== state.core) {
    throw new ComponentError(eid, "Skeleton", "the skeleton lives in another core than the world");
  }
  withAdding(state, "Skeleton", () => addComponent(world, eid, state.components.Skeleton));
  state.skeletons.set(eid, skeleton);
  state.components.Skeleton.asset[eid] = skeleton;
  state.components.Skeleton.jointCount[eid] = skeleton.jointCount;
}

/**
 * Removes entity `eid`'s Skeleton, and with it the JointQuat, JointMat and
 * Skin that depend on it. Throws a {@linkcode ComponentError} if it has none.
 */
export function removeSkeleton(world: object, eid: number): void {
  const state = stateOf(world, "removeSkeleton");
  if (!state.skeletons.has(eid)) {
    throw new ComponentError(eid, "Skeleton", "the entity has no Skeleton (removed twice?)");
  }
  if (state.skins.has(eid)) removeSkin(world, eid);
  if (state.matrices.has(eid)) removeJointMat(world, eid);
  if (state.poses.has(eid)) removeJointQuat(world, eid);
  removeComponent(world, eid, state.components.Skeleton);
}
