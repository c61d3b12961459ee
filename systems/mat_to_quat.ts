/**
 * The mat→quat system: local matrices (in the JointMat palette, where the
 * untransform skeleton system leaves them) back to each entity's JointQuat.
 * For games that edit poses in model space (inverse kinematics, ragdolls).
 *
 * @module
 */

import { stateOf } from "../components/_world.ts";
import { MATRIX_FLOATS } from "../simd/layout.ts";

/** Runs mat→quat for every entity with Skeleton, JointMat and JointQuat. */
export function matToQuatSystem(world: object): void {
  const state = stateOf(world, "matToQuatSystem");
  const table = state.jobs("matToQuat", (row) => {
    for (const [eid, pose] of state.poses) {
      const matrices = state.matrices.get(eid);
      if (matrices === undefined) continue;
      const n = state.skeletons.get(eid)!.jointCount;
      row(eid, matrices + n * MATRIX_FLOATS * 4, pose, n);
    }
  });
  state.kernels.matToQuatBatch(table.ptr, table.count);
}
