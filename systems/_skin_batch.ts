/**
 * A skinning job table's batch calls, one per level of detail and method,
 * and what stores each entity's bounds once they have run: one object per
 * world and table, rewritten every frame (a frame allocates nothing).
 *
 * @module
 */

import { boundsFloats } from "../components/internal.ts";
import type { JobTable } from "../components/internal.ts";
import type { WorldState } from "../components/internal.ts";
import type { SkinJobs } from "./skin.ts";

/** Floats of an entity's bounds: min and max, (x, y, z, w) each. */
export const BOUNDS_FLOATS = 8;

/** A mutable {@linkcode SkinCall}, kept from frame to frame. */
interface SkinCallRecord {
  jobs: number;
  count: number;
  maxInfluences: number;
  dual: boolean;
  bounds: number;
}

/** A job table's {@linkcode SkinJobs}: one object per world and table, its calls reused. */
export class SkinBatch implements SkinJobs {
  static #all = new WeakMap<WorldState, Map<string, SkinBatch>>();
  readonly calls: SkinCallRecord[] = [];
  readonly #state: WorldState;
  #count = 0;
  #skinned: number[] = [];
  #maxEid = 0;
  #withBounds = true;
  #bounds: JobTable | undefined;

  private constructor(state: WorldState) {
    this.#state = state;
  }

  /** The one of job table `table` of `state`. */
  static of(state: WorldState, table: string): SkinBatch {
    let byTable = SkinBatch.#all.get(state);
    if (!byTable) SkinBatch.#all.set(state, byTable = new Map());
    let batch = byTable.get(table);
    if (!batch) byTable.set(table, batch = new SkinBatch(state));
    return batch;
  }

  begin(skinned: number[], maxEid: number, withBounds: boolean, bounds: JobTable): void {
    this.#count = 0;
    this.#skinned = skinned, this.#maxEid = maxEid;
    this.#withBounds = withBounds, this.#bounds = bounds;
  }

  add(jobs: number, first: number, count: number, key: number): void {
    let call = this.calls[this.#count];
    if (!call) {
      this.calls.push(call = { jobs: 0, count: 0, maxInfluences: 0, dual: false, bounds: 0 });
    }
    call.jobs = jobs, call.count = count, call.maxInfluences = key >> 1;
    call.dual = (key & 1) === 1;
    call.bounds = this.#withBounds ? this.#bounds!.ptr + first * BOUNDS_FLOATS * 4 : 0;
    this.#count++;
  }

  end(): void {
    if (this.calls.length !== this.#count) this.calls.length = this.#count;
  }

  publish(): void {
    const skinned = this.#skinned;
    const stored = boundsFloats(this.#state, this.#maxEid);
    if (!this.#withBounds) {
      for (let i = 0; i < skinned.length; i++) {
        stored.fill(NaN, skinned[i] * BOUNDS_FLOATS, (skinned[i] + 1) * BOUNDS_FLOATS);
      }
      return;
    }
    // Consecutive entities (a crowd added at once): their bounds are one
    // block, copied from the core's memory in one call.
    const count = skinned.length, first = count > 0 ? skinned[0] : 0;
    let consecutive = count > 0;
    for (let i = 1; consecutive && i < count; i++) consecutive = skinned[i] === first + i;
    const block = consecutive ? this.#bounds!.floatsView(count * BOUNDS_FLOATS) : undefined;
    if (block !== undefined) {
      stored.set(block, first * BOUNDS_FLOATS);
      return;
    }
    // Unrolled copies per entity (a loop over the 8 floats measured 4 % of a
    // frame of 1,000 small characters), from one copy of the whole table:
    // reads from the core's resizable buffer cost more.
    const f32 = this.#bounds!.readBackFloats(skinned.length * BOUNDS_FLOATS);
    for (let i = 0; i < skinned.length; i++) {
      const to = skinned[i] * BOUNDS_FLOATS, from = i * BOUNDS_FLOATS;
      stored[to] = f32[from];
      stored[to + 1] = f32[from + 1];
      stored[to + 2] = f32[from + 2];
      stored[to + 3] = f32[from + 3];
      stored[to + 4] = f32[from + 4];
      stored[to + 5] = f32[from + 5];
      stored[to + 6] = f32[from + 6];
      stored[to + 7] = f32[from + 7];
    }
  }
}
