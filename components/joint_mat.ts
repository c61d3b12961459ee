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

import { MATRIX_FLOATS } from "../simd/memory/layout.ts";
import { JOB_WORDS } from "../simd/abi.ts";
import { MAX_MESH_MAGNITUDE } from "../simd/memory/internal.ts";
import { skeletonInternals } from "../animation/internal.ts";
import { stateOf } from "./_machinery.ts";
import {
  addPlain,
  defineComponent,
  missing,
  removeOwn,
  type StoreOf,
  tampered,
} from "./_component.ts";
import type { WorldBase } from "./_world.ts";
import { checkedSkeleton, SKELETON, skeletonOf } from "./skeleton.ts";
import { entityView, ViewKind } from "./_entity_views.ts";

/**
 * The JointMat component: the entity's model-space matrices and skinning
 * palette (3x4 each) in the core. Needs Skeleton. Between the quat→mat
 * and the multiply-inverse-bind systems the palette holds local matrices.
 */
export interface JointMatComponent {
  /** Byte offset of the model-space matrices. */
  readonly modelByteOffset: Uint32Array;
  /** Byte offset of the skinning palette. */
  readonly paletteByteOffset: Uint32Array;
}

/** The JointMat's public store, typed: the hot paths read it by name, not through `store`. */
type JointMatStore = StoreOf<typeof JOINT_MAT>;

/** @internal The JointMat's definition. */
export const JOINT_MAT = defineComponent({
  name: "JointMat",
  needs: [SKELETON],
  shape: { modelByteOffset: Uint32Array, paletteByteOffset: Uint32Array },
  record: { matrices: Uint32Array },
  addedBy: "addJointMat",
  has: (state: WorldBase, eid: number): boolean => JOINT_MAT.recordOf(state).matrices[eid] !== 0,
  allocate(state: WorldBase, eid: number): void {
    // Model, palette, and their last good copy (restored on a fault).
    const bytes = skeletonOf(state, eid)!.jointCount * MATRIX_FLOATS * 4;
    const ptr = state.resources.memory.alloc(bytes * JOINT_MAT_BLOCKS);
    const f32 = state.resources.memory.views().f32;
    for (let m = ptr >> 2; m < (ptr + bytes * JOINT_MAT_BLOCKS) >> 2; m += MATRIX_FLOATS) {
      f32[m] = f32[m + 5] = f32[m + 10] = 1;
    }
    const store = state.components.JointMat as JointMatStore;
    JOINT_MAT.recordOf(state).matrices[eid] = store.modelByteOffset[eid] = ptr;
    store.paletteByteOffset[eid] = ptr + bytes;
  },
  release(resources, eid): void {
    const o = JOINT_MAT.recordOf(resources);
    resources.owned.generation[eid]++;
    if (o.matrices[eid]) resources.memory.free(o.matrices[eid]);
    o.matrices[eid] = 0;
  },
  check(state: WorldBase, eid: number): void {
    if (JOINT_MAT.recordOf(state).matrices[eid]) {
      checkedMatrices(state, eid, skeletonOf(state, eid)!.jointCount);
    }
  },
});

/** @internal Byte offset of the entity's model matrices (the palette follows), checked. */
export function checkedMatrices(state: WorldBase, eid: number, jointCount: number): number {
  const ptr = JOINT_MAT.recordOf(state).matrices[eid];
  if (!ptr) throw missing(eid, "JointMat");
  const c = state.components.JointMat as JointMatStore;
  if (c.modelByteOffset[eid] !== ptr) {
    throw tampered(eid, "JointMat", "modelByteOffset", c.modelByteOffset[eid], ptr);
  }
  const palette = ptr + jointCount * 48;
  if (c.paletteByteOffset[eid] !== palette) {
    throw tampered(eid, "JointMat", "paletteByteOffset", c.paletteByteOffset[eid], palette);
  }
  return ptr;
}

/**
 * @internal Blocks of `jointCount` matrices in a JointMat's allocation:
 * model, palette, and the last good model matrices, which a fault puts
 * back (the palette is then computed from them again, by the same kernel:
 * the same bits as the last good palette).
 */
const JOINT_MAT_BLOCKS = 3;

/**
 * @internal Byte offset of the last good model matrices of the JointMat at
 * byte `matrices` (`jointCount` joints): the multiply-inverse-bind kernel
 * saves each good row's model matrices there as it reads them.
 */
export function lastGoodByteOffset(matrices: number, jointCount: number): number {
  return matrices + 2 * jointCount * MATRIX_FLOATS * 4;
}

/**
 * @internal Puts back entity `eid`'s last good model matrices, and
 * computes its palette from them (the checked multiply's row; nothing else
 * of the frame is touched).
 */
export function restoreLastGood(state: WorldBase, eid: number): void {
  const skeleton = skeletonOf(state, eid)!, n = skeleton.jointCount;
  const matrices = JOINT_MAT.recordOf(state).matrices[eid], floats = n * MATRIX_FLOATS;
  const f32 = state.memory.f32, from = matrices >> 2;
  f32.copyWithin(from, lastGoodByteOffset(matrices, n) >> 2, from + 3 * floats);
  const table = state.jobs("restoreLastGood");
  table.begin(1, JOB_WORDS);
  const u32 = state.memory.u32, at = table.ptr >> 2;
  u32[at] = matrices;
  u32[at + 1] = skeletonInternals(skeleton).inverseBindByteOffset;
  u32[at + 2] = matrices + floats * 4;
  u32[at + 3] = n;
  u32[at + 4] = 0; // saves nothing: these are the last good model matrices
  state.kernels.multiplyMatricesCheckedBatch(table.ptr, 1, MAX_MESH_MAGNITUDE);
}

/**
 * Gives entity `eid` a JointMat (identity matrices). Needs a Skeleton;
 * throws a {@linkcode ComponentError} otherwise or if present. bitecs'
 * `addComponent(world, eid, JointMat)` does the same.
 */
export function addJointMat(world: object, eid: number): void {
  addPlain(world, "addJointMat", JOINT_MAT, eid);
}

/** Removes entity `eid`'s JointMat (and its Skin, which needs it). */
export function removeJointMat(world: object, eid: number): void {
  removeOwn(world, "removeJointMat", JOINT_MAT, eid);
}

/**
 * Entity `eid`'s model-space matrices (12 floats per joint), writable.
 * Calls allocate nothing (the same view while it stays valid, as
 * `getPose`'s). Valid until the core next grows; call it again rather than
 * keep the view.
 */
export function getModelMatrices(world: object, eid: number): Float32Array {
  return matrices(world, eid, "getModelMatrices", ViewKind.ModelMatrices);
}

/**
 * Entity `eid`'s skinning palette (12 floats per joint), for GPU skinning.
 * Calls allocate nothing (the same view while it stays valid, as
 * `getPose`'s). Valid until the core next grows; call it again rather than
 * keep the view.
 */
export function getSkinningPalette(world: object, eid: number): Float32Array {
  return matrices(world, eid, "getSkinningPalette", ViewKind.Palette);
}

function matrices(
  world: object,
  eid: number,
  caller: string,
  kind: ViewKind.ModelMatrices | ViewKind.Palette,
): Float32Array {
  const state = stateOf(world, caller, eid);
  const jointCount = checkedSkeleton(state, eid).jointCount;
  const ptr = checkedMatrices(state, eid, jointCount);
  const floats = jointCount * MATRIX_FLOATS;
  const start = ptr + (kind === ViewKind.Palette ? floats * 4 : 0);
  return entityView(state, state.memory, eid, kind, start, floats);
}
