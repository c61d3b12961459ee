/**
 * The JointMat component: an entity's 3x4 joint matrices in the core's
 * memory: model space, and the skinning palette (model × inverse bind).
 * Needs a Skeleton. Between the quat→mat and multiply-inverse-bind systems
 * the palette holds the local matrices, which saves a third block per
 * entity. (A third block keeps the last good model matrices, which a fault
 * puts back: see `getFaults`.)
 *
 * An entity with a JointMat but no JointQuat (`addSkeleton` +
 * `addJointMat`, or a `removeJointQuat`) has model matrices that are the
 * game's: write them through {@linkcode getModelMatrices}. The transform
 * skeleton and IK systems leave them as they are; the multiply-inverse-bind
 * system makes the palette from them, and the skinning systems skin it.
 *
 * @module
 */

import { addComponent, hasComponent, removeComponent } from "bitecs";
import { MATRIX_FLOATS } from "../simd/layout.ts";
import { checkedMatrices, checkedSkeleton } from "./_access.ts";
import { checkEntity, stateOf } from "./_lifecycle.ts";
import { ComponentError } from "./errors.ts";

/**
 * Gives entity `eid` a JointMat (identity matrices). Needs a Skeleton;
 * throws a {@linkcode ComponentError} otherwise or if present. bitecs'
 * `addComponent(world, eid, JointMat)` does the same.
 */
export function addJointMat(world: object, eid: number): void {
  const state = stateOf(world, "addJointMat");
  checkEntity(world, eid, "JointMat");
  if (hasComponent(world, eid, state.components.JointMat)) {
    throw new ComponentError(eid, "JointMat", "the entity already has a JointMat");
  }
  addComponent(world, eid, state.components.JointMat);
}

/** Removes entity `eid`'s JointMat (and its Skin, which needs it). */
export function removeJointMat(world: object, eid: number): void {
  const state = stateOf(world, "removeJointMat");
  checkEntity(world, eid, "JointMat");
  if (!hasComponent(world, eid, state.components.JointMat)) {
    throw new ComponentError(eid, "JointMat", "the entity has no JointMat (removed twice?)");
  }
  removeComponent(world, eid, state.components.JointMat);
}

/**
 * Entity `eid`'s model-space matrices (12 floats per joint), writable.
 * Valid until the core next grows; read it again rather than keep it.
 */
export function getModelMatrices(world: object, eid: number): Float32Array {
  return matrices(world, eid, "getModelMatrices", 0);
}

/**
 * Entity `eid`'s skinning palette (12 floats per joint), for GPU skinning.
 * Valid until the core next grows; read it again rather than keep it.
 */
export function getSkinningPalette(world: object, eid: number): Float32Array {
  return matrices(world, eid, "getSkinningPalette", 1);
}

function matrices(world: object, eid: number, caller: string, which: 0 | 1): Float32Array {
  const state = stateOf(world, caller);
  const jointCount = checkedSkeleton(state, eid).jointCount;
  const ptr = checkedMatrices(state, eid, jointCount);
  const floats = jointCount * MATRIX_FLOATS;
  const start = (ptr >> 2) + which * floats;
  return state.memory.f32.subarray(start, start + floats);
}
