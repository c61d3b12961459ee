/**
 * Seeded fast-check runs and numbers for the kernel tests: the seed
 * (`MARROW_SEED` or a fixed value, so that runs are reproducible; a failure
 * message names it), run parameters, a coverage-checking runner, one
 * deterministic sample, and uniform or edge-biased reals.
 *
 * @module
 */

import fc from "fast-check";
import { fail } from "@std/assert";
import { RUN_LEVEL } from "./_run_level.ts";

function readSeed(): number {
  let text: string | undefined;
  try {
    text = Deno.env.get("MARROW_SEED");
  } catch {
    // No --allow-env: keep the fixed seed.
  }
  if (text === undefined || text === "") return 0x4d617277;
  const seed = Number(text);
  if (!Number.isSafeInteger(seed)) {
    throw new RangeError(`MARROW_SEED: expected an integer, got ${text}`);
  }
  return seed | 0;
}

/** Seed of every fast-check run (env `MARROW_SEED`, else a fixed value). */
export const SEED: number = readSeed();
/** Cases per fast-check property. */
export const RUNS = 1000;

/**
 * The case count of a property or fuzz test: `thorough` at the thorough
 * level (CI), `fast` at the default fast level (`deno task test`), their
 * geometric mean at the middle level. Every property test takes its count
 * from here; a cheap one gives no `fast` and runs `thorough` at every level.
 */
export function runs(thorough: number, fast: number = thorough): number {
  if (RUN_LEVEL === "thorough") return thorough;
  if (RUN_LEVEL === "fast") return Math.min(fast, thorough);
  return Math.min(thorough, Math.ceil(Math.sqrt(fast * thorough)));
}

/**
 * fast-check parameters: seeded, {@linkcode RUNS} cases unless told, `fast`
 * of them at the fast level ({@linkcode runs}).
 */
export function fcParams<T>(numRuns: number = RUNS, fast: number = numRuns): fc.Parameters<T> {
  return { seed: SEED, numRuns: runs(numRuns, fast), endOnFailure: true };
}

/**
 * Checks `property` on batches of `numRuns` seeded cases, the first with
 * {@linkcode SEED} itself, until `uncovered()` (the caller's count of a path
 * the property must take often enough) gives no complaint or `batches` have
 * run, then fails with the complaint left: coverage whatever `MARROW_SEED`
 * draws.
 */
export function assertCovering<Ts extends [unknown, ...unknown[]]>(
  property: fc.IProperty<Ts>,
  numRuns: number,
  uncovered: () => string | undefined,
  batches = 8,
): void {
  for (let batch = 0; batch === 0 || (batch < batches && uncovered()); batch++) {
    fc.assert(property, { ...fcParams<Ts>(numRuns), seed: (SEED + batch * 0x9e3779b9) | 0 });
  }
  const complaint = uncovered();
  if (complaint) fail(complaint);
}

/** One deterministic value of `arb` (for the large explicit sizes). */
export function sampleOne<T>(arb: fc.Arbitrary<T>, salt = 0): T {
  return fc.sample(arb, { seed: (SEED + salt) | 0, numRuns: 1 })[0];
}

// --------------------------------------------------------------- numbers

/** Uniform in `[min, max]` (fast-check's `double` favours tiny values). */
export function uniform(min: number, max: number): fc.Arbitrary<number> {
  const steps = 2 ** 30;
  return fc.integer({ min: 0, max: steps }).map((i) => min + (max - min) * (i / steps));
}

/** Mostly uniform in `[min, max]`, sometimes fast-check's edge values. */
export function real(min: number, max: number): fc.Arbitrary<number> {
  return fc.oneof(
    { weight: 4, arbitrary: uniform(min, max) },
    { weight: 1, arbitrary: fc.double({ min, max, noNaN: true }) },
  );
}
