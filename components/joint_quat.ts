/**
 * The JointQuat component: an entity's local pose, translation + rotation
 * quaternion + scale per joint, in the SoA×4 layout of `simd/layout.ts`,
 * stored in the core's memory.
 *
 * Write it through {@linkcode setJointPose} (validated) or through the view
 * of {@linkcode getPose} (fast, unchecked: the quat→mat system rejects a
 * non-finite value with a `PoseError` naming entity, joint and field before
 * it writes anything).
 *
 * @module
 */

import { addComponent, removeComponent } from "bitecs";
import { poseFloats } from "../simd/layout.ts";
import { writeJointPose } from "../simd/_pose.ts";
import { checkEntity, requireSkeleton, stateOf, withAdding, type WorldState } from "./_world.ts";
import { ComponentError } from "./errors.ts";

/**
 * Gives entity `eid` a JointQuat set to its skeleton's rest pose. Needs a
 * Skeleton; throws a {@linkcode ComponentError} otherwise or if present.
 */
export function addJointQuat(world: object, eid: number): void {
  const state = stateOf(world, "addJointQuat");
  checkEntity(state, eid, "JointQuat");
  const skeleton = requireSkeleton(state, eid, "JointQuat");
  if (state.poses.has(eid)) {
    throw new ComponentError(eid, "JointQuat", "the entity already has a JointQuat");
  }
  withAdding(state, "JointQuat", () => addComponent(world, eid, state.components.JointQuat));
  const floats = poseFloats(skeleton.jointCount);
  const ptr = state.memory.alloc(floats * 4);
  skeleton.copyRestPoseTo(state.memory.f32.subarray(ptr >> 2, (ptr >> 2) + floats));
  state.poses.set(eid, ptr);
  state.components.JointQuat.byteOffset[eid] = ptr;
}

/** Removes entity `eid`'s JointQuat; a {@linkcode ComponentError} if it has none. */
export function removeJointQuat(world: object, eid: number): void {
  const state = stateOf(world, "removeJointQuat");
  if (!state.poses.has(eid)) {
    throw new ComponentError(eid, "JointQuat", "the entity has no JointQuat (removed twice?)");
  }
  removeComponent(world, eid, state.components.JointQuat);
}

/**
 * Entity `eid`'s local pose as a writable SoA×4 view (see `poseIndex`).
 * Valid until the world's core next allocates (adding a component, creating
 * an asset); read it again each frame rather than keeping it.
 */
export function getPose(world: object, eid: number): Float32Array {
  const state = stateOf(world, "getPose");
  const [ptr, jointCount] = pose(state, eid);
  return state.memory.f32.subarray(ptr >> 2, (ptr >> 2) + poseFloats(jointCount));
}

/**
 * Sets joint `joint` of entity `eid`'s local pose. Throws a `RangeError`
 * naming entity, joint and field for a non-finite value, and writes nothing.
 */
export function setJointPose(
  world: object,
  eid: number,
  joint: number,
  translation: ArrayLike<number>,
  rotation: ArrayLike<number>,
  scale: ArrayLike<number> = [1, 1, 1],
): void {
  const state = stateOf(world, "setJointPose");
  const [ptr, jointCount] = pose(state, eid);
  if (!Number.isInteger(joint) || joint < 0 || joint >= jointCount) {
    throw new RangeError(`entity ${eid}: JointQuat: joint ${joint} is not in 0..${jointCount - 1}`);
  }
  writeJointPose(
    state.memory.f32,
    ptr >> 2,
    joint,
    translation,
    rotation,
    scale,
    `entity ${eid}: JointQuat`,
  );
}

function pose(state: WorldState, eid: number): [number, number] {
  const ptr = state.poses.get(eid);
  if (ptr === undefined) throw new ComponentError(eid, "JointQuat", "the entity has no JointQuat");
  return [ptr, state.skeletons.get(eid)!.jointCount];
}
