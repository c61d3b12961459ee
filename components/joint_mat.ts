/**
 * The JointMat component: an entity's 3x4 joint matrices in the core's
 * memory: model space, and the skinning palette (model × inverse bind).
 * Between the quat→mat and multiply-inverse-bind systems the palette holds
 * the local matrices, which saves a third block per entity.
 *
 * @module
 */

import { addComponent, removeComponent } from "bitecs";
import { MATRIX_FLOATS } from "../simd/layout.ts";
import { checkEntity, requireSkeleton, stateOf, withAdding } from "./_world.ts";
import { ComponentError } from "./errors.ts";

/**
 * Gives entity `eid` a JointMat (identity matrices). Needs a Skeleton;
 * throws a {@linkcode ComponentError} otherwise or if present.
 */
export function addJointMat(world: object, eid: number): void {
  const state = stateOf(world, "addJointMat");
  checkEntity(state, eid, "JointMat");
  const skeleton = requireSkeleton(state, eid, "JointMat");
  if (state.matrices.has(eid)) {
    throw new ComponentError(eid, "JointMat", "the entity already has a JointMat");
  }
  withAdding(state, "JointMat", () => addComponent(world, eid, state.components.JointMat));
  const bytes = skeleton.jointCount * MATRIX_FLOATS * 4;
  const ptr = state.memory.alloc(bytes * 2);
  const f32 = state.memory.f32;
  for (let m = ptr >> 2; m < (ptr + bytes * 2) >> 2; m += MATRIX_FLOATS) {
    f32[m] = f32[m + 5] = f32[m + 10] = 1;
  }
  state.matrices.set(eid, ptr);
  state.components.JointMat.modelByteOffset[eid] = ptr;
  state.components.JointMat.paletteByteOffset[eid] = ptr + bytes;
}

/** Removes entity `eid`'s JointMat (and its Skin, which needs it). */
export function removeJointMat(world: object, eid: number): void {
  const state = stateOf(world, "removeJointMat");
  if (!state.matrices.has(eid)) {
    throw new ComponentError(eid, "JointMat", "the entity has no JointMat (removed twice?)");
  }
  if (state.skins.has(eid)) removeComponent(world, eid, state.components.Skin);
  removeComponent(world, eid, state.components.JointMat);
}

/**
 * Entity `eid`'s model-space matrices (12 floats per joint), writable.
 * Valid until the core next allocates; read it again rather than keep it.
 */
export function getModelMatrices(world: object, eid: number): Float32Array {
  return matrices(world, eid, "getModelMatrices", 0);
}

/**
 * Entity `eid`'s skinning palette (12 floats per joint), for GPU skinning.
 * Valid until the core next allocates; read it again rather than keep it.
 */
export function getSkinningPalette(world: object, eid: number): Float32Array {
  return matrices(world, eid, "getSkinningPalette", 1);
}

function matrices(world: object, eid: number, caller: string, which: 0 | 1): Float32Array {
  const state = stateOf(world, caller);
  const ptr = state.matrices.get(eid);
  if (ptr === undefined) throw new ComponentError(eid, "JointMat", "the entity has no JointMat");
  const floats = state.skeletons.get(eid)!.jointCount * MATRIX_FLOATS;
  const start = (ptr >> 2) + which * floats;
  return state.memory.f32.subarray(start, start + floats);
}
