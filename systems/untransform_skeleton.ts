/**
 * The untransform skeleton system: model-space matrices back to local ones,
 * `local[i] = inverse(model[parent[i]]) * model[i]`, written to the JointMat
 * palette for the mat→quat system. For games that edit poses in model space.
 *
 * @module
 */

import { checkedMatrices, checkedSkeleton } from "../components/_access.ts";
import { stateOf } from "../components/_lifecycle.ts";
import { JOB_WORDS } from "../simd/_abi.ts";
import { MATRIX_FLOATS } from "../simd/layout.ts";
import { withMatrices } from "./_select.ts";

/**
 * Runs model→local for every entity with Skeleton and JointMat, or for
 * those of `entities` (others are skipped).
 */
export function untransformSkeletonSystem(world: object, entities?: ArrayLike<number>): void {
  const state = stateOf(world, "untransformSkeletonSystem");
  const list = withMatrices(world, state, "untransformSkeletonSystem", entities);
  if (list.length === 0) return;
  const table = state.jobs("modelToLocal");
  table.begin(list.length, JOB_WORDS);
  const u32 = state.memory.u32;
  for (let i = 0; i < list.length; i++) {
    const eid = list[i];
    const skeleton = checkedSkeleton(state, eid);
    const n = skeleton.jointCount;
    const model = checkedMatrices(state, eid, n);
    const at = (table.ptr >> 2) + i * JOB_WORDS;
    u32[at] = model;
    u32[at + 1] = model + n * MATRIX_FLOATS * 4;
    u32[at + 2] = skeleton.parentsByteOffset;
    u32[at + 3] = n;
  }
  state.kernels.modelToLocalBatch(table.ptr, list.length);
}
