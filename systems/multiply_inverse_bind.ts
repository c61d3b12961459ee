/**
 * The multiply-inverse-bind system: `palette[i] = model[i] * inverseBind[i]`
 * for every entity with Skeleton and JointMat, in one call into the core.
 * The palette is what GPU skinning and the skinning systems use; it is
 * checked before it is published: an entry that is not finite or beyond
 * ±1e18 (a pose that overflows, like a scale of 1e38) is a `PoseError`
 * naming entity and joint.
 *
 * @module
 */

import { checkedMatrices, checkedSkeleton } from "../components/_access.ts";
import { stateOf } from "../components/_lifecycle.ts";
import { JOB_WORDS } from "../simd/_abi.ts";
import { MATRIX_FLOATS } from "../simd/layout.ts";
import { checkPalettes, withMatrices } from "./_select.ts";

/**
 * Computes the skinning palette of every entity with Skeleton and JointMat,
 * or of those of `entities` (others are skipped).
 */
export function multiplyInverseBindSystem(world: object, entities?: ArrayLike<number>): void {
  const state = stateOf(world, "multiplyInverseBindSystem");
  const list = withMatrices(world, state, "multiplyInverseBindSystem", entities);
  if (list.length === 0) return;
  const table = state.jobs("multiplyInverseBind");
  table.begin(list.length, JOB_WORDS);
  const u32 = state.memory.u32;
  for (let i = 0; i < list.length; i++) {
    const eid = list[i];
    const skeleton = checkedSkeleton(state, eid);
    const n = skeleton.jointCount;
    const model = checkedMatrices(state, eid, n);
    const at = (table.ptr >> 2) + i * JOB_WORDS;
    u32[at] = model;
    u32[at + 1] = skeleton.inverseBindByteOffset;
    u32[at + 2] = model + n * MATRIX_FLOATS * 4;
    u32[at + 3] = n;
  }
  state.kernels.multiplyMatricesBatch(table.ptr, list.length);
  checkPalettes(state, list);
}
