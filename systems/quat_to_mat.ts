/**
 * The quat→mat system: each entity's local pose (JointQuat) to local
 * matrices, which it leaves in the JointMat palette for the transform
 * skeleton system. One call into the core for all entities.
 *
 * @module
 */

import { selectEntities } from "../components/internal.ts";
import { checkedMatrices } from "../components/joint_mat.ts";
import { checkedPose } from "../components/joint_quat.ts";
import { checkedSkeleton } from "../components/skeleton.ts";
import { stateOf } from "../components/internal.ts";
import type { WorldState } from "../components/internal.ts";
import { PoseError } from "../components/errors.ts";
import {
  CONVERT_COUNT,
  JOB_WORDS,
  QUAT_TO_MAT_MATRICES,
  QUAT_TO_MAT_POSE,
  SCAN_COUNT,
  SCAN_PTR,
} from "../simd/abi.ts";
import { MATRIX_FLOATS, poseFloats } from "../simd/memory/layout.ts";
import { findNonFinitePose } from "../simd/memory/internal.ts";
import { POSED_ENTITIES } from "./_select.ts";
import { NOT_ANIMATED, withoutSkipped } from "./_lod.ts";
import { CHECK_MATRICES, CHECK_POSE, endVouch, storesIntact } from "./_checks.ts";
import type { JobTable } from "../components/internal.ts";
import { Quarantine } from "../components/internal.ts";
import { restoreLastGood } from "../components/joint_mat.ts";

/**
 * Runs quat→mat for every entity with Skeleton, JointQuat and JointMat, or
 * for those of `entities` (a game's own query; others are skipped). First
 * checks every pose: a non-finite value is a {@linkcode PoseError} naming
 * entity, joint and field. By default (the world's `"isolate"` fault mode)
 * the entity is recorded in the world's faults (`getFaults`) and
 * quarantined: this and the later joint systems skip it, its JointMat
 * keeps its last good values, and it is checked again on the next call.
 * In the `"throw"` mode the error is thrown and nothing is written.
 */
export function quatToMatSystem(world: object, entities?: ArrayLike<number>): void {
  const state = stateOf(world, "quatToMatSystem");
  const owned = state.owned;
  const selected = selectEntities(
    world,
    state,
    "quatToMatSystem",
    POSED_ENTITIES,
    entities,
  );
  // Level of detail: entities not animated this frame keep their matrices.
  const list = withoutSkipped(state, selected, NOT_ANIMATED, "quatToMatSystem");
  if (list.length === 0) return;
  // A query's list, or one of those a level of detail keeps: its rows may be kept.
  const keepable = entities === undefined;
  const scan = state.jobs("poseScan"), table = state.jobs("quatToMat");
  // Rows kept from the last call (a component added or removed drops
  // them) are those the loop below would write, when no check can fail.
  const kept = keepable && scan.holds(list, 1) && table.holds(list, 1) &&
    storesIntact(state, list, CHECK_POSE | CHECK_MATRICES);
  let storeFaults = false;
  if (!kept) storeFaults = writeRows(state, list, scan, table);
  if (keepable && !storeFaults) scan.keep(list, 1), table.keep(list, 1);
  const faults = state.faults, quarantine = owned.quarantine;
  const first = state.kernels.firstBeyondBatch(scan.ptr, list.length, Infinity);
  // Entities before the first bad pose have good ones: a flag left from an
  // earlier call is cleared (retried every call, the scan runs anyway). Kept
  // rows were checked unquarantined.
  for (let i = 0; !kept && i < (first < 0 ? list.length : first); i++) {
    quarantine[list[i]] &= ~Quarantine.Pose;
  }
  let rows = list.length;
  if (first >= 0) {
    // Rows are moved below: not those of the entities any more.
    scan.drop(), table.drop();
    // The scan covers whole groups; padding lanes are not part of a pose.
    rows = first;
    for (let i = first; i < list.length; i++) {
      const eid = list[i];
      const n = owned.skeleton[eid]!.jointCount;
      // Fresh views: a restore below may grow the memory.
      const { f32, u32 } = state.memory;
      // An empty row (a store fault, isolated above) is moved as it is.
      const empty = u32[(table.ptr >> 2) + i * JOB_WORDS + CONVERT_COUNT] === 0;
      const bad = empty ? undefined : findNonFinitePose(f32, n, owned.pose[eid] >> 2);
      if (!bad) {
        quarantine[eid] &= ~Quarantine.Pose;
        u32.copyWithin(
          (table.ptr >> 2) + rows++ * JOB_WORDS,
          (table.ptr >> 2) + i * JOB_WORDS,
          (table.ptr >> 2) + (i + 1) * JOB_WORDS,
        );
        continue;
      }
      faults.report(eid, "quatToMatSystem", "JointQuat", bad[1], new PoseError(eid, ...bad));
      quarantine[eid] |= Quarantine.Pose;
      endVouch();
      // A write through a JointMat view since the last frame is undone too.
      restoreLastGood(state, eid);
    }
  }
  if (rows > 0) state.kernels.quatToMatBatch(table.ptr, rows);
  // An entity of an empty row is quarantined like one with a bad pose: its
  // local matrices were not written, so the matrix systems after this one
  // skip it. Only after a store fault: its checks are run again.
  for (let i = 0; storeFaults && i < list.length; i++) {
    if (storesHold(state, list[i])) continue;
    quarantine[list[i]] |= Quarantine.Pose;
    endVouch();
    // A write through a JointMat view since the last frame is undone, as for a bad pose.
    if (owned.skeleton[list[i]] && owned.matrices[list[i]]) restoreLastGood(state, list[i]);
  }
  faults.notify();
}

/**
 * Writes the rows of the pose scan and of quat→mat for `list`'s entities,
 * checked; one that fails its checks gets an empty row (isolated), and
 * then the result is true.
 */
function writeRows(
  state: WorldState,
  list: ArrayLike<number>,
  scan: JobTable,
  table: JobTable,
): boolean {
  scan.begin(list.length, JOB_WORDS);
  table.begin(list.length, JOB_WORDS);
  const u32 = state.memory.u32;
  let storeFaults = false;
  for (let i = 0; i < list.length; i++) {
    const eid = list[i];
    const at = i * JOB_WORDS;
    let n = 0, pose = 0, local = 0;
    try {
      n = checkedSkeleton(state, eid).jointCount;
      pose = checkedPose(state, eid);
      local = checkedMatrices(state, eid, n) + n * MATRIX_FLOATS * 4;
    } catch (error) {
      // Isolated: an empty row (scanned and converted as nothing).
      state.faults.isolate(eid, "quatToMatSystem", error);
      n = 0, pose = 0, local = 0, storeFaults = true;
    }
    u32[(scan.ptr >> 2) + at + SCAN_PTR] = pose;
    u32[(scan.ptr >> 2) + at + SCAN_COUNT] = poseFloats(n);
    u32[(table.ptr >> 2) + at + QUAT_TO_MAT_POSE] = pose;
    u32[(table.ptr >> 2) + at + QUAT_TO_MAT_MATRICES] = local;
    u32[(table.ptr >> 2) + at + CONVERT_COUNT] = n;
  }
  return storeFaults;
}

/** Whether entity `eid`'s store fields are those Marrow set. */
function storesHold(state: WorldState, eid: number): boolean {
  try {
    checkedMatrices(state, eid, checkedSkeleton(state, eid).jointCount);
    checkedPose(state, eid);
    return true;
  } catch {
    return false;
  }
}
