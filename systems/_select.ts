/**
 * Shared by the systems: the entities a call runs on, and the scan that
 * keeps overflowed palettes from being published.
 *
 * @module
 */

import type { SkeletonAsset } from "../animation/skeleton_asset.ts";
import { MATRIX_ENTITIES, selectEntities } from "../components/internal.ts";
import { checkedMatrices } from "../components/joint_mat.ts";
import { checkedSkeleton } from "../components/skeleton.ts";
import { stateOf } from "../components/internal.ts";
import { PoseError } from "../components/errors.ts";
import type { Owned, WorldState } from "../components/internal.ts";
import { Quarantine } from "../components/internal.ts";
import { lastGoodByteOffset, restoreLastGood } from "../components/joint_mat.ts";
import {
  HIERARCHY_COUNT,
  JOB_WORDS,
  MULTIPLY_COUNT,
  MULTIPLY_KEEP,
  SCAN_COUNT,
  SCAN_PTR,
} from "../simd/abi.ts";
import { MAX_MESH_MAGNITUDE } from "../simd/memory/internal.ts";
import { MATRIX_FLOATS } from "../simd/memory/layout.ts";
import { CHECK_MATRICES, endVouch, storesIntact } from "./_checks.ts";
import { withoutSkipped } from "./_lod.ts";

// The standard selections live with the components: createAnimation
// registers their queries before a world's first frame.
export {
  IK_ENTITIES,
  PLAYING_ENTITIES,
  POSED_ENTITIES,
  SKELETON_ENTITIES,
  SKINNED_ENTITIES,
} from "../components/internal.ts";

/** Entities with a JointMat (and so a Skeleton), or those of `entities`. */
function withMatrices(
  world: object,
  state: WorldState,
  caller: string,
  entities?: ArrayLike<number>,
): ArrayLike<number> {
  return selectEntities(
    world,
    state,
    caller,
    MATRIX_ENTITIES,
    entities,
  );
}

/**
 * Largest magnitude a palette entry may have: with bind meshes below the
 * same bound, every skinned value stays finite.
 */
export const MAX_PALETTE_MAGNITUDE = MAX_MESH_MAGNITUDE;

/**
 * Checks the palettes of `list`'s entities: one that is not finite or
 * beyond ±1e18 (an overflowing pose) is a {@linkcode PoseError}, thrown in
 * the world's `"throw"` fault mode; in the `"isolate"` mode it is recorded
 * for `system`, the entity's JointMat is put back to its last good values
 * and the entity is taken out of `list`, so that no skinned output is
 * computed from it. Returns `list`.
 */
export function checkPalettes(
  state: WorldState,
  list: number[],
  system = "skinSystem",
): number[] {
  const scan = state.jobs("paletteScan");
  scan.begin(list.length, JOB_WORDS);
  const rows = scan.staging(list.length * JOB_WORDS);
  const skeletons = state.owned.skeleton, matrices = state.owned.matrices;
  for (let i = 0, at = 0; i < list.length; i++, at += JOB_WORDS) {
    const eid = list[i];
    // Marrow's own records, not the public stores: the scan reads only
    // memory the entity owns, and the callers check the stores.
    const skeleton = skeletons[eid], model = matrices[eid];
    const n = skeleton && model ? skeleton.jointCount : checkedSkeleton(state, eid).jointCount;
    rows[at + SCAN_PTR] = (model || checkedMatrices(state, eid, n)) + n * MATRIX_FLOATS * 4;
    rows[at + SCAN_COUNT] = n * MATRIX_FLOATS;
  }
  scan.commit(list.length * JOB_WORDS);
  const first = state.kernels.firstBeyondBatch(scan.ptr, list.length, MAX_PALETTE_MAGNITUDE);
  if (first < 0) return list;
  let kept = first;
  for (let i = first; i < list.length; i++) {
    const eid = list[i], error = beyondPalette(state, eid);
    if (!error) {
      list[kept++] = eid;
      continue;
    }
    state.faults.report(eid, system, "JointMat", error.field, error);
    restoreLastGood(state, eid);
  }
  list.length = kept;
  state.faults.notify();
  return list;
}

/**
 * The {@linkcode PoseError} of entity `eid`'s first palette entry that is
 * not finite or beyond ±1e18, or undefined.
 */
function beyondPalette(state: WorldState, eid: number): PoseError | undefined {
  // Marrow's record: the entity's own memory, whatever its stores say.
  const n = state.owned.skeleton[eid]!.jointCount;
  const palette = (state.owned.matrices[eid] >> 2) + n * MATRIX_FLOATS;
  if (state.kernels.firstBeyond(palette << 2, n * MATRIX_FLOATS, MAX_PALETTE_MAGNITUDE) < 0) {
    return undefined;
  }
  const f32 = state.memory.f32;
  for (let k = 0; k < n * MATRIX_FLOATS; k++) {
    const value = f32[palette + k];
    if (!(Math.abs(value) < MAX_PALETTE_MAGNITUDE)) {
      const element = k % MATRIX_FLOATS;
      return new PoseError(
        eid,
        Math.floor(k / MATRIX_FLOATS),
        `m${element >> 2}${element & 3}`,
        value,
        "JointMat",
      );
    }
  }
  return undefined;
}

/**
 * After a checked multiply whose rows were `list`'s entities but those
 * `skip` leaves out, and whose first bad row was `found` (-1: none): each
 * entity with a palette entry not finite or beyond ±1e18 is a
 * {@linkcode PoseError} (thrown in the `"throw"` fault mode; in the
 * `"isolate"` mode recorded for `system` and its JointMat put back to its
 * last good values). The multiply itself saved every other one's model
 * matrices as its last good copy (its rows' `keep` word).
 */
export function settlePalettes(
  state: WorldState,
  list: ArrayLike<number>,
  found: number,
  system: string,
  skip: MatrixSkip,
): void {
  const faults = state.faults, owned = state.owned, resources = state.resources;
  // The last call's flags are lifted, every entity's (that call may have had
  // another list), after a call that put a palette back only.
  const quarantine = owned.quarantine;
  for (let eid = 0; resources.palettesPutBack && eid < quarantine.length; eid++) {
    quarantine[eid] &= ~Quarantine.Palette;
  }
  resources.palettesPutBack = false;
  for (let i = 0, row = 0; found >= 0 && i < list.length; i++) {
    const eid = list[i];
    if (skip(owned, eid) || row++ < found) continue;
    const error = beyondPalette(state, eid);
    if (error) {
      faults.report(eid, system, "JointMat", error.field, error);
      restoreLastGood(state, eid);
      // Its skin was made from another palette when a skinning fault skipped
      // it before: skinned now, it would publish something new at fault.
      quarantine[eid] |= Quarantine.Palette;
      resources.palettesPutBack = true;
      endVouch();
    }
  }
  faults.notify();
}

/** Whether a matrix system leaves entity `eid` out of its rows. */
type MatrixSkip = (owned: Owned, eid: number) => boolean;

/** No entity left out. */
const SKIP_NONE: MatrixSkip = () => false;
/** Entities quarantined for a bad pose (`Quarantine.Pose`). */
export const SKIP_QUARANTINED: MatrixSkip = (owned, eid) =>
  (owned.quarantine[eid] & Quarantine.Pose) !== 0;
/**
 * Entities whose local matrices are not the quat→mat system's: those
 * quarantined, and those without a JointQuat, whose model matrices are the
 * game's (an orphaned JointMat: never compounded).
 */
export const SKIP_UNPOSED: MatrixSkip = (owned, eid) =>
  owned.pose[eid] === 0 || (owned.quarantine[eid] & Quarantine.Pose) !== 0;

/**
 * Writes the first three words of one job row of a matrix system at
 * `u32[at]`, from an entity's blocks. A module-level function, not a
 * closure made per call: the frame allocates nothing.
 */
export type MatrixRow = (
  u32: Uint32Array,
  at: number,
  model: number,
  palette: number,
  skeleton: SkeletonAsset,
) => void;

/** What {@linkcode runMatrixJobs} ran: one object, rewritten by every call. */
interface MatrixJobs {
  state: WorldState;
  list: ArrayLike<number>;
  /** What the kernel returned (the checked multiply's first row beyond its limit), else -1. */
  found: number;
}
const matrixJobs: MatrixJobs = { state: undefined!, list: [], found: -1 };

/**
 * Runs a batch kernel whose rows are three offsets and the joint count,
 * for every entity with a JointMat (or those of `entities`) but those
 * `skip` leaves out, checked. `found`: the checked multiply's first bad
 * row (rows count only the entities not left out), else -1. Entities
 * whose level of detail skips a bit of `lodMask` this frame are left out
 * of the list. The checked
 * multiply's rows get a fifth word, `keep`: the entity's block of last
 * good model matrices in the `"isolate"` fault mode, else 0. Returns an
 * object that the next call rewrites.
 */
export function runMatrixJobs(
  world: object,
  caller: string,
  entities: ArrayLike<number> | undefined,
  kernel: "localToModelBatch" | "modelToLocalBatch" | "multiplyMatricesCheckedBatch",
  row: MatrixRow,
  skip: MatrixSkip = SKIP_NONE,
  lodMask = 0,
): MatrixJobs {
  const state = stateOf(world, caller);
  const selected = withMatrices(world, state, caller, entities);
  const list = withoutSkipped(state, selected, lodMask, kernel);
  // The rows of a query's list, or of one a level of detail keeps, may be kept.
  const keepable = entities === undefined;
  matrixJobs.state = state, matrixJobs.list = list, matrixJobs.found = -1;
  if (list.length === 0) return matrixJobs;
  const table = state.jobs(kernel);
  const owned = state.owned, isolates = state.faults.isolates;
  // The checked multiply's rows hold the last good block in the "isolate" mode only.
  const variant = isolates ? 2 : 1;
  if (
    keepable && table.holds(list, variant) &&
    storesIntact(state, list, CHECK_MATRICES)
  ) {
    // Every entity's row is as this system wrote it last, and its checks cannot fail.
    return runMatrixKernel(state, kernel, table.ptr, list.length);
  }
  table.begin(list.length, JOB_WORDS);
  const countWord = kernel === "multiplyMatricesCheckedBatch" ? MULTIPLY_COUNT : HIERARCHY_COUNT;
  let faulted = false;
  let u32 = state.memory.u32;
  let rows = 0;
  for (let i = 0; i < list.length; i++) {
    const eid = list[i];
    if (skip(owned, eid)) continue;
    const at = (table.ptr >> 2) + rows++ * JOB_WORDS;
    let n = 0, model = 0;
    try {
      const skeleton = checkedSkeleton(state, eid);
      n = skeleton.jointCount;
      model = checkedMatrices(state, eid, n);
      row(u32, at, model, model + n * MATRIX_FLOATS * 4, skeleton);
    } catch (error) {
      // Isolated: an empty row (computes and saves nothing), so that the
      // rows still match settlePalettes' count.
      state.faults.isolate(eid, caller, error);
      n = 0, model = 0, faulted = true;
      if (kernel === "multiplyMatricesCheckedBatch" && owned.skeleton[eid] && owned.matrices[eid]) {
        // A write through a JointMat view since the last frame is undone,
        // as for a bad palette (it may grow the memory: fresh view).
        restoreLastGood(state, eid);
        u32 = state.memory.u32;
      }
    }
    u32[at + countWord] = n;
    u32[at + MULTIPLY_KEEP] = isolates && n && kernel === "multiplyMatricesCheckedBatch"
      ? lastGoodByteOffset(model, n)
      : 0;
  }
  if (rows === 0) return matrixJobs;
  // A row per entity of the query, none empty: kept for the next calls.
  if (keepable && rows === list.length && !faulted) table.keep(list, variant);
  return runMatrixKernel(state, kernel, table.ptr, rows);
}

/** Runs `kernel` on `rows` rows at byte `ptr`; `matrixJobs.found` gets what it found. */
function runMatrixKernel(
  state: WorldState,
  kernel: "localToModelBatch" | "modelToLocalBatch" | "multiplyMatricesCheckedBatch",
  ptr: number,
  rows: number,
): MatrixJobs {
  // The checked multiply's limit; the other two kernels take no third argument,
  // and are not given one (a call of another arity boxes its arguments).
  matrixJobs.found = kernel === "multiplyMatricesCheckedBatch"
    ? state.kernels[kernel](ptr, rows, MAX_PALETTE_MAGNITUDE)
    : (state.kernels[kernel](ptr, rows), -1);
  return matrixJobs;
}
