/**
 * The steady frame allocates nothing, single-threaded on the WebAssembly
 * builds: the zero-allocation test's first file (`_zero_allocation.ts` says
 * what it runs and checks; its other modes are in the other
 * `zero_allocation_*_test.ts` files, so that the runner runs them side by
 * side).
 */
import "../scalar.ts";
import { modeTests } from "./_zero_allocation.ts";

for (
  const test of modeTests((m) => m.threads === "single-thread" && m.build !== "scalar" && !m.lod)
) Deno.test(test);
