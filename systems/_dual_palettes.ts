/**
 * The palettes a skinning's rows read: as they are, or turned into dual
 * quaternions (for dual-quaternion skins) in a job table of their own.
 *
 * @module
 */

import { convertToDualQuaternions, DUAL_QUATERNION_FLOATS } from "../simd/kernels/internal.ts";
import { DualQuaternionError } from "../components/skin.ts";
import type { WorldState } from "../components/internal.ts";
import type { PaletteSource } from "./skin.ts";

/** The palettes as they are, or turned into dual quaternions in a table of their own. */
export class DualPalettes implements PaletteSource {
  static #all = new WeakMap<WorldState, Map<string, DualPalettes>>();
  readonly #state: WorldState;
  readonly #table: string;
  #at = 0;

  private constructor(state: WorldState, table: string) {
    this.#state = state;
    this.#table = table;
  }

  /** The one for job table `table` of `state`. */
  static of(state: WorldState, table: string): DualPalettes {
    let byTable = DualPalettes.#all.get(state);
    if (!byTable) DualPalettes.#all.set(state, byTable = new Map());
    let palettes = byTable.get(table);
    if (!palettes) byTable.set(table, palettes = new DualPalettes(state, table));
    return palettes;
  }

  size(dualJoints: number): void {
    const dual = this.#state.jobs(this.#table);
    if (dualJoints) dual.begin(dualJoints, DUAL_QUATERNION_FLOATS);
    this.#at = dual.ptr;
  }

  at(eid: number, n: number, isDual: boolean, palette: number): number {
    if (!isDual) return palette;
    const at = this.#at;
    this.#at += n * DUAL_QUATERNION_FLOATS * 4;
    return toDualQuaternions(this.#state, eid, palette, n, at);
  }
}

/**
 * @internal Writes entity `eid`'s palette (`n` joints at byte `palette`)
 * as dual quaternions at byte `at`; a {@linkcode DualQuaternionError} when
 * a joint's matrix is not a rotation and translation. Returns `at`.
 */
export function toDualQuaternions(
  state: WorldState,
  eid: number,
  palette: number,
  n: number,
  at: number,
): number {
  const f32 = state.memory.f32;
  const bad = convertToDualQuaternions(f32, palette >> 2, n, f32, at >> 2);
  if (bad >= 0) throw new DualQuaternionError(eid, bad);
  return at;
}
