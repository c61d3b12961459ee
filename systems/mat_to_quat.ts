/**
 * The mat→quat system: local matrices (in the JointMat palette, where the
 * untransform skeleton system leaves them) back to each entity's JointQuat.
 * For games that edit poses in model space (inverse kinematics, ragdolls).
 *
 * @module
 */

import { selectEntities } from "../components/internal.ts";
import { checkedMatrices } from "../components/joint_mat.ts";
import { checkedPose } from "../components/joint_quat.ts";
import { checkedSkeleton } from "../components/skeleton.ts";
import { stateOf } from "../components/internal.ts";
import { CONVERT_COUNT, JOB_WORDS, MAT_TO_QUAT_MATRICES, MAT_TO_QUAT_POSE } from "../simd/abi.ts";
import { MATRIX_FLOATS } from "../simd/memory/layout.ts";
import { POSED_ENTITIES } from "./_select.ts";

/**
 * Runs mat→quat for every entity with Skeleton, JointMat and JointQuat, or
 * for those of `entities` (others are skipped).
 */
export function matToQuatSystem(world: object, entities?: ArrayLike<number>): void {
  const state = stateOf(world, "matToQuatSystem");
  const list = selectEntities(
    world,
    state,
    "matToQuatSystem",
    POSED_ENTITIES,
    entities,
  );
  if (list.length === 0) return;
  const table = state.jobs("matToQuat");
  table.begin(list.length, JOB_WORDS);
  const u32 = state.memory.u32;
  for (let i = 0; i < list.length; i++) {
    const eid = list[i];
    const at = (table.ptr >> 2) + i * JOB_WORDS;
    let n = 0, local = 0, pose = 0;
    try {
      n = checkedSkeleton(state, eid).jointCount;
      local = checkedMatrices(state, eid, n) + n * MATRIX_FLOATS * 4;
      pose = checkedPose(state, eid);
    } catch (error) {
      // Isolated: an empty row (converts nothing).
      state.faults.isolate(eid, "matToQuatSystem", error);
      n = 0, local = 0, pose = 0;
    }
    u32[at + MAT_TO_QUAT_MATRICES] = local;
    u32[at + MAT_TO_QUAT_POSE] = pose;
    u32[at + CONVERT_COUNT] = n;
  }
  state.faults.notify();
  state.kernels.matToQuatBatch(table.ptr, list.length);
}
