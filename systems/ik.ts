/**
 * The IK system: solves every chain of every entity with the IK component
 * (or of those of `entities`), in one call into the core: per chain, the
 * corrections of the start and mid joints (ozz's two-bone and aim IK), then
 * the start joint's subtree re-transformed, chains in the order they were
 * added. It runs between the transform-skeleton and multiply-inverse-bind
 * systems, while the palette still holds the local matrices that quat→mat
 * wrote; entities without IK cost nothing.
 *
 * Entities without a JointQuat (model matrices that are the game's own,
 * which the transform skeleton system leaves alone) and entities the
 * quat→mat system quarantined for a bad pose are skipped: the palette does
 * not hold their local matrices. Their chains report not reached.
 *
 * @module
 */

import { selectEntities } from "../components/internal.ts";
import { checkedMatrices } from "../components/joint_mat.ts";
import { checkedSkeleton } from "../components/skeleton.ts";
import { stateOf } from "../components/internal.ts";
import { ComponentError } from "../components/errors.ts";
import { IK_JOB_WORDS } from "../simd/abi.ts";
import { IKField } from "../simd/scalar/internal.ts";
import { MATRIX_FLOATS } from "../simd/memory/layout.ts";
import { IK_ENTITIES, SKIP_UNPOSED } from "./_select.ts";
import { NOT_ANIMATED, withoutSkipped } from "./_lod.ts";
import { endVouch } from "./_checks.ts";
import { skeletonInternals } from "../animation/internal.ts";
import { Quarantine } from "../components/internal.ts";

/**
 * Solves the IK chains of every entity with IK (Skeleton, JointMat and
 * IK), or of those of `entities` (others are skipped). Chains without a
 * target, or of weight 0, are skipped.
 */
export function ikSystem(world: object, entities?: ArrayLike<number>): void {
  const state = stateOf(world, "ikSystem");
  const owned = state.owned;
  // Level of detail: chains of entities not animated this frame keep their results.
  const list = withoutSkipped(
    state,
    selectEntities(world, state, "ikSystem", IK_ENTITIES, entities),
    NOT_ANIMATED,
    "ikSystem",
  );
  let rows = 0;
  for (let i = 0; i < list.length; i++) {
    const eid = list[i], chains = owned.ik[eid];
    if (!chains || SKIP_UNPOSED(owned, eid)) continue;
    try {
      checkedMatrices(state, eid, checkedSkeleton(state, eid).jointCount);
    } catch (error) {
      // Isolated: quarantined, as quat→mat does, so that no row is written for it.
      state.faults.isolate(eid, "ikSystem", error);
      owned.quarantine[eid] |= Quarantine.Pose;
      endVouch();
      continue;
    }
    for (const chain of chains) if (chain.target && chain.weight > 0) rows++;
  }
  if (rows === 0) {
    for (let i = 0; i < list.length; i++) {
      for (const c of owned.ik[list[i]]!) {
        c.reached = false;
        c.distance = NaN;
      }
    }
    return;
  }
  const table = state.jobs("ik");
  table.begin(rows, IK_JOB_WORDS);
  const { u32, f32 } = state.memory;
  let at = table.ptr >> 2;
  for (let i = 0; i < list.length; i++) {
    const eid = list[i];
    if (SKIP_UNPOSED(owned, eid)) continue;
    // Marrow's records: the stores were checked when the rows were counted.
    const skeleton = owned.skeleton[eid]!, model = owned.matrices[eid];
    const local = model + skeleton.jointCount * MATRIX_FLOATS * 4;
    for (const chain of owned.ik[eid]!) {
      if (!chain.target || !(chain.weight > 0)) continue;
      // The joints were checked against this skeleton when the chain was
      // added; removing the Skeleton removes the chains.
      if (chain.skeleton !== skeleton) {
        throw new ComponentError(eid, "IK", "the chain belongs to another skeleton");
      }
      f32.set(chain.row, at);
      u32[at + IKField.MODEL] = model;
      u32[at + IKField.LOCAL] = local;
      u32[at + IKField.PARENTS] = skeletonInternals(skeleton).parentsByteOffset;
      at += IK_JOB_WORDS;
    }
  }
  state.kernels.solveIKBatch(table.ptr, rows);
  state.faults.notify();
  const { u32: words, f32: floats } = state.memory;
  at = table.ptr >> 2;
  for (let i = 0; i < list.length; i++) {
    const skipped = SKIP_UNPOSED(owned, list[i]);
    for (const chain of owned.ik[list[i]]!) {
      chain.reached = false;
      chain.distance = NaN;
      if (skipped || !chain.target || !(chain.weight > 0)) continue;
      chain.reached = words[at + IKField.REACHED] === 1;
      chain.distance = floats[at + IKField.DISTANCE];
      at += IK_JOB_WORDS;
    }
  }
}
