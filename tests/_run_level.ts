/**
 * The run level of the slow property, fuzz and zero-allocation tests
 * (env `MARROW_TEST_RUNS`), read by the tests (`_arbitrary_numbers.ts`'s
 * `runs`) and by the runner (`_run.ts` keeps each level's file times
 * apart): it imports nothing, so that the runner, which has no import map,
 * can read it too.
 *
 * @module
 */

/** How many cases the slow property and fuzz tests run: env `MARROW_TEST_RUNS`. */
export type RunLevel = "fast" | "middle" | "thorough";

function readRunLevel(): RunLevel {
  let text: string | undefined;
  try {
    text = Deno.env.get("MARROW_TEST_RUNS");
  } catch {
    // No --allow-env: the fast default.
  }
  if (text === undefined || text === "") return "fast";
  if (text === "fast" || text === "middle" || text === "thorough") return text;
  throw new RangeError(`MARROW_TEST_RUNS: expected fast, middle or thorough, got ${text}`);
}

/** The run level: `fast` unless env `MARROW_TEST_RUNS` says `middle` or `thorough` (CI). */
export const RUN_LEVEL: RunLevel = readRunLevel();
