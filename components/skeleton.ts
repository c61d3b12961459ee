/**
 * The Skeleton component: which shared {@linkcode SkeletonAsset} an entity
 * animates. Add it first: JointQuat, JointMat, Skin and ClipPlayer need it,
 * and go with it when it is removed.
 *
 * @module
 */

import { addComponent, hasComponent, removeComponent } from "bitecs";
import { SkeletonAsset } from "../animation/skeleton_asset.ts";
import { checkEntity, stateOf } from "./_lifecycle.ts";
import { ComponentError } from "./errors.ts";

/**
 * Gives entity `eid` the Skeleton component, referencing `skeleton` (which
 * must live in the world's core). Throws a {@linkcode ComponentError} if the
 * entity does not exist or already has one (remove it first: its
 * dependents go with it), or if the skeleton was disposed.
 */
export function addSkeleton(world: object, eid: number, skeleton: SkeletonAsset): void {
  const state = stateOf(world, "addSkeleton");
  checkEntity(world, eid, "Skeleton");
  const component = state.components.Skeleton;
  if (hasComponent(world, eid, component)) {
    throw new ComponentError(eid, "Skeleton", "the entity already has a Skeleton");
  }
  if (!(skeleton instanceof SkeletonAsset)) {
    throw new ComponentError(eid, "Skeleton", "expected a SkeletonAsset");
  }
  if (skeleton.disposed) throw new ComponentError(eid, "Skeleton", "the skeleton was disposed");
  if (skeleton.core !== state.core) {
    throw new ComponentError(eid, "Skeleton", "the skeleton lives in another core than the world");
  }
  state.pending.Skeleton = skeleton;
  try {
    addComponent(world, eid, component);
  } finally {
    state.pending.Skeleton = undefined;
  }
}

/**
 * Removes entity `eid`'s Skeleton, and with it the JointQuat, JointMat,
 * Skin and ClipPlayer that need it. bitecs' `removeComponent` does the
 * same. Throws a {@linkcode ComponentError} if it has none.
 */
export function removeSkeleton(world: object, eid: number): void {
  const state = stateOf(world, "removeSkeleton");
  checkEntity(world, eid, "Skeleton");
  if (!hasComponent(world, eid, state.components.Skeleton)) {
    throw new ComponentError(eid, "Skeleton", "the entity has no Skeleton (removed twice?)");
  }
  removeComponent(world, eid, state.components.Skeleton);
}
