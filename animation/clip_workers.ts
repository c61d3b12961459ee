/**
 * Clips prepared off the calling thread: {@linkcode prepareClipsOnWorkers}
 * builds clips' compact forms on worker threads and resolves once they are
 * in the skeleton's core, ready to play, so that a game loading a
 * character mid-session neither stalls for the build (tens to hundreds of
 * milliseconds a file) nor pays it in the frame that first plays a clip.
 *
 * Each worker builds a clip in its own core, exactly as the calling thread
 * would: the compact form it hands back (a
 * compact clip file, `saveCompactClips`) samples bit for bit as a build on
 * the calling thread. The calling thread only copies the clips' keys out
 * and the built forms in.
 *
 * Where workers are not available, the clips are built on the calling
 * thread instead, with the same results, and
 * {@linkcode ClipWorkers.fallbackReason} says why: in Node (no `Worker`;
 * `worker_threads` are not used), and in a bundle (a browser app's) not
 * given the worker's own bundle ({@linkcode ClipWorkersOptions.moduleUrl}).
 *
 * @example
 * ```ts
 * import { createClip, SkeletonAsset } from "@marrow/anim";
 * import { createClipWorkers, prepareClipsOnWorkers } from "@marrow/anim/clips";
 * import { createCylinder } from "@marrow/anim/procedural";
 *
 * using skeleton = new SkeletonAsset(createCylinder({ joints: 4 }).skeleton);
 * const bend = createClip({
 *   name: "bend",
 *   channels: [{
 *     joint: 1,
 *     path: "rotation",
 *     interpolation: "LINEAR",
 *     times: Float32Array.of(0, 1),
 *     values: Float32Array.of(0, 0, 0, 1, 0, 0, Math.SQRT1_2, Math.SQRT1_2),
 *   }],
 * });
 * using clipWorkers = createClipWorkers({ workers: 1 });
 * const [compact] = await prepareClipsOnWorkers(skeleton, [bend], { clipWorkers });
 * console.assert(compact.duration === 1); // playClip(world, eid, bend) builds nothing now
 * ```
 * @module
 */

import type { Clip } from "./clip.ts";
import type { SkeletonAsset } from "./skeleton_asset.ts";
import {
  adoptBuiltCompactClip,
  type CompactClip,
  compactClip,
  disposeClip,
} from "./compact_clip.ts";
import { loadCompactClips } from "./clip_file.ts";
import { checkPrepared, checkPreparedFor, prepareClips } from "./prepare_clip.ts";
import { ClipBuildThreads } from "./_clip_build_threads.ts";
import { buildFiles } from "./_clip_build_jobs.ts";
import { ClipPreparationError } from "./clip_preparation_error.ts";
import { describeValue } from "../simd/memory/internal.ts";

export { ClipPreparationError, type ClipPreparationFailure } from "./clip_preparation_error.ts";

/** The most worker threads a {@linkcode ClipWorkers} runs. */
export const MAX_CLIP_WORKERS = 16;
/** How long idle clip workers stay before they stop, by default (milliseconds). */
export const DEFAULT_CLIP_WORKERS_IDLE_MS = 1000;

/** Options of {@linkcode createClipWorkers}. */
export interface ClipWorkersOptions {
  /**
   * Worker threads building clips at once (each builds one clip at a
   * time). Default: the available cores less one (the calling thread's),
   * at least 1, at most {@linkcode MAX_CLIP_WORKERS}.
   */
  readonly workers?: number;
  /**
   * Milliseconds idle workers stay before they stop (started again when
   * work comes): a process whose work is done exits at most this long
   * after its last preparation. Default {@linkcode DEFAULT_CLIP_WORKERS_IDLE_MS}.
   */
  readonly idleMilliseconds?: number;
  /**
   * The clip build worker's module: the entry `@marrow/anim/clip-build-worker`
   * (`animation/clip_build_worker.ts`) bundled on its own
   * (`deno bundle --platform=browser`), for an app
   * whose bundle holds Marrow (a bundle's modules have the bundle's URL,
   * so the worker file cannot be found beside them). Default: that file
   * beside this module, where Marrow runs from its files (Deno, from a
   * checkout or JSR; a dev server serving modules unbundled); in a bundle
   * without this option the clips are built on the calling thread
   * (`fallbackReason` says so).
   */
  readonly moduleUrl?: string | URL;
}

/**
 * Worker threads that build clips, reused by every preparation given them.
 * Workers start on the first preparation and stop after
 * {@linkcode ClipWorkersOptions.idleMilliseconds} without work;
 * {@linkcode ClipWorkers.close} (or `using`) stops them at once.
 */
export interface ClipWorkers extends Disposable {
  /** Where clips are built: on worker threads, or on the calling thread (no `Worker` here). */
  readonly mode: "workers" | "calling-thread";
  /** Worker threads that may build at once (0 in `"calling-thread"` mode). */
  readonly workers: number;
  /** Why clips are built on the calling thread; undefined in `"workers"` mode. */
  readonly fallbackReason: string | undefined;
  /** Whether {@linkcode ClipWorkers.close} was called. */
  readonly closed: boolean;
  /**
   * Stops the workers now; preparations still running reject with a
   * {@linkcode ClipPreparationError} (reason `"closed"`) and attach
   * nothing. Idempotent.
   */
  close(): void;
}

/** The default worker count: the cores less the calling thread's, 1..MAX_CLIP_WORKERS. */
function defaultWorkers(): number {
  const cores = (globalThis as { navigator?: { hardwareConcurrency?: number } }).navigator
    ?.hardwareConcurrency;
  const n = Number.isInteger(cores) ? cores! - 1 : 1;
  return Math.max(1, Math.min(MAX_CLIP_WORKERS, n));
}

/**
 * Whether this module runs from its own file, its worker module beside it
 * (Deno, from a checkout or JSR; an unbundled dev server), not from a
 * bundle, whose URL is the bundle's.
 */
const SERVED_AS_FILES = /\/animation\/clip_workers\.ts([?#].*)?$/.test(import.meta.url);

/** The threads behind each {@linkcode ClipWorkers} ("workers" mode). */
const threadsOf = new WeakMap<ClipWorkers, ClipBuildThreads>();

/**
 * Clip build workers (none started until a preparation needs them). A
 * `RangeError` for a worker count that is not a whole number in
 * 1..{@linkcode MAX_CLIP_WORKERS} or an idle time that is not a finite
 * number >= 0.
 */
export function createClipWorkers(options: ClipWorkersOptions = {}): ClipWorkers {
  if (!options || typeof options !== "object") {
    throw new TypeError(
      `createClipWorkers: options: expected an object, got ${describeValue(options)}`,
    );
  }
  const workers = options.workers ?? defaultWorkers();
  if (!Number.isInteger(workers) || workers < 1 || workers > MAX_CLIP_WORKERS) {
    throw new RangeError(
      `createClipWorkers: options.workers: expected a whole number 1..${MAX_CLIP_WORKERS}, got ${
        describeValue(workers)
      }`,
    );
  }
  const idle = options.idleMilliseconds ?? DEFAULT_CLIP_WORKERS_IDLE_MS;
  if (typeof idle !== "number" || !(idle >= 0) || !Number.isFinite(idle)) {
    throw new RangeError(
      `createClipWorkers: options.idleMilliseconds: expected a finite number >= 0, got ${
        describeValue(idle)
      }`,
    );
  }
  const fallbackReason = typeof Worker !== "function"
    ? "Worker is not available"
    : options.moduleUrl === undefined && !SERVED_AS_FILES
    ? "Marrow was bundled, and its clip build worker with it: give createClipWorkers a moduleUrl"
    : undefined;
  if (fallbackReason !== undefined) {
    let closed = false;
    return {
      mode: "calling-thread",
      workers: 0,
      fallbackReason,
      get closed() {
        return closed;
      },
      close: () => void (closed = true),
      [Symbol.dispose]: () => void (closed = true),
    };
  }
  const threads = new ClipBuildThreads(
    workers,
    options.moduleUrl ?? new URL("./clip_build_worker.ts", import.meta.url),
    idle,
  );
  const clipWorkers: ClipWorkers = {
    mode: "workers",
    workers,
    fallbackReason,
    get closed() {
      return threads.closed;
    },
    close: () => threads.close(),
    [Symbol.dispose]: () => threads.close(),
  };
  threadsOf.set(clipWorkers, threads);
  return clipWorkers;
}

/** @internal The threads behind `clipWorkers` (tests count the workers started). */
export function clipBuildThreads(clipWorkers: ClipWorkers): ClipBuildThreads | undefined {
  return threadsOf.get(clipWorkers);
}

/** Options of {@linkcode prepareClipsOnWorkers}. */
export interface PrepareClipsOnWorkersOptions {
  /**
   * The workers to build on. Default: workers started for this call alone
   * ({@linkcode createClipWorkers}'s defaults) and stopped when it ends;
   * give the same {@linkcode ClipWorkers} to every preparation of a load
   * to start them once.
   */
  readonly clipWorkers?: ClipWorkers;
  /**
   * Aborts the preparation: it rejects with the signal's reason and
   * attaches nothing (a clip a worker is building finishes there, unused).
   */
  readonly signal?: AbortSignal;
}

/**
 * Builds the compact forms of `clips` for `skeleton` on worker threads and
 * resolves with them, in the clips' order, once all are in the skeleton's
 * core: playing the clips on that skeleton (or another of its core with
 * the same parents and rest pose) then builds nothing, exactly as after
 * `prepareClips`, and samples bit for bit as it would. All or nothing: on
 * any failure it rejects with a {@linkcode ClipPreparationError} (or the
 * abort signal's reason) and attaches nothing (in `"calling-thread"`
 * mode, clips built before the one that failed stay built, as with
 * `prepareClips`). Before anything starts, a skeleton that is not a live
 * `SkeletonAsset` rejects with a `TypeError`, a clip that is not valid
 * with its `ClipError` (`validateClip`, and its morph channels' check, as
 * `prepareClip` makes it). Prepare a clip once per skeleton
 * structure: preparing it again builds it again.
 *
 * A clip prepared on workers holds its compact form as a clip built on
 * the calling thread does: once that form is gone (`disposeClip`, or the
 * skeleton's disposal), or on a skeleton of another structure or core,
 * playing it unprepared builds it in that frame. Prepare it for the new
 * skeleton (`prepareClip`, `prepareClips`, `createCharacterAssets`, or on
 * workers).
 */
export async function prepareClipsOnWorkers(
  skeleton: SkeletonAsset,
  clips: readonly Clip[],
  options: PrepareClipsOnWorkersOptions = {},
): Promise<CompactClip[]> {
  checkPreparedFor("prepareClipsOnWorkers", skeleton);
  if (!Array.isArray(clips)) throw new TypeError("prepareClipsOnWorkers: clips: expected an array");
  clips.forEach(checkPrepared);
  const unique = [...new Set(clips)];
  const { signal } = options;
  signal?.throwIfAborted();
  const given = options.clipWorkers;
  if (given?.closed) {
    throw new ClipPreparationError(
      clips[0]?.name ?? "",
      0,
      "closed",
      new Error("the clip workers were closed"),
    );
  }
  const clipWorkers = given ?? createClipWorkers();
  try {
    const threads = threadsOf.get(clipWorkers);
    if (!threads) return onCallingThread(skeleton, clips);
    // Errors name a clip by its index in `clips`.
    const indices = unique.map((clip) => clips.indexOf(clip));
    const files = await buildFiles(skeleton, unique, indices, threads, signal);
    const attached = attach(skeleton, unique, indices, files);
    const compacts = new Map(attached.map((compact, i) => [unique[i], compact]));
    return clips.map((clip) => compacts.get(clip)!);
  } finally {
    if (!given) clipWorkers.close();
  }
}

/** The fallback: `prepareClips` here, its error wrapped as a worker's would be. */
function onCallingThread(skeleton: SkeletonAsset, clips: readonly Clip[]): CompactClip[] {
  return clips.map((clip, i) => {
    try {
      return prepareClips(skeleton, [clip])[0];
    } catch (error) {
      throw new ClipPreparationError(
        clip.name,
        i,
        "build",
        error instanceof Error ? error : new Error(String(error)),
      );
    }
  });
}

/**
 * Loads each file into `skeleton`'s core and makes it its clip's compact
 * form; on a failure (the clip budget) disposes what it loaded and throws.
 */
function attach(
  skeleton: SkeletonAsset,
  clips: readonly Clip[],
  indices: readonly number[],
  files: readonly Uint8Array[],
): CompactClip[] {
  const loaded: Clip[] = [];
  try {
    for (const file of files) loaded.push(loadCompactClips(skeleton, file)[0]);
  } catch (error) {
    for (const clip of loaded) disposeClip(clip);
    const i = loaded.length;
    throw new ClipPreparationError(
      clips[i].name,
      indices[i],
      "build",
      error instanceof Error ? error : new Error(String(error)),
    );
  }
  return clips.map((clip, i) => {
    const compact = compactClip(loaded[i], skeleton);
    adoptBuiltCompactClip(clip, skeleton, compact);
    return compact;
  });
}
