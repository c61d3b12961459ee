/**
 * The steady frame allocates nothing on the scalar build (single-threaded:
 * a pool of the scalar build is single-threaded). What it runs and checks:
 * `_zero_allocation.ts`.
 */
import { testModes } from "./_zero_allocation.ts";

testModes((m) => m.build === "scalar");
