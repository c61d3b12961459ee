/**
 * The steady frame allocates nothing on 2 worker threads, each batch call
 * split or not as the split thresholds say, and with every call split.
 * What it runs and checks: `_zero_allocation.ts`.
 */
import { testModes } from "./_zero_allocation.ts";

testModes((m) => m.threads === "workers" || m.threads === "split");
