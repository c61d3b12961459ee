/**
 * The steady frame allocates nothing on the scalar build (single-threaded:
 * a pool of the scalar build is single-threaded). What it runs and checks:
 * `_zero_allocation.ts`.
 */
import "../scalar.ts";
import { modeTests } from "./_zero_allocation.ts";

for (const test of modeTests((m) => m.build === "scalar")) Deno.test(test);
