/**
 * Where a playback's clip is sampled into a pose: the one function that
 * knows the clip format ({@linkcode samplePlayback}), and the job rows of
 * the core's pose blend that it and the layer stage emit.
 *
 * @module
 */

import type { Playback } from "../components/_world.ts";
import type { JobTable } from "../components/_world.ts";
import { wrapTime } from "../animation/clip.ts";
import { JOB_WORDS } from "../simd/_abi.ts";
import type { CoreMemory } from "../simd/_memory.ts";

/** Rows of `blendPosesBatch` (a, b, out, joints, weight), written into a job table. */
export class PoseRows {
  count = 0;
  readonly #table: JobTable;
  readonly #memory: CoreMemory;

  /** Empties `table` and makes room for `capacity` rows. */
  constructor(table: JobTable, memory: CoreMemory, capacity: number) {
    table.begin(capacity, JOB_WORDS);
    this.#table = table;
    this.#memory = memory;
  }

  /** Byte offset of the rows. */
  get ptr(): number {
    return this.#table.ptr;
  }

  /** `out = blend(a, b, weight)` over `joints` joints. */
  blend(a: number, b: number, out: number, joints: number, weight: number): void {
    const { u32, f32 } = this.#memory;
    const at = (this.#table.ptr >> 2) + this.count++ * JOB_WORDS;
    u32[at] = a, u32[at + 1] = b, u32[at + 2] = out, u32[at + 3] = joints;
    f32[at + 4] = weight;
  }
}

/**
 * Samples `playback`'s clip at playback time `time` (before wrapping) into
 * the pose at byte offset `out`, as rows of `rows`. Every sampling of a
 * playback goes through here.
 */
export function samplePlayback(
  rows: PoseRows,
  playback: Playback,
  time: number,
  out: number,
  joints: number,
): void {
  const [a, b, weight] = playback.baked.locate(
    wrapTime(time, playback.baked.duration, playback.wrap),
  );
  rows.blend(a, b, out, joints, weight);
}
