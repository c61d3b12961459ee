/**
 * The clip budget: how many bytes of a core's memory clips made for it
 * (compact clips, `compact_clip.ts`) may take together, and the error a
 * clip over it throws.
 *
 * @module
 */

import { Core } from "../simd/memory/core.ts";
import { describeValue } from "../simd/memory/internal.ts";

/** Default of {@linkcode setClipBudget}: 256 MiB of clip data per core. */
export const DEFAULT_CLIP_BUDGET = 256 * 2 ** 20;

const budgets = new WeakMap<Core, { limit: number; used: number }>();

/** @internal The budget of `core`. */
export function budgetOf(core: Core): { limit: number; used: number } {
  let budget = budgets.get(core);
  if (!budget) budgets.set(core, budget = { limit: DEFAULT_CLIP_BUDGET, used: 0 });
  return budget;
}

/**
 * A clip whose data would pass the core's clip budget
 * ({@linkcode setClipBudget}); thrown before anything is allocated.
 */
export class ClipBudgetError extends RangeError {
  /** Name of the clip. */
  readonly clip: string;
  /** Joints of the skeleton it was to be built for. */
  readonly jointCount: number;
  /**
   * Estimated bytes of the clip data, beyond what the budget has free:
   * exact, or a lower bound when counting stopped at the budget (`exceeds`).
   */
  readonly estimate: number;
  /** True when `estimate` is a lower bound. */
  readonly exceeds: boolean;
  /** Bytes of the budget still free. */
  readonly available: number;

  /** Creates the error; the message names clip, skeleton, estimate and budget. */
  constructor(
    clip: string,
    skeleton: { readonly jointCount: number; readonly names: readonly string[] },
    estimate: number,
    exceeds: boolean,
    budget: { readonly used: number; readonly limit: number },
  ) {
    super(
      `clip "${clip}": building it for the skeleton of ${skeleton.jointCount} joints (root "${
        skeleton.names[0] ?? ""
      }") takes ${
        exceeds ? "at least " : ""
      }${estimate} bytes, beyond the clip budget (${budget.used} of ${budget.limit} bytes used; setClipBudget raises it)`,
    );
    this.name = "ClipBudgetError";
    this.clip = clip;
    this.jointCount = skeleton.jointCount;
    this.estimate = estimate;
    this.exceeds = exceeds;
    this.available = budget.limit - budget.used;
  }
}

/**
 * A clip whose compact build would take more work than its budget allows,
 * a budget linear in the size of the clip's key arrays plus a fixed
 * allowance (work counted as keys × tracks × the work per key, before each
 * step runs; a long chain below a short clip, or a huge clip with keys the
 * reduction cannot drop). Thrown before the build has run long, and before
 * anything is allocated in the core.
 */
export class ClipWorkError extends RangeError {
  /** Name of the clip. */
  readonly clip: string;
  /** Joints of the skeleton it was to be built for. */
  readonly jointCount: number;
  /** Units of work the build would have needed at least. */
  readonly work: number;
  /** Units of work its budget allows. */
  readonly limit: number;

  /** Creates the error; the message names clip, skeleton, work and limit. */
  constructor(
    clip: string,
    skeleton: { readonly jointCount: number; readonly names: readonly string[] },
    work: number,
    limit: number,
  ) {
    super(
      `clip "${clip}": building it for the skeleton of ${skeleton.jointCount} joints (root "${
        skeleton.names[0] ?? ""
      }") takes at least ${work} units of work, beyond its budget of ${limit} (about 1 s per MB of the clip's keys)`,
    );
    this.name = "ClipWorkError";
    this.clip = clip;
    this.jointCount = skeleton.jointCount;
    this.work = work;
    this.limit = limit;
  }
}

/**
 * Sets how many bytes of `core`'s memory compact clips may take together
 * (default 256 MiB). Playing a clip whose data would pass it throws a
 * {@linkcode ClipBudgetError} naming the clip, the skeleton and the
 * estimate, before anything is allocated in the core; WebAssembly memory
 * never shrinks, so the limit is what keeps a hostile clip from taking it
 * for good.
 */
export function setClipBudget(core: Core, bytes: number): void {
  if (!(core instanceof Core)) throw new TypeError("setClipBudget: core: expected a Core");
  if (!Number.isInteger(bytes) || bytes < 0) {
    throw new RangeError(
      `setClipBudget: bytes: expected a whole number >= 0, got ${describeValue(bytes)}`,
    );
  }
  budgetOf(core).limit = bytes;
}

/** Bytes of `core`'s memory that clips take now. */
export function clipBytes(core: Core): number {
  return budgetOf(core).used;
}
