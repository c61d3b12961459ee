/**
 * The steady frame allocates nothing when the game sets every character's
 * level of detail by distance bands each frame, single-threaded and
 * task-parallel. What it runs and checks: `_zero_allocation.ts`.
 */
import { testModes } from "./_zero_allocation.ts";

testModes((m) => m.lod === true);
