/**
 * A skinning system's palette scan, when no system checked the palettes
 * just before it (a game calling the skinning systems itself): its rows
 * kept from call to call with the skinning's own, so that a frame scans
 * the palettes without writing a row per entity.
 *
 * @module
 */

import type { JobTable, WorldState } from "../components/internal.ts";
import { JOB_WORDS, SCAN_COUNT, SCAN_PTR } from "../simd/abi.ts";
import { MATRIX_FLOATS } from "../simd/memory/layout.ts";
import { MAX_PALETTE_MAGNITUDE } from "./_select.ts";

/**
 * Whether every palette of `list`'s entities is finite and within ±1e18,
 * scanned with the rows of job table `scan` (written from Marrow's
 * records, so that the scan reads only memory the entities own). False
 * also for an entity without a record (its checks name the fault):
 * `checkPalettes` then sorts out which entity is at fault. `keepable`:
 * `list` is a query's selection (`JobTable.keep`), so the rows are kept
 * for the next calls on it; a component added or removed drops them.
 */
export function palettesInRange(
  state: WorldState,
  list: ArrayLike<number>,
  scan: JobTable,
  keepable: boolean,
): boolean {
  if (!keepable || !scan.holds(list, 1)) {
    scan.begin(list.length, JOB_WORDS);
    const rows = scan.staging(list.length * JOB_WORDS);
    const skeletons = state.owned.skeleton, matrices = state.owned.matrices;
    for (let i = 0, at = 0; i < list.length; i++, at += JOB_WORDS) {
      const eid = list[i], skeleton = skeletons[eid], model = matrices[eid];
      if (skeleton === undefined || model === 0) return false;
      const n = skeleton.jointCount;
      rows[at + SCAN_PTR] = model + n * MATRIX_FLOATS * 4;
      rows[at + SCAN_COUNT] = n * MATRIX_FLOATS;
    }
    scan.commit(list.length * JOB_WORDS);
    if (keepable) scan.keep(list, 1);
  }
  return state.kernels.firstBeyondBatch(scan.ptr, list.length, MAX_PALETTE_MAGNITUDE) < 0;
}
