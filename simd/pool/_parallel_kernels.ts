/**
 * The batch kernels split across a pool's threads: a batch call's job rows
 * are cut into a few contiguous chunks per thread, balanced by cost
 * (influences times streams for skinning, joints for the rest), which the
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

/** Cost of job row `at` (an index into `u32`) of a call whose extra arguments are `rest`. */
type RowCost = (u32: Uint32Array, at: number, rest: readonly number[]) => number;

const word = (offset: number): RowCost => (u32, at) => u32[at + offset];

/** Influences times streams of a skinning row, at the call's influence cap. */
const skinCost: RowCost = (u32, at, rest) => {
  const maxInfluences = rest[0];
  const parts = u32[at + SKIN_PARTS] >> 2, partCount = u32[at + SKIN_PART_COUNT];
  const flags = u32[at + SKIN_FLAGS];
  const streams = 1 + (flags & SKIN_NORMALS ? 1 : 0) + (flags & SKIN_TANGENTS ? 1 : 0);
  let cost = 0;
  for (let p = 0; p < partCount; p++) {
    cost += (Math.min(u32[parts + 2 * p], maxInfluences) + 1) * u32[parts + 2 * p + 1];
  }
  return cost * streams;
};

/** Every batch kernel and the cost of one of its rows. */
export const ROW_COSTS: Record<BatchName, RowCost> = {
  firstBeyondBatch: word(SCAN_COUNT),
  quatToMatBatch: word(CONVERT_COUNT),
  matToQuatBatch: word(CONVERT_COUNT),
  localToModelBatch: word(HIERARCHY_COUNT),
  modelToLocalBatch: word(HIERARCHY_COUNT),
  multiplyMatricesBatch: word(MULTIPLY_COUNT),
  multiplyMatricesCheckedBatch: word(MULTIPLY_COUNT),
  blendPosesBatch: word(BLEND_JOINT_COUNT),
  sampleCompactBatch: (u32, at) => u32[at + SAMPLE_GROUP_COUNT] * 4,
  skinPositionsBatch: (u32, at, rest) => u32[at + POSITIONS_VERTEX_COUNT] * rest[0],
  skinVerticesBatch: skinCost,
  skinDualQuaternionsBatch: skinCost,
};

/**
 * Below these total costs (in each kernel's own units: floats scanned,
 * joints, influences × streams) a batch call runs on the calling thread
 * alone: a split must pay for several synchronisations. Each is set to
 * about the same time of work on one thread; the unit costs behind them are in
 * `docs/performance_notes.md`. Only tests lower them, to split small
 * scenes.
 */
export const minSplitCost: Record<BatchName, number> = {
  firstBeyondBatch: 1 << 21,
  quatToMatBatch: 16384,
  matToQuatBatch: 16384,
  localToModelBatch: 16384,
  modelToLocalBatch: 16384,
  multiplyMatricesBatch: 16384,
  multiplyMatricesCheckedBatch: 16384,
  blendPosesBatch: 16384,
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
export const BATCH_NAMES: readonly BatchName[] = Object.keys(ROW_COSTS) as BatchName[];

/**
 * Rows that must run after the row before them on the same thread: a
 * sample blended into the pose the row before wrote (job word 5,
 * `blendInto`, is not 0).
 */
const JOINED: Partial<Record<BatchName, (u32: Uint32Array, at: number) => boolean>> = {
  sampleCompactBatch: (u32, at) => u32[at + SAMPLE_BLEND_INTO] !== 0,
};

/**
 * Cuts `count` rows into `threads` contiguous runs of about equal cost:
 * returns the `threads + 1` run boundaries. A row goes to the run where
 * the middle of its cost falls, except that the first row always goes to
 * the calling thread's run (a task it keeps costs no synchronisation), and
 * a row `joined` says so goes to the run of the row before it. With a
 * `head`, the calling thread has that much other work first: its run is
 * shorter by it, and may be empty.
 */
export function balance(
  costs: ArrayLike<number>,
  threads: number,
  joined?: (row: number) => boolean,
  head = 0,
): number[] {
  let total = head;
  for (let i = 0; i < costs.length; i++) total += costs[i];
  const bounds = [0];
  let before = head;
  for (let i = 0; i < costs.length; i++) {
    const middle = before + costs[i] / 2;
    const cut = (i > 0 || head > 0) && !joined?.(i);
    while (cut && bounds.length < threads && middle > (total * bounds.length) / threads) {
      bounds.push(i);
    }
    before += costs[i];
  }
  while (bounds.length <= threads) bounds.push(costs.length);
  return bounds;
}

/**
 * `count` rows of `costs` cut into at most `chunks` contiguous chunks of
 * about equal cost, `joined` rows kept with the row before them: the chunk
 * boundaries, none empty.
 */
export function chunkBounds(
  costs: ArrayLike<number>,
  chunks: number,
  joined?: (row: number) => boolean,
): number[] {
  const bounds = balance(costs, Math.max(1, Math.min(chunks, costs.length)), joined);
  return bounds.filter((bound, i) => i === 0 || bound !== bounds[i - 1]);
}

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
    const cost = ROW_COSTS[name];
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
      const u32 = memory.views().u32;
      const extra = b !== undefined ? 2 : a !== undefined ? 1 : 0;
      rest.length = extra;
      if (extra > 0) rest[0] = a!;
      if (extra > 1) rest[1] = b!;
      if (costs.length < count) costs = new Float64Array(count * 2);
      let total = 0;
      for (let i = 0; i < count; i++) {
        total += costs[i] = cost(u32, (jobs >> 2) + i * JOB_WORDS, rest);
      }
      if (total < minSplitCost[name]) return callSerial(serial, jobs, count, a, b);
      chunkBoundsInto(bounds, costs, count, pool.maxChunks, join, u32, jobs >> 2);
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
 * {@linkcode chunkBounds} of the first `count` costs into `out`, with rows joined where `join` says of
 * the job row at word `(row) * JOB_WORDS + first` of `u32`: no closure, no
 * garbage.
 */
export function chunkBoundsInto(
  out: number[],
  costs: ArrayLike<number>,
  count: number,
  chunks: number,
  join: ((u32: Uint32Array, at: number) => boolean) | undefined,
  u32: Uint32Array,
  first: number,
): void {
  const threads = Math.max(1, Math.min(chunks, count));
  let total = 0;
  for (let i = 0; i < count; i++) total += costs[i];
  // balance() with head 0 (`made`: the bounds it would have), dropping
  // repeated bounds as chunkBounds() does.
  let n = 0, made = 1, before = 0;
  out[n++] = 0;
  for (let i = 0; i < count; i++) {
    const middle = before + costs[i] / 2;
    const cut = i > 0 && !(join !== undefined && join(u32, first + i * JOB_WORDS));
    while (cut && made < threads && middle > (total * made) / threads) {
      if (out[n - 1] !== i) out[n++] = i;
      made++;
    }
    before += costs[i];
  }
  if (out[n - 1] !== count) out[n++] = count;
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
