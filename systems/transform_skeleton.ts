/**
 * The transform skeleton system: local matrices (left in the palette by
 * quat→mat) to model space, `model[i] = model[parent[i]] * local[i]`, for
 * every entity with Skeleton and JointMat, in one call into the core.
 *
 * @module
 */

import { checkedMatrices, checkedSkeleton } from "../components/_access.ts";
import { stateOf } from "../components/_lifecycle.ts";
import { JOB_WORDS } from "../simd/_abi.ts";
import { MATRIX_FLOATS } from "../simd/layout.ts";
import { withMatrices } from "./_select.ts";

/**
 * Runs local→model for every entity with Skeleton and JointMat, or for
 * those of `entities` (others are skipped).
 */
export function transformSkeletonSystem(world: object, entities?: ArrayLike<number>): void {
  const state = stateOf(world, "transformSkeletonSystem");
  const list = withMatrices(world, state, "transformSkeletonSystem", entities);
  if (list.length === 0) return;
  const table = state.jobs("localToModel");
  table.begin(list.length, JOB_WORDS);
  const u32 = state.memory.u32;
  for (let i = 0; i < list.length; i++) {
    const eid = list[i];
    const skeleton = checkedSkeleton(state, eid);
    const n = skeleton.jointCount;
    const model = checkedMatrices(state, eid, n);
    const at = (table.ptr >> 2) + i * JOB_WORDS;
    u32[at] = model + n * MATRIX_FLOATS * 4;
    u32[at + 1] = model;
    u32[at + 2] = skeleton.parentsByteOffset;
    u32[at + 3] = n;
  }
  state.kernels.localToModelBatch(table.ptr, list.length);
}
