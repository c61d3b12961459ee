/**
 * A claim made after its task ended is no chunk of the next task. A worker
 * that claimed beyond a task's chunks and was descheduled before it
 * checked the claim used to take the index for a chunk of the next task,
 * which the calling thread had claimed too: the chunk ran twice and the
 * count of chunks left went to -1, so the calling thread waited for ever
 * (a zero-allocation child hung so in sessions 37 and 39). Here the worker
 * is held exactly there (the pool's test hold) while the next task starts
 * and runs to its end.
 */
import { assert, assertEquals } from "@std/assert";
import { createWorkerPool } from "../kernels.ts";
import { coreKernels, coreMemory } from "../simd/memory/_instance.ts";
import { threadsOf } from "../simd/pool/_parallel_kernels.ts";
import { JOB_BYTES, JOB_WORDS } from "../simd/abi.ts";
import { bestBuild } from "../simd/wasm/_core.ts";
import { until } from "./_until.ts";

Deno.test("workers: a claim made after its task ended takes no chunk of the next task", async () => {
  using pool = await createWorkerPool({ workers: 2, build: bestBuild() });
  const { pool: threads, serial } = threadsOf(coreKernels(pool.core))!;
  const memory = coreMemory(pool.core);
  // Rows of a scan, one chunk each: its result is the row's first float beyond the limit.
  const rows = 8, floats = 16;
  const data = memory.alloc(rows * floats * 4), jobs = memory.alloc(rows * JOB_BYTES);
  const u32 = memory.views().u32;
  for (let i = 0; i < rows; i++) {
    u32[(jobs >> 2) + i * JOB_WORDS] = data + i * floats * 4;
    u32[(jobs >> 2) + i * JOB_WORDS + 1] = floats;
  }
  const scan = serial.firstBeyondBatch as (...args: number[]) => number;
  const chunk = (row: number) => [jobs + row * JOB_BYTES, 1, 1e18] as const;
  const index = 0; // firstBeyondBatch: the pool's first kernel
  const first = [chunk(0)], second = Array.from({ length: rows }, (_, row) => chunk(row));
  assert(await until(() => threads.sleeps.asleep === 1), "the idle worker sleeps");
  // Task one: the worker is held before it claims, and this thread runs the only chunk.
  threads.holdWorkers(true);
  const woken = threads.sleeps.woken;
  threads.start(index, first);
  assert(await until(() => threads.sleeps.woken > woken), "the worker woke for task one");
  threads.claim(first, scan);
  assertEquals(threads.finish(first), [-1]);
  // Its claim, made now, is beyond task one's chunk: held before the claim is checked.
  threads.holdWorkers(true, true);
  assert(await until(() => threads.heldAfterClaim === 1), "the worker holds a claim of task one");
  // Task two, run to its end by this thread while the worker holds task one's claim.
  threads.start(index, second);
  threads.claim(second, scan);
  threads.holdWorkers(false);
  assert(await until(() => threads.sleeps.asleep === 1), "the worker sleeps again");
  assertEquals(threads.chunksLeft, 0, "each chunk of task two finished once");
  assertEquals(threads.finish(second), new Array(rows).fill(-1));
  assertEquals(threads.localChunks, rows);
});
