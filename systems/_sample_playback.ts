/**
 * Where a playback's clip is sampled into a pose: the one function that
 * knows the clip format ({@linkcode samplePlayback}), and the job rows of
 * the core's `sampleCompactBatch` that it writes.
 *
 * @module
 */

import type { JobTable, Playback } from "../components/_world.ts";
import { wrapTime } from "../animation/clip.ts";
import { JOB_WORDS } from "../simd/_abi.ts";
import type { CoreMemory } from "../simd/_memory.ts";

/** Rows of `sampleCompactBatch`, written into a job table. */
export class SampleRows {
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

  /** Word index of the next row, counted as written. */
  next(): number {
    return (this.#table.ptr >> 2) + this.count++ * JOB_WORDS;
  }

  /** The core's memory, whose views the rows are written through. */
  get memory(): CoreMemory {
    return this.#memory;
  }
}

/** A pose that a sample is blended into by a weight, in the same core call. */
export interface BlendInto {
  /** Byte offset of the pose blended, which the blend overwrites. */
  readonly into: number;
  /** Weight of the sample: 0 keeps `into`, 1 is the sample. */
  readonly weight: number;
}

/**
 * Samples `playback`'s clip at playback time `time` (before wrapping) into
 * the pose at byte offset `out` through the playback's sampler (its cache),
 * as a row of `rows`; with `blend`, the kernel then blends pose
 * `blend.into` toward that sample by `blend.weight` (a cross-fade, a 1D
 * blend's pair). Rows run in order, so a blend row may read the pose an
 * earlier row wrote. Every sampling of a playback goes through here.
 */
export function samplePlayback(
  rows: SampleRows,
  playback: Playback,
  time: number,
  out: number,
  blend?: BlendInto,
): void {
  const { u32, f32 } = rows.memory;
  const clipTime = wrapTime(time, playback.compact.duration, playback.wrap);
  playback.sampler!.emit(
    u32,
    f32,
    rows.next(),
    clipTime,
    out,
    blend?.into ?? 0,
    blend?.weight ?? 0,
  );
}
