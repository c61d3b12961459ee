/**
 * The pool's wake ahead of a task (a pipeline frame wakes its workers at its
 * start): a worker asleep is woken and goes back to sleep when no task
 * comes; any number of wakes with no task between them leave the next
 * frames bit-identical to the same frames on one thread.
 */
import { assert, assertEquals } from "@std/assert";
import { createAnimationPipeline } from "../mod.ts";
import { Core, createWorkerPool } from "../kernels.ts";
import { coreKernels } from "../simd/memory/_instance.ts";
import { minSplitCost, threadsOf } from "../simd/pool/_parallel_kernels.ts";
import { JOB_BYTES, JOB_WORDS } from "../simd/abi.ts";
import { coreMemory } from "../simd/memory/_instance.ts";
import { bestBuild } from "../simd/wasm/_core.ts";
import { skinnedOutput, waveScene } from "./_workers.ts";
import { assertSameBits, bits } from "./_bits.ts";
import { until } from "./_until.ts";

const BUILD = bestBuild();
const SHAPE = { joints: 16, segments: 8, rings: 40, influences: 4 } as const;

Deno.test("workers: a wake rouses a sleeping worker, and wakes without a task change no frame", async () => {
  const plainScene = waveScene(Core.create(BUILD), 120, SHAPE);
  const plain = createAnimationPipeline();
  using pool = await createWorkerPool({ workers: 2, build: BUILD });
  const threads = threadsOf(coreKernels(pool.core))!.pool;
  const scene = waveScene(pool.core, 120, SHAPE);
  const animate = createAnimationPipeline({ pool });
  for (let round = 0; round < 3; round++) {
    assert(await until(() => threads.sleeps.asleep === 1), "the idle worker sleeps");
    const woken = threads.sleeps.woken;
    threads.wake();
    assert(await until(() => threads.sleeps.woken > woken), `round ${round}: the worker woke`);
    // Wakes while it spins, or asleep again: the claim counter stays beyond every chunk.
    for (let i = 0; i < 10_000; i++) threads.wake();
    for (let frame = 0; frame < 3; frame++) {
      plain(plainScene.world, 1 / 60);
      animate(scene.world, 1 / 60);
      assertSameBits(bits(skinnedOutput(scene)), bits(skinnedOutput(plainScene)), `round ${round}`);
    }
  }
  // Only a worker asleep is woken: no task is out, nothing to claim.
  assertEquals(threads.busy, false);
});

Deno.test("workers: a task wakes a sleeping worker (a spinning one is not notified)", async () => {
  using pool = await createWorkerPool({ workers: 2, build: BUILD });
  const threads = threadsOf(coreKernels(pool.core))!.pool;
  const memory = coreMemory(pool.core), kernels = coreKernels(pool.core);
  // A scan of 8 rows, split however small.
  const data = memory.alloc(8 * 64 * 4), jobs = memory.alloc(8 * JOB_BYTES);
  const u32 = memory.views().u32;
  for (let i = 0; i < 8; i++) {
    u32[(jobs >> 2) + i * JOB_WORDS] = data + i * 64 * 4;
    u32[(jobs >> 2) + i * JOB_WORDS + 1] = 64;
  }
  memory.views().f32[data / 4 + 5 * 64 + 7] = 2e18;
  const threshold = minSplitCost.firstBeyondBatch;
  minSplitCost.firstBeyondBatch = 0;
  try {
    for (let round = 0; round < 3; round++) {
      assert(await until(() => threads.sleeps.asleep === 1), "the idle worker sleeps");
      const woken = threads.sleeps.woken;
      assertEquals(kernels.firstBeyondBatch(jobs, 8, 1e18), 5);
      assert(await until(() => threads.sleeps.woken > woken), `round ${round}: the worker woke`);
    }
  } finally {
    minSplitCost.firstBeyondBatch = threshold;
  }
});
