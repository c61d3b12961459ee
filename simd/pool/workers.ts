/**
 * A worker pool: a core on shared WebAssembly memory whose batch kernels
 * (one call per system per frame) are split across threads. The calling
 * thread runs one share and waits for the others: a frame stays one
 * synchronous call, and its output is bit-identical to the same frame on
 * one thread.
 *
 * @example
 * ```ts
 * import { createWorld } from "bitecs";
 * import { createAnimation, createAnimationPipeline } from "@marrow/anim";
 * import { createWorkerPool } from "@marrow/anim/kernels";
 *
 * using pool = await createWorkerPool({ workers: 2 });
 * const world = createWorld();
 * createAnimation(world, { core: pool.core });
 * const animate = createAnimationPipeline({ pool });
 * console.log(animate.mode); // "workers" where SharedArrayBuffer exists, else "single-thread"
 * animate(world, 1 / 60);
 * ```
 * @module
 */

import { bestBuild, type CoreBuild, coreLimits, type CoreOptions } from "../wasm/internal.ts";
import { coreFromInstance, describeValue } from "../memory/internal.ts";
import { BATCH_NAMES, parallelKernels } from "./_parallel_kernels.ts";
import { ThreadPool } from "./_pool.ts";
import { instantiateShared, sharedUnsupportedReason, type WasmBuild } from "./_shared_core.ts";
import { Core } from "../memory/core.ts";

/**
 * How a pool runs a frame: `"workers"`, its batch kernels split across
 * threads on shared memory; `"task-parallel"` (a pipeline's
 * `taskParallel` option on such a pool), the workers skinning the previous
 * frame while the calling thread animates this one; `"single-thread"`,
 * everything on the calling thread (one worker asked for, or no shared
 * memory in this runtime).
 */
export type ThreadMode = "workers" | "task-parallel" | "single-thread";

/** The most threads a pool runs. */
export const MAX_WORKERS = 16;

/** Options of {@linkcode createWorkerPool}. */
export interface WorkerPoolOptions extends CoreOptions {
  /**
   * Threads that share each frame's work, the calling thread included (so
   * `workers - 1` Worker threads are started). Default: the available
   * cores (`navigator.hardwareConcurrency`), that is cores − 1 workers
   * beside the calling thread, at most {@linkcode MAX_WORKERS}.
   */
  readonly workers?: number;
  /** The core build; default the fastest this runtime supports. */
  readonly build?: CoreBuild;
}

/** A pool of threads and the core they share. */
export interface WorkerPool extends Disposable {
  /** The core to create the world on: `createAnimation(world, { core: pool.core })`. */
  readonly core: Core;
  /** How the pool runs: on threads, or on the calling thread alone. */
  readonly mode: ThreadMode;
  /** Threads that share the work, the calling thread included (1 in `"single-thread"` mode). */
  readonly workers: number;
  /** Why the pool runs on one thread though more were asked for; undefined otherwise. */
  readonly fallbackReason: string | undefined;
  /**
   * Stops the worker threads. The core stays usable: its kernels then run
   * on the calling thread. Idempotent.
   */
  close(): void;
}

/** The default thread count: every core, at most {@linkcode MAX_WORKERS}. */
function defaultWorkers(): number {
  const cores = (globalThis as { navigator?: { hardwareConcurrency?: number } }).navigator
    ?.hardwareConcurrency;
  return Math.max(1, Math.min(MAX_WORKERS, Number.isInteger(cores) ? cores! : 1));
}

/**
 * Creates a worker pool of `options.workers` threads and the shared-memory
 * core they run on. Resolves once every worker is ready. Where shared
 * memory is not available (no `SharedArrayBuffer`: a page that is not
 * cross-origin isolated, an old runtime) or the build is `"scalar"`, the
 * pool runs in `"single-thread"` mode on an ordinary core, with the same
 * results. A `RangeError` for a worker count that is not a whole number in
 * 1..{@linkcode MAX_WORKERS} or a bad memory option.
 */
export async function createWorkerPool(options: WorkerPoolOptions = {}): Promise<WorkerPool> {
  const limits = coreLimits("createWorkerPool", options);
  const workers = options.workers ?? defaultWorkers();
  if (!Number.isInteger(workers) || workers < 1 || workers > MAX_WORKERS) {
    throw new RangeError(
      `createWorkerPool: options.workers: expected a whole number 1..${MAX_WORKERS}, got ${
        describeValue(workers)
      }`,
    );
  }
  const build = options.build ?? bestBuild();
  const reason = build === "scalar"
    ? "the scalar build does not run on shared memory"
    : sharedUnsupportedReason(build);
  if (reason !== undefined) {
    const core = Core.create(build, limits);
    return {
      core,
      mode: "single-thread",
      workers: 1,
      fallbackReason: workers > 1 ? reason : undefined,
      close() {},
      [Symbol.dispose]() {},
    };
  }
  const shared = instantiateShared(build as WasmBuild, limits);
  const threads = await ThreadPool.start(shared, workers, BATCH_NAMES);
  const instance = {
    ...shared.instance,
    kernels: parallelKernels(shared.instance.kernels, shared.instance.memory, threads),
  };
  const core = coreFromInstance(instance) as Core;
  const close = () => threads.close();
  return {
    core,
    get mode(): ThreadMode {
      return threads.closed || threads.threads === 1 ? "single-thread" : "workers";
    },
    get workers(): number {
      return threads.closed ? 1 : threads.threads;
    },
    fallbackReason: undefined,
    close,
    [Symbol.dispose]: close,
  };
}
