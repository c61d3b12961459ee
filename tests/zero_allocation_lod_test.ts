/**
 * The steady frame allocates nothing when the game sets every character's
 * level of detail by distance bands each frame, single-threaded and
 * task-parallel. What it runs and checks: `_zero_allocation.ts`.
 */
import { modeTests } from "./_zero_allocation.ts";

for (const test of modeTests((m) => m.lod === true)) Deno.test(test);
