/**
 * The quat→mat system: every entity's local pose (JointQuat) to local
 * matrices, which it leaves in the JointMat palette for the transform
 * skeleton system. One call into the core for all entities.
 *
 * @module
 */

import { stateOf, type WorldState } from "../components/_world.ts";
import { PoseError } from "../components/errors.ts";
import { MATRIX_FLOATS, poseFloats } from "../simd/layout.ts";
import { findNonFinitePose } from "../simd/_pose.ts";

/**
 * Runs quat→mat for every entity with Skeleton, JointQuat and JointMat.
 * First checks every pose: a non-finite value throws a
 * {@linkcode PoseError} naming entity, joint and field, and nothing is
 * written.
 */
export function quatToMatSystem(world: object): void {
  const state = stateOf(world, "quatToMatSystem");
  checkPoses(state);
  const table = state.jobs("quatToMat", (row) => {
    for (const [eid, pose] of state.poses) {
      const matrices = state.matrices.get(eid);
      if (matrices === undefined) continue;
      const n = state.skeletons.get(eid)!.jointCount;
      row(eid, pose, matrices + n * MATRIX_FLOATS * 4, n);
    }
  });
  state.kernels.quatToMatBatch(table.ptr, table.count);
}

/** Throws a PoseError for the first non-finite value of any entity's pose. */
export function checkPoses(state: WorldState): void {
  const scan = state.jobs("poseScan", (row) => {
    for (const [eid, pose] of state.poses) {
      row(eid, pose, poseFloats(state.skeletons.get(eid)!.jointCount));
    }
  });
  const first = state.kernels.firstNonFiniteBatch(scan.ptr, scan.count);
  if (first < 0) return;
  // The scan covers whole groups; padding lanes are not part of a pose.
  for (const eid of scan.entities.slice(first)) {
    const jointCount = state.skeletons.get(eid)!.jointCount;
    const bad = findNonFinitePose(state.memory.f32, jointCount, state.poses.get(eid)! >> 2);
    if (bad) throw new PoseError(eid, ...bad);
  }
}
