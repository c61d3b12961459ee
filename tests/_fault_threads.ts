/**
 * What the fault tests share: an entity's published outputs, their
 * bit-for-bit comparison, and the thread modes a fault test runs in (the
 * calling thread, 2 workers with every batch split, task-parallel).
 *
 * @module
 */
import {
  type AnimationPipeline,
  createAnimationPipeline,
  getModelMatrices,
  getSkinnedNormals,
  getSkinnedPositions,
  getSkinningPalette,
} from "../mod.ts";
import { Core, type CoreBuild, createWorkerPool, type WorkerPool } from "../kernels.ts";
import { assertEquals } from "@std/assert";
import { BATCH_NAMES, minSplitCost } from "../simd/pool/_parallel_kernels.ts";

/** What an entity publishes, copied: its joints' matrices, and its skinned streams. */
export function outputs(
  world: object,
  eid: number,
): { joints: Float32Array[]; skin: Float32Array[] } {
  const normals = getSkinnedNormals(world, eid);
  return {
    joints: [getModelMatrices(world, eid).slice(), getSkinningPalette(world, eid).slice()],
    skin: [getSkinnedPositions(world, eid).slice(), ...(normals ? [normals.slice()] : [])],
  };
}

export function assertSameBits(
  actual: Float32Array[],
  expected: Float32Array[],
  what: string,
): void {
  assertEquals(actual.length, expected.length, what);
  actual.forEach((array, i) => {
    const a = new Uint32Array(array.buffer, array.byteOffset, array.length);
    const e = new Uint32Array(expected[i].buffer, expected[i].byteOffset, expected[i].length);
    for (let k = 0; k < a.length; k++) {
      if (a[k] !== e[k]) {
        throw new Error(`${what}: output ${i}[${k}]: ${array[k]} != ${expected[i][k]}`);
      }
    }
  });
}

export type Threads = "calling thread" | "2 workers" | "task-parallel";
export const THREADS: readonly Threads[] = ["calling thread", "2 workers", "task-parallel"];

export async function withThreads(
  build: CoreBuild,
  threads: Threads,
  run: (core: Core, pipeline: () => AnimationPipeline) => Promise<void>,
): Promise<void> {
  if (threads === "calling thread") {
    return run(Core.create(build), () => createAnimationPipeline());
  }
  // The scalar build has no shared memory: its pool is the calling thread.
  const pool: WorkerPool = await createWorkerPool({ workers: 2, build });
  const thresholds = { ...minSplitCost };
  // Every batch split across the threads, however small.
  for (const name of BATCH_NAMES) minSplitCost[name] = 0;
  try {
    await run(
      pool.core,
      () => createAnimationPipeline({ pool, taskParallel: threads === "task-parallel" }),
    );
  } finally {
    Object.assign(minSplitCost, thresholds);
    pool.close();
  }
}

/**
 * Frame `frame` of a fault test on `world`: awaited (`animate.async`) on
 * the odd frames when worker threads run it, else blocking.
 */
export async function runFrame(
  animate: AnimationPipeline,
  world: object,
  threads: Threads,
  frame: number,
  deltaSeconds = 1 / 60,
): Promise<void> {
  if (threads !== "calling thread" && frame % 2 === 1) await animate.async(world, deltaSeconds);
  else animate(world, deltaSeconds);
}
