/**
 * The batch kernels split across a pool's threads: a batch call's job rows
 * are cut into contiguous chunks by cost (influences times streams for
 * skinning, joints for the rest), large ones first, which the
 * threads, the calling thread included, claim one at a time until none is
 * left; the call returns when every chunk is done: one synchronisation per
 * batch call, so one per system. A thread the system deschedules leaves its
 * chunks to the others instead of holding the frame up by a whole share. Each row is computed by the same kernel code whichever thread
 * runs it, and rows never share output, so the result is bit-identical to
 * the single-threaded call. The one exception, a `sampleCompactBatch` row
 * that blends its sample into the pose the row before it wrote (a
 * cross-fade, a 1D blend's pair; each row samples through its own
 * playback's cache), is kept in that row's chunk. Calls too small to pay for the
 * synchronisation run on the calling thread alone.
 *
 * @module
 */

import {
  BLEND_JOINT_COUNT,
  CONVERT_COUNT,
  type CoreKernels,
  HIERARCHY_COUNT,
  JOB_BYTES,
  JOB_WORDS,
  MULTIPLY_COUNT,
  POSITIONS_VERTEX_COUNT,
  SAMPLE_BLEND_INTO,
  SAMPLE_GROUP_COUNT,
  SCAN_COUNT,
  SKIN_FLAGS,
  SKIN_NORMALS,
  SKIN_PART_COUNT,
  SKIN_PARTS,
  SKIN_TANGENTS,
} from "../abi.ts";
import type { CoreMemory } from "../memory/internal.ts";
import type { Share, ThreadPool } from "./_pool.ts";

/** Bytes of a skinning job's bounds (min xyzw, max xyzw). */
const BOUNDS_BYTES = 32;

export type BatchName =
  | "firstBeyondBatch"
  | "quatToMatBatch"
  | "matToQuatBatch"
  | "localToModelBatch"
  | "modelToLocalBatch"
  | "multiplyMatricesBatch"
  | "multiplyMatricesCheckedBatch"
  | "blendPosesBatch"
  | "sampleCompactBatch"
  | "skinPositionsBatch"
  | "skinVerticesBatch"
  | "skinDualQuaternionsBatch";

/**
 * Where a row's cost is one word of its job row times a scale: the word,
 * and the scale (0: the call's influence cap). Skinning rows with parts
 * (`skinVerticesBatch`, `skinDualQuaternionsBatch`) are not listed: their
 * cost sums their parts.
 */
const COST_WORDS: Partial<Record<BatchName, readonly [word: number, scale: number]>> = {
  firstBeyondBatch: [SCAN_COUNT, 1],
  quatToMatBatch: [CONVERT_COUNT, 1],
  matToQuatBatch: [CONVERT_COUNT, 1],
  localToModelBatch: [HIERARCHY_COUNT, 1],
  modelToLocalBatch: [HIERARCHY_COUNT, 1],
  multiplyMatricesBatch: [MULTIPLY_COUNT, 1],
  multiplyMatricesCheckedBatch: [MULTIPLY_COUNT, 1],
  blendPosesBatch: [BLEND_JOINT_COUNT, 1],
  sampleCompactBatch: [SAMPLE_GROUP_COUNT, 4],
  skinPositionsBatch: [POSITIONS_VERTEX_COUNT, 0],
};

const fixedViews = new WeakMap<ArrayBufferLike, Uint32Array>();

/**
 * A view of the words of `u32`'s memory at its current length, kept per
 * buffer (made again only after the memory grew). The core's own views of
 * a growable shared memory track its length, and each of their reads
 * costs about ten times a fixed-length view's (58 against 6 ns measured,
 * on this machine at load 5): the row-cost pass reads a word or three
 * per row of every split call, on the calling thread.
 */
export function fixedWords(u32: Uint32Array): Uint32Array {
  const buffer = u32.buffer;
  let view = fixedViews.get(buffer);
  if (view === undefined || view.length !== buffer.byteLength >> 2) {
    view = new Uint32Array(buffer, 0, buffer.byteLength >> 2);
    fixedViews.set(buffer, view);
  }
  return view;
}

/**
 * Writes the costs of the `count` job rows of a call of `name` (the job
 * table at byte `jobs` of `u32`'s memory, at influence cap
 * `maxInfluences` for skinning) into `costs`: their total. Each kernel's
 * loop reads its rows directly (no call per row): this runs on the calling
 * thread before every split, so it is part of the frame's serial share.
 */
export function rowCostsInto(
  name: BatchName,
  costs: Float64Array,
  u32: Uint32Array,
  jobs: number,
  count: number,
  maxInfluences: number,
): number {
  const words = COST_WORDS[name];
  if (words === undefined) return skinCostsInto(costs, u32, jobs >> 2, count, maxInfluences);
  const scale = words[1] === 0 ? maxInfluences : words[1];
  let total = 0;
  for (let i = 0, at = (jobs >> 2) + words[0]; i < count; i++, at += JOB_WORDS) {
    total += costs[i] = u32[at] * scale;
  }
  return total;
}

/**
 * Influences times streams of each skinning row (parts of up to the cap's
 * influences): rows of one skin share its parts table, whose cost is
 * summed once for a run of such rows.
 */
function skinCostsInto(
  costs: Float64Array,
  u32: Uint32Array,
  first: number,
  count: number,
  maxInfluences: number,
): number {
  let total = 0, lastParts = -1, lastCount = -1, lastFlags = -1, cost = 0;
  for (let i = 0, at = first; i < count; i++, at += JOB_WORDS) {
    const parts = u32[at + SKIN_PARTS] >> 2, partCount = u32[at + SKIN_PART_COUNT];
    const flags = u32[at + SKIN_FLAGS];
    if (parts !== lastParts || partCount !== lastCount || flags !== lastFlags) {
      const streams = 1 + (flags & SKIN_NORMALS ? 1 : 0) + (flags & SKIN_TANGENTS ? 1 : 0);
      cost = 0;
      for (let p = 0; p < partCount; p++) {
        cost += (Math.min(u32[parts + 2 * p], maxInfluences) + 1) * u32[parts + 2 * p + 1];
      }
      cost *= streams;
      lastParts = parts, lastCount = partCount, lastFlags = flags;
    }
    total += costs[i] = cost;
  }
  return total;
}

/**
 * Below these total costs (in each kernel's own units: floats scanned,
 * joints, influences × streams) a batch call runs on the calling thread
 * alone: a split must pay for its synchronisation (a few µs). The scans
 * and the joint kernels' are about 20 µs of work on one thread, the
 * skinning's about 100 µs; the unit costs behind them are in
 * `docs/performance_notes.md`. Only tests lower them, to split small
 * scenes.
 */
export const minSplitCost: Record<BatchName, number> = {
  // 0.07-0.17 ns a float: a crowd's pose scan (2,000 Foxes: 480,000 floats) splits.
  firstBeyondBatch: 1 << 18,
  // About 5 ns a joint: the README scene's joint systems (6,400 joints) split.
  quatToMatBatch: 4096,
  matToQuatBatch: 4096,
  localToModelBatch: 4096,
  modelToLocalBatch: 4096,
  multiplyMatricesBatch: 4096,
  multiplyMatricesCheckedBatch: 4096,
  blendPosesBatch: 4096,
  sampleCompactBatch: 16384,
  skinPositionsBatch: 1 << 18,
  skinVerticesBatch: 1 << 18,
  skinDualQuaternionsBatch: 1 << 18,
};

/** Kernels that return the first row they found (or -1): a split call returns the lowest. */
const FIRST_FOUND: ReadonlySet<BatchName> = new Set([
  "firstBeyondBatch",
  "multiplyMatricesCheckedBatch",
]);

/** The kernel names a pool's workers serve, in the order tasks refer to them. */
export const BATCH_NAMES: readonly BatchName[] = Object.keys(minSplitCost) as BatchName[];

/**
 * Rows that must run after the row before them on the same thread: a
 * sample blended into the pose the row before wrote (job word 5,
 * `blendInto`, is not 0).
 */
const JOINED: Partial<Record<BatchName, (u32: Uint32Array, at: number) => boolean>> = {
  sampleCompactBatch: (u32, at) => u32[at + SAMPLE_BLEND_INTO] !== 0,
};

/** `base`'s kernels with the batch kernels split across `pool`. */
export function parallelKernels(
  base: CoreKernels,
  memory: CoreMemory,
  pool: ThreadPool,
): CoreKernels {
  const kernels: CoreKernels = { ...base };
  // Grown, never shrunk: rows' costs of the call being split.
  let costs = new Float64Array(64);
  BATCH_NAMES.forEach((name, index) => {
    const serial = base[name] as (jobs: number, count: number, ...rest: number[]) => number;
    // Made once per kernel and rewritten by every call: a split call allocates nothing.
    const rest = taggedNumbers(), bounds: number[] = [];
    const chunks: Share[] = [], args: number[][] = [];
    const join = JOINED[name];
    // At most two arguments after the rows (the skinning's level of detail
    // and bounds): fixed parameters, since a rest parameter is an array a call.
    const parallel = (jobs: number, count: number, a?: number, b?: number): number => {
      // While a task is out (a task-parallel frame's skinning), this
      // thread's kernels run here alone.
      if (pool.closed || pool.busy || count < 2) return callSerial(serial, jobs, count, a, b);
      const u32 = fixedWords(memory.views().u32);
      const extra = b !== undefined ? 2 : a !== undefined ? 1 : 0;
      rest.length = extra;
      if (extra > 0) rest[0] = a!;
      if (extra > 1) rest[1] = b!;
      if (costs.length < count) costs = new Float64Array(count * 2);
      const total = rowCostsInto(name, costs, u32, jobs, count, extra > 0 ? a! : 0);
      if (total < minSplitCost[name]) return callSerial(serial, jobs, count, a, b);
      chunkBoundsInto(bounds, costs, count, pool.threads, pool.maxChunks, join, u32, jobs >> 2);
      sharesInto(chunks, args, name, bounds, jobs, rest);
      const results = pool.run(index, chunks, serial);
      if (!FIRST_FOUND.has(name)) return 0;
      // The first row found, in row order: the first chunk that found one.
      for (let c = 0; c < results.length; c++) {
        if (results[c] >= 0) return bounds[c] + results[c];
      }
      return -1;
    };
    (kernels as unknown as Record<string, unknown>)[name] = parallel;
  });
  threadsOfKernels.set(kernels, { pool, serial: base });
  return kernels;
}

/**
 * An empty array whose elements stay tagged values: a float argument stored
 * in it is the very number the caller passed, and reading it back to call a
 * kernel boxes nothing (in an array of doubles, V8 stores it unboxed and
 * boxes a new number at each read, one per chunk of a split call).
 */
export function taggedNumbers(): number[] {
  const array: unknown[] = [null];
  array.length = 0;
  return array as number[];
}

/** `serial` called with as many arguments as it was given: its own arity, nothing boxed. */
function callSerial(
  serial: (jobs: number, count: number, ...rest: number[]) => number,
  jobs: number,
  count: number,
  a: number | undefined,
  b: number | undefined,
): number {
  if (b !== undefined) return serial(jobs, count, a!, b);
  if (a !== undefined) return serial(jobs, count, a);
  return serial(jobs, count);
}

/**
 * Cuts the first `count` rows of `costs` into at most `maxChunks`
 * contiguous chunks for `threads` threads, into `out` (the chunk
 * boundaries, none empty): guided, each chunk about the larger of
 * `1 / (2 × threads)` of the cost not yet cut and an even share of it over
 * the chunks left. The threads claim chunks in order, so the large ones go
 * first and the last few are small: when one thread runs out of chunks,
 * the others are at most a small chunk from done (chunks of equal cost
 * leave half a chunk, on average, to wait for). A row goes to the chunk
 * where the middle of its cost falls, except that a row `join` says so
 * (of the job row at word `first + row * JOB_WORDS` of `u32`) stays in the
 * chunk of the row before it. No closure, no garbage.
 */
export function chunkBoundsInto(
  out: number[],
  costs: ArrayLike<number>,
  count: number,
  threads: number,
  maxChunks: number,
  join: ((u32: Uint32Array, at: number) => boolean) | undefined,
  u32: Uint32Array,
  first: number,
): void {
  let left = 0;
  for (let i = 0; i < count; i++) left += costs[i];
  const share = 1 / (2 * Math.max(1, threads));
  let n = 0, chunk = 0, target = Math.max(left * share, left / maxChunks);
  out[n++] = 0;
  for (let i = 0; i < count; i++) {
    if (
      i > 0 && n < maxChunks && chunk + costs[i] / 2 > target &&
      !(join !== undefined && join(u32, first + i * JOB_WORDS))
    ) {
      out[n++] = i;
      left -= chunk, chunk = 0;
      // n - 1 chunks are closed: the open one and those after it share what is left.
      target = Math.max(left * share, left / (maxChunks - n + 1));
    }
    chunk += costs[i];
  }
  if (count > 0) out[n++] = count;
  out.length = n;
}

/**
 * The arguments of each chunk of a call of `name` cut at `bounds`, into
 * `out`, each share's array kept in `args` from call to call.
 */
export function sharesInto(
  out: Share[],
  args: number[][],
  name: BatchName,
  bounds: readonly number[],
  jobs: number,
  rest: readonly number[],
): void {
  out.length = bounds.length - 1;
  for (let t = 0; t + 1 < bounds.length; t++) {
    const first = bounds[t], rows = bounds[t + 1] - first;
    const share = args[t] ??= taggedNumbers();
    share.length = 2 + rest.length;
    share[0] = jobs + first * JOB_BYTES, share[1] = rows;
    for (let r = 0; r < rest.length; r++) share[2 + r] = rest[r];
    // The skinning bounds table runs beside the job table, one entry per row.
    if (name.startsWith("skin") && rest[1]) share[3] = rest[1] + first * BOUNDS_BYTES;
    out[t] = share;
  }
}

/** The pool and the unsplit kernels behind split kernels. */
interface SplitKernels {
  readonly pool: ThreadPool;
  readonly serial: CoreKernels;
}

const threadsOfKernels = new WeakMap<CoreKernels, SplitKernels>();

/** The pool behind `kernels` when {@linkcode parallelKernels} made them and it is open. */
export function threadsOf(kernels: CoreKernels): SplitKernels | undefined {
  const split = threadsOfKernels.get(kernels);
  return split && !split.pool.closed && split.pool.threads > 1 ? split : undefined;
}
