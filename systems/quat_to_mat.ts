/**
 * The quat→mat system: every entity's local pose (JointQuat) to local
 * matrices, which it leaves in the JointMat palette for the transform
 * skeleton system. One call into the core for all entities.
 *
 * @module
 */

import { stateOf, type WorldState } from "../components/_world.ts";
import { PoseError } from "../components/errors.ts";
import { MATRIX_FLOATS, POSE_GROUP_FLOATS, poseFloats } from "../simd/layout.ts";

const FIELDS = ["tx", "ty", "tz", "qx", "qy", "qz", "qw", "sx", "sy", "sz"];

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
  const bad = state.kernels.firstNonFiniteBatch(scan.ptr, scan.count);
  if (bad < 0) return;
  const eid = scan.entities[bad];
  const ptr = state.poses.get(eid)!;
  const f32 = state.memory.f32;
  const floats = poseFloats(state.skeletons.get(eid)!.jointCount);
  for (let i = 0; i < floats; i++) {
    const value = f32[(ptr >> 2) + i];
    if (!Number.isFinite(value)) {
      const joint = Math.floor(i / POSE_GROUP_FLOATS) * 4 + (i & 3);
      throw new PoseError(eid, joint, FIELDS[(i % POSE_GROUP_FLOATS) >> 2], value);
    }
  }
}
