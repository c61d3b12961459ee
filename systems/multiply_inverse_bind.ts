/**
 * The multiply-inverse-bind system: `palette[i] = model[i] * inverseBind[i]`
 * for every entity with Skeleton and JointMat, in one call into the core.
 * The palette is what GPU skinning and the skinning-with-tangents system use.
 *
 * @module
 */

import { stateOf } from "../components/_world.ts";
import { MATRIX_FLOATS } from "../simd/layout.ts";

/** Computes the skinning palette of every entity with Skeleton and JointMat. */
export function multiplyInverseBindSystem(world: object): void {
  const state = stateOf(world, "multiplyInverseBindSystem");
  const table = state.jobs("multiplyInverseBind", (row) => {
    for (const [eid, model] of state.matrices) {
      const skeleton = state.skeletons.get(eid)!;
      const n = skeleton.jointCount;
      row(eid, model, skeleton.inverseBindBuffer.byteOffset, model + n * MATRIX_FLOATS * 4, n);
    }
  });
  state.kernels.multiplyMatricesBatch(table.ptr, table.count);
}
