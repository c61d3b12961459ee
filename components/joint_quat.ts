/**
 * The JointQuat component: an entity's local pose, translation + rotation
 * quaternion + scale per joint, in the SoA×4 layout of `simd/layout.ts`,
 * stored in the core's memory. Needs a Skeleton; starts at its rest pose.
 *
 * Write it through {@linkcode setJointPose} (validated, rotation
 * normalized) or through the view of {@linkcode getPose} (fast, unchecked:
 * the quat→mat system finds a non-finite value, a `PoseError` naming
 * entity, joint and field, before it writes anything: by default the
 * entity is isolated and the error recorded in the world's faults, see
 * `getFaults`). Without a JointQuat, an entity's JointMat holds model
 * matrices that are the game's own (`components/joint_mat.ts`).
 *
 * @module
 */

import { addComponent, hasComponent, removeComponent } from "bitecs";
import { poseFloats } from "../simd/layout.ts";
import { writeJointPose } from "../simd/_pose.ts";
import { checkedPose, checkedSkeleton } from "./_access.ts";
import { checkEntity, stateOf } from "./_lifecycle.ts";
import { ComponentError } from "./errors.ts";

/**
 * Gives entity `eid` a JointQuat set to its skeleton's rest pose. Needs a
 * Skeleton; throws a {@linkcode ComponentError} otherwise or if present.
 * bitecs' `addComponent(world, eid, JointQuat)` does the same.
 */
export function addJointQuat(world: object, eid: number): void {
  const state = stateOf(world, "addJointQuat");
  checkEntity(world, eid, "JointQuat");
  if (hasComponent(world, eid, state.components.JointQuat)) {
    throw new ComponentError(eid, "JointQuat", "the entity already has a JointQuat");
  }
  addComponent(world, eid, state.components.JointQuat);
}

/**
 * Removes entity `eid`'s JointQuat, and its ClipPlayer, which needs it. A
 * {@linkcode ComponentError} if it has none.
 */
export function removeJointQuat(world: object, eid: number): void {
  const state = stateOf(world, "removeJointQuat");
  checkEntity(world, eid, "JointQuat");
  if (!hasComponent(world, eid, state.components.JointQuat)) {
    throw new ComponentError(eid, "JointQuat", "the entity has no JointQuat (removed twice?)");
  }
  removeComponent(world, eid, state.components.JointQuat);
}

/**
 * Entity `eid`'s local pose as a writable SoA×4 view (see `poseIndex`).
 * Valid until the world's core next grows (adding a component, creating an
 * asset) unless `core.viewsSurviveGrowth`; read it again each frame rather
 * than keeping it.
 */
export function getPose(world: object, eid: number): Float32Array {
  const state = stateOf(world, "getPose");
  const ptr = checkedPose(state, eid);
  const jointCount = checkedSkeleton(state, eid).jointCount;
  return state.memory.f32.subarray(ptr >> 2, (ptr >> 2) + poseFloats(jointCount));
}

/**
 * Sets joint `joint` of entity `eid`'s local pose; the rotation is
 * normalized. Throws a `RangeError` naming entity, joint and field for a
 * non-finite value or a zero rotation, and writes nothing.
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
  const ptr = checkedPose(state, eid);
  const jointCount = checkedSkeleton(state, eid).jointCount;
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
    true,
  );
}
