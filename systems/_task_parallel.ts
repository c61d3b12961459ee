/**
 * Paper 003's task parallelism, the overlap and the join: skinning batch
 * calls handed to the worker threads while the calling thread does other
 * work, joined once, and the drivers that run a frame's steps blocking or
 * awaiting (`_task_parallel_frame.ts` is the frame itself).
 *
 * A frame's steps are driven as a generator is (`next`, `throw`), so that
 * one body serves the blocking call and the awaitable one; the
 * task-parallel frame's are one object per world, reused: a frame
 * allocates nothing.
 *
 * @module
 */

import type { WorldState } from "../components/registry.ts";
import {
  BATCH_NAMES,
  type BatchName,
  chunkBoundsInto,
  fixedWords,
  rowCostsInto,
  sharesInto,
  taggedNumbers,
  threadsOf,
} from "../simd/pool/internal.ts";
import type { Share, ThreadPool } from "../simd/pool/internal.ts";
import type { CoreMemory } from "../simd/memory/internal.ts";
import { runSkinCall, type SkinCall } from "./skin.ts";

/** A wait for the workers: the pool's task and the shares it handed out. */
export interface Join {
  readonly pool: ThreadPool;
  readonly shares: readonly Share[];
}

/**
 * A frame's steps, driven as a generator is (a generator is one): each
 * result not done is a {@linkcode Join} its driver completes, then calls
 * `next`, or `throw` with the join's error.
 */
export interface FrameSteps {
  next(): IteratorResult<Join, void>;
  throw(error: unknown): IteratorResult<Join, void>;
}

/** Runs `steps`, blocking at each join. */
export function runBlocking(steps: FrameSteps): void {
  let step = steps.next();
  while (!step.done) {
    try {
      step.value.pool.finish(step.value.shares);
    } catch (error) {
      step = steps.throw(error);
      continue;
    }
    step = steps.next();
  }
}

/**
 * Runs `steps`, awaiting each join (`Atomics.waitAsync`; a spin where the
 * runtime lacks it). Until it settles, blocks freed in `memory` stay
 * allocated: the game runs during the awaits, and a worker may still be
 * writing to an entity's output when the game removes the entity.
 */
export async function runAwaiting(steps: FrameSteps, memory: CoreMemory): Promise<void> {
  memory.holdFrees();
  awaiting.add(memory);
  try {
    let step = steps.next();
    while (!step.done) {
      try {
        await step.value.pool.finishAsync(step.value.shares);
      } catch (error) {
        step = steps.throw(error);
        continue;
      }
      step = steps.next();
    }
  } finally {
    awaiting.delete(memory);
    memory.releaseHeld();
  }
}

/** The memories of cores with a frame awaiting (from its start until it settles). */
const awaiting = new WeakSet<CoreMemory>();

/** Refuses a frame while an awaitable frame on the same core has not settled. */
export function checkIdle(state: WorldState, caller: string): void {
  if (awaiting.has(state.resources.memory)) {
    throw new Error(
      `${caller}: a frame is still running on this core (await animate.async's promise first)`,
    );
  }
}

/**
 * Wakes the worker threads of `state`'s pool, if any, at a frame's start:
 * they wake while the frame's first systems run on this thread, and are
 * ready when its first split call comes.
 */
export function wakeWorkers(state: WorldState): void {
  threadsOf(state.kernels)?.pool.wake();
}

/**
 * Skinning batch calls run while the calling thread does other work: the
 * biggest call is cut into chunks the workers claim at once and the
 * calling thread claims too once its other work (the other calls, unsplit,
 * and `during`) is done, and joined once. One per world, its arrays
 * rewritten by every frame (only one frame runs at a time on a core).
 */
export class SkinOverlap {
  static #all = new WeakMap<WorldState, SkinOverlap>();
  /** Rows' costs of the call being split; grown, never shrunk. */
  #costs = new Float64Array(64);
  readonly #rest = taggedNumbers();
  readonly #bounds: number[] = [];
  readonly #shares: Share[] = [];
  readonly #args: number[][] = [];
  readonly #join: { pool: ThreadPool | undefined; shares: readonly Share[] } = {
    pool: undefined,
    shares: this.#shares,
  };
  #error: unknown;
  #threw = false;

  static of(state: WorldState): SkinOverlap {
    let overlap = SkinOverlap.#all.get(state);
    if (!overlap) SkinOverlap.#all.set(state, overlap = new SkinOverlap());
    return overlap;
  }

  /**
   * Starts `calls` and runs `during`: the join to complete, then
   * {@linkcode end}. Without threads (undefined), the calls ran, then
   * `during`, and an error was thrown at once: the same writes.
   */
  start(state: WorldState, calls: readonly SkinCall[], during: () => void): Join | undefined {
    const split = threadsOf(state.kernels);
    if (!split || calls.length === 0) {
      for (let c = 0; c < calls.length; c++) runSkinCall(state, calls[c]);
      during();
      return undefined;
    }
    const u32 = fixedWords(state.memory.u32);
    let main = 0, most = -1;
    for (let c = 0; c < calls.length; c++) {
      const total = this.#rowCosts(u32, calls[c]);
      if (total > most) main = c, most = total;
    }
    const call = calls[main], name = nameOf(call);
    // The costs held are the last call's.
    if (main !== calls.length - 1) this.#rowCosts(u32, call);
    // The calling thread claims chunks once its other work is done: by then
    // the workers have taken as many as that work was worth.
    const bounds = this.#bounds, shares = this.#shares, rest = this.#rest;
    const pool = split.pool;
    chunkBoundsInto(
      bounds,
      this.#costs,
      call.count,
      pool.threads,
      pool.maxChunks,
      undefined,
      u32,
      0,
    );
    rest.length = 2, rest[0] = call.maxInfluences, rest[1] = call.bounds;
    sharesInto(shares, this.#args, name, bounds, call.jobs, rest);
    split.pool.start(BATCH_NAMES.indexOf(name), shares);
    this.#error = undefined, this.#threw = false;
    try {
      // The pool is busy: these run on this thread alone.
      for (let c = 0; c < calls.length; c++) if (c !== main) runSkinCall(state, calls[c]);
      during();
    } catch (e) {
      this.fail(e);
    }
    split.pool.claim(shares, split.serial[name] as (...args: number[]) => number);
    this.#join.pool = split.pool;
    return this.#join as Join;
  }

  /** Keeps `error` if it is the first since {@linkcode start}. */
  fail(error: unknown): void {
    if (!this.#threw) this.#error = error, this.#threw = true;
  }

  /** After the join: throws the first error (`during`'s before a worker's). */
  end(): void {
    if (!this.#threw) return;
    const error = this.#error;
    this.#error = undefined, this.#threw = false;
    throw error;
  }

  /** Writes the costs of `call`'s rows into `#costs`: their total. */
  #rowCosts(u32: Uint32Array, call: SkinCall): number {
    if (this.#costs.length < call.count) this.#costs = new Float64Array(call.count * 2);
    return rowCostsInto(nameOf(call), this.#costs, u32, call.jobs, call.count, call.maxInfluences);
  }
}

/**
 * Runs `calls` (skinning batch calls) while the calling thread runs
 * `during` ({@linkcode SkinOverlap}). Every row is skinned even when
 * `during` throws; its error is thrown after the join, before a worker's.
 * After the join nothing is touched: an awaited join lets the game change
 * the world.
 */
export function* skinWhile(
  state: WorldState,
  calls: readonly SkinCall[],
  during: () => void,
): Generator<Join, void, void> {
  const overlap = SkinOverlap.of(state);
  const join = overlap.start(state, calls, during);
  if (!join) return;
  try {
    yield join;
  } catch (e) {
    overlap.fail(e);
  }
  overlap.end();
}

const nameOf = (call: SkinCall): BatchName =>
  call.dual ? "skinDualQuaternionsBatch" : "skinVerticesBatch";
