/**
 * The transform skeleton system: local matrices (left in the palette by
 * quat→mat) to model space, `model[i] = model[parent[i]] * local[i]`, for
 * every entity with Skeleton and JointMat, in one call into the core.
 *
 * @module
 */

import { stateOf } from "../components/_world.ts";
import { MATRIX_FLOATS } from "../simd/layout.ts";

/** Runs local→model for every entity with Skeleton and JointMat. */
export function transformSkeletonSystem(world: object): void {
  const state = stateOf(world, "transformSkeletonSystem");
  const table = state.jobs("localToModel", (row) => {
    for (const [eid, model] of state.matrices) {
      const skeleton = state.skeletons.get(eid)!;
      const n = skeleton.jointCount;
      row(eid, model + n * MATRIX_FLOATS * 4, model, skeleton.parents.byteOffset, n);
    }
  });
  state.kernels.localToModelBatch(table.ptr, table.count);
}
