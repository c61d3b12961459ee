/**
 * Where a playback's clip is sampled into a pose: the one function that
 * knows the clip format ({@linkcode samplePlayback}), and the job rows of
 * the core's `sampleCompactBatch` that it writes.
 *
 * @module
 */

import type { JobTable } from "../components/internal.ts";
import type { Playback } from "../components/internal.ts";
import { wrapTimeAt } from "../animation/clip.ts";
import { JOB_WORDS } from "../simd/abi.ts";

/**
 * Rows of `sampleCompactBatch`, written into a job table; one per world,
 * begun again every frame (a frame allocates nothing).
 */
export class SampleRows {
  count = 0;
  /**
   * The playback time (before wrapping) and blend weight of the next
   * {@linkcode samplePlayback}: fields, not arguments, since a double
   * passed to a call the compiler does not inline is boxed (16 bytes a
   * call, per entity per frame).
   */
  time = 0.5;
  weight = 0.5;
  /** `time` wrapped into the clip: where {@linkcode samplePlayback} samples. */
  clipTime = 0.5;
  /**
   * The table's staging array, as words and as floats: rows are written
   * there, then copied into the core at once ({@linkcode commit}), an
   * access to the core's resizable buffer costing more than one to a plain
   * array.
   */
  u32: Uint32Array = new Uint32Array(0);
  f32: Float32Array = new Float32Array(0);
  #table: JobTable | undefined;

  /** Rows the table has room for since {@linkcode begin}. */
  #capacity = 0;

  /** Empties `table` and makes room for `capacity` rows. */
  begin(table: JobTable, capacity: number): void {
    this.#capacity = capacity;
    table.begin(capacity, JOB_WORDS);
    this.u32 = table.staging(capacity * JOB_WORDS);
    this.f32 = table.stagingFloats();
    this.#table = table;
    this.count = 0;
  }

  /**
   * Copies the rows written into the table, for the kernel. More rows than
   * counted at `begin` would have the kernel read past the table: the
   * system's count of them (a layer stack's, say) is wrong, and nothing runs.
   */
  commit(): void {
    if (this.count > this.#capacity) {
      throw new Error(`internal: ${this.count} sampling rows written, room for ${this.#capacity}`);
    }
    this.#table!.commit(this.count * JOB_WORDS);
  }

  /** Byte offset of the rows. */
  get ptr(): number {
    return this.#table!.ptr;
  }

  /** Word index of the next row in the staging arrays, counted as written. */
  next(): number {
    return this.count++ * JOB_WORDS;
  }
}

/** A seek's time and duration, for `wrapTimeAt` (as arguments, the doubles would be boxed). */
const wrapping = new Float64Array(2);

/**
 * Samples `playback`'s clip at playback time `rows.time` (before wrapping)
 * into the pose at byte offset `out` through the playback's sampler (its
 * cache), as a row of `rows`; when `into` is not 0, the kernel then blends
 * pose `into` toward that sample by `rows.weight` (0 keeps `into`, 1 is
 * the sample: a cross-fade, a 1D blend's pair), overwriting it. Rows run
 * in order, so a blend row may read the pose an earlier row wrote. Every
 * sampling of a playback goes through here.
 */
export function samplePlayback(rows: SampleRows, playback: Playback, out: number, into = 0): void {
  const sampler = playback.sampler!, time = rows.time, duration = playback.compact.duration;
  // `wrapTimeAt`'s modulo without its call (`ClipSampler.wrapBase`): the
  // difference from a multiple of the duration at most one loop below.
  // 0 is a multiple of every duration.
  let base = sampler.wrapBase, clipTime = time - base;
  const known = base === 0 || sampler.wrapDuration === duration;
  if (clipTime >= duration && known) {
    // The next loop's base, when exact (Fast2Sum: `base` is 0 or >= `duration`).
    const next = base + duration;
    if (next - base === duration) {
      base = sampler.wrapBase = next, sampler.wrapDuration = duration, clipTime = time - base;
    }
  }
  if (!(clipTime >= 0 && clipTime < duration && known && playback.wrap === "loop")) {
    wrapping[0] = time, wrapping[1] = duration;
    wrapTimeAt(wrapping, 0, 1, playback.wrap);
    clipTime = wrapping[0];
    // A seek: the base from here, `time - clipTime` (a multiple of the
    // duration, the modulo being exact), when that subtraction is exact too
    // (Fast2Sum again, `time >= clipTime >= 0`).
    base = time - clipTime;
    if (
      playback.wrap === "loop" && duration > 0 && time >= 0 && time < Infinity &&
      time - base === clipTime
    ) sampler.wrapBase = base, sampler.wrapDuration = duration;
  }
  rows.clipTime = clipTime;
  sampler.emitFrom(rows.u32, rows.f32, rows.next(), rows, out, into);
}
