/**
 * The steady frame allocates nothing task-parallel on 2 worker threads
 * (`taskParallel: true`). What it runs and checks: `_zero_allocation.ts`.
 */
import { modeTests } from "./_zero_allocation.ts";

for (const test of modeTests((m) => m.threads === "task-parallel" && !m.lod)) Deno.test(test);
