/**
 * The steady frame allocates nothing on 2 worker threads, each batch call
 * split or not as the split thresholds say, and with every call split.
 * What it runs and checks: `_zero_allocation.ts`.
 */
import { modeTests } from "./_zero_allocation.ts";

for (const test of modeTests((m) => m.threads === "workers" || m.threads === "split")) {
  Deno.test(test);
}
