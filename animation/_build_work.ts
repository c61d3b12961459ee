/**
 * What compact clip builds cost, counted: how many builds ran (tests check
 * that none runs inside a frame) and how much work each may do. A build's
 * work is bounded by counts known before each step runs (candidate keys ×
 * the greedy pass's span, measured times × joints), never by timing: a
 * build may spend {@linkcode WORK_PER_BYTE} units per byte of its clip's
 * key arrays, plus {@linkcode WORK_FLOOR}: linear in the size of the
 * clip. A unit is a value interpolated and compared, or a joint's matrices
 * at one measured time; what a unit costs in time, and how close the test
 * models' clips come to their limit (none of their builds reaches it), are
 * in `docs/performance_notes.md`.
 *
 * @module
 */

/** Units of work a build may spend per byte of its clip's key arrays. */
export const WORK_PER_BYTE = 4;
/** Units of work any build may spend, whatever its size (small clips on big skeletons). */
export const WORK_FLOOR = 2_000_000;

/** Counters for tests and benches: builds run, and units of work spent by all builds. */
export const buildCounters: { builds: number; work: number } = { builds: 0, work: 0 };

/** The work a build may still spend. */
export class BuildWork {
  /** Units spent so far. */
  spent = 0;
  /** Units this build may spend. */
  readonly limit: number;

  constructor(keyBytes: number) {
    this.limit = WORK_FLOOR + WORK_PER_BYTE * keyBytes;
  }

  /** Whether `units` more fit the limit. */
  fits(units: number): boolean {
    return this.spent + units <= this.limit;
  }

  /**
   * Counts `units` about to be spent; throws {@linkcode WorkExhausted},
   * before they are, when they would pass the limit.
   */
  spend(units: number): void {
    if (!this.fits(units)) throw new WorkExhausted(this.spent + units);
    this.spent += units;
    buildCounters.work += units;
  }
}

/** A build step that would pass its build's work limit (caught by the build). */
export class WorkExhausted extends Error {
  constructor(readonly wanted: number) {
    super(`build work limit reached (${wanted} units wanted)`);
  }
}
