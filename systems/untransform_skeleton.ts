/**
 * The untransform skeleton system: model-space matrices back to local ones,
 * `local[i] = inverse(model[parent[i]]) * model[i]`, written to the JointMat
 * palette for the mat→quat system. For games that edit poses in model space.
 *
 * @module
 */

import { stateOf } from "../components/_world.ts";
import { MATRIX_FLOATS } from "../simd/layout.ts";

/** Runs model→local for every entity with Skeleton and JointMat. */
export function untransformSkeletonSystem(world: object): void {
  const state = stateOf(world, "untransformSkeletonSystem");
  const table = state.jobs("modelToLocal", (row) => {
    for (const [eid, model] of state.matrices) {
      const skeleton = state.skeletons.get(eid)!;
      const n = skeleton.jointCount;
      row(eid, model, model + n * MATRIX_FLOATS * 4, skeleton.parents.byteOffset, n);
    }
  });
  state.kernels.modelToLocalBatch(table.ptr, table.count);
}
