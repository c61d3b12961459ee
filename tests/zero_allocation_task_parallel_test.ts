/**
 * The steady frame allocates nothing task-parallel on 2 worker threads
 * (`taskParallel: true`). What it runs and checks: `_zero_allocation.ts`.
 */
import { testModes } from "./_zero_allocation.ts";

testModes((m) => m.threads === "task-parallel" && !m.lod);
