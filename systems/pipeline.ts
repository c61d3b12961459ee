/**
 * The standard frame: sample clips, quat→mat, transform skeleton, IK, multiply
 * inverse bind, then skinning (positions only, or with normals and tangents,
 * per entity), on every entity or on the entities a game gives.
 *
 * @example
 * ```ts
 * import { createWorld } from "bitecs";
 * import { createAnimation, createAnimationPipeline } from "@marrow/anim";
 *
 * const world = createWorld();
 * createAnimation(world);
 * const animate = createAnimationPipeline();
 * animate(world, 1 / 60); // once per frame, with the frame's duration
 * ```
 * @module
 */

import { checkEntities, selectEntities } from "../components/internal.ts";
import { stateOf } from "../components/internal.ts";
import type { FaultLog } from "../components/internal.ts";
import { ikSystem } from "./ik.ts";
import { multiplyInverseBindSystem } from "./multiply_inverse_bind.ts";
import { quatToMatSystem } from "./quat_to_mat.ts";
import { checkFrameDelta, sampleClipsSystem } from "./sample_clips.ts";
import {
  prepareSkinning,
  skinEntities,
  skinSystem,
  type SkinSystemOptions,
  skinWithTangentsSystem,
} from "./skin.ts";
import { transformSkeletonSystem } from "./transform_skeleton.ts";
import { SKELETON_ENTITIES } from "./_select.ts";
import { endVouch, vouchFrame } from "./_checks.ts";
import type { ThreadMode, WorkerPool } from "../simd/pool/workers.ts";
import { Core } from "../simd/memory/core.ts";
import { warmPlayPath } from "./_warm_up.ts";
import {
  checkIdle,
  type FrameSteps,
  type Join,
  runAwaiting,
  runBlocking,
  skinWhile,
  wakeWorkers,
} from "./_task_parallel.ts";
import { taskParallelFrame } from "./_task_parallel_frame.ts";
import { beginLodFrame } from "./_lod.ts";

/**
 * A system: a plain function of the world, the frame's duration, and
 * optionally the entities to run on (all that have its components if
 * omitted; a list holds at most 1,048,576 ids, each once, and ids of no
 * entity with the components are skipped).
 */
export type AnimationSystem = (
  world: object,
  deltaSeconds: number,
  entities?: ArrayLike<number>,
) => void;

/** A pipeline: runs its systems in order; `systems` lists them by name. */
export interface AnimationPipeline {
  (world: object, deltaSeconds: number, entities?: ArrayLike<number>): void;
  /**
   * The same frame, with the same results, for a thread that may not block
   * (a browser's main thread, where `Atomics.wait` throws): where the frame
   * waits for the worker threads' skinning, it awaits (`Atomics.waitAsync`;
   * a spin where the runtime lacks it) instead of blocking. The world must
   * not be changed until the promise settles. Rejects with the error the
   * blocking call throws.
   */
  async(world: object, deltaSeconds: number, entities?: ArrayLike<number>): Promise<void>;
  /** The systems in the order they run. */
  readonly systems: readonly { readonly name: string; readonly run: AnimationSystem }[];
  /** How the frame runs: on the worker pool's threads, or on the calling thread. */
  readonly mode: ThreadMode;
}

/** Options of {@linkcode createAnimationPipeline}: those of the skinning systems, and a pool. */
export interface AnimationPipelineOptions extends Omit<SkinSystemOptions, "entities"> {
  /**
   * The worker pool to run on (`createWorkerPool`); the world must be
   * created on its core (`createAnimation(world, { core: pool.core })`).
   */
  readonly pool?: WorkerPool;
  /**
   * Paper 003's task parallelism: the worker threads skin the previous
   * frame's palettes (a snapshot) while the calling thread animates this
   * frame's joints, one synchronisation per frame. The frame contract:
   * after call k returns, joints, poses and palettes are at frame k and
   * the skinned outputs (and bounds) at frame k − 1 (one frame of latency);
   * an entity the snapshot does not hold (every entity on the first call;
   * one added, given another skeleton or skin, or whose components were
   * removed and added since the last call; every entity after a call that
   * threw) is skinned in call k at frame k. An entity with a level of
   * detail (`setLevelOfDetail`) whose skinning waits for its next update is
   * skinned in the call after the one that animates it. Without worker threads the
   * same frames run on the calling thread with the same latency and
   * results. Default false.
   */
  readonly taskParallel?: boolean;
}

/**
 * Builds the standard animation frame as one function of the world and the
 * frame's duration in seconds, optionally on a subset of entities. The
 * duration is required and checked first: a `RangeError` for a value that
 * is not a finite number >= 0 (`animate(world)` without it would let clips
 * silently stand still; to play backwards, give a clip a negative speed),
 * before anything is written.
 *
 * A problem in one entity's data (a non-finite pose, a palette that
 * overflows, a non-finite clip time) does not stop the frame: in the
 * world's default `"isolate"` fault mode the entity is skipped, its outputs
 * keep their last good values, the problem goes to the world's faults
 * (`getFaults`), and the `onFault` callback of `createAnimation` is called
 * once the frame is over. `createAnimation(world, { faults: "throw" })`
 * makes such a problem throw its typed error instead.
 */
export function createAnimationPipeline(
  options: AnimationPipelineOptions = {},
): AnimationPipeline {
  const systems: readonly { readonly name: string; readonly run: AnimationSystem }[] = [
    { name: "sampleClips", run: sampleClipsSystem },
    { name: "quatToMat", run: (world, _, entities) => quatToMatSystem(world, entities) },
    {
      name: "transformSkeleton",
      run: (world, _, entities) => transformSkeletonSystem(world, entities),
    },
    { name: "ik", run: (world, _, entities) => ikSystem(world, entities) },
    {
      name: "multiplyInverseBind",
      run: (world, _, entities) => multiplyInverseBindSystem(world, entities),
    },
    { name: "skin", run: (world, _, entities) => skinSystem(world, { ...options, entities }) },
    {
      name: "skinWithTangents",
      run: (world, _, entities) => skinWithTangentsSystem(world, { ...options, entities }),
    },
  ];
  const owner = {};
  const jointSystems = systems.filter(({ name }) => !name.startsWith("skin"));
  // The frame's arguments, for `joints` and the skinning options: made once
  // per pipeline and rewritten every frame, so that a frame allocates nothing.
  let frameWorld: object = owner, frameDelta = 0;
  let frameEntities: ArrayLike<number> | undefined;
  const skinOptions: { -readonly [K in keyof SkinSystemOptions]: SkinSystemOptions[K] } = {
    ...options,
  };
  const joints = () => {
    for (let i = 0; i < jointSystems.length; i++) {
      jointSystems[i].run(frameWorld, frameDelta, frameEntities);
    }
  };
  /** The frame's checks, then its steps (none left for the plain blocking frame). */
  const frame = (
    world: object,
    deltaSeconds: number,
    entities: ArrayLike<number> | undefined,
    awaiting: boolean,
  ): FrameSteps | undefined => {
    // Every field the frame will use is checked first: a frame refused for
    // a tampered field writes nothing, not even its first systems' output.
    const state = stateOf(world, "animate");
    if (options.pool && state.core !== options.pool.core) {
      throw new TypeError("animate: the world's core is not the worker pool's (options.pool.core)");
    }
    checkFrameDelta("animate", deltaSeconds);
    checkIdle(state, "animate");
    // In the "isolate" mode each system checks its entities and skips one at fault.
    const selected = selectEntities(world, state, "animate", SKELETON_ENTITIES, entities);
    if (!state.faults.isolates) checkEntities(state, selected);
    beginLodFrame(world, state, "animate", entities);
    frameWorld = world, frameDelta = deltaSeconds, frameEntities = entities;
    skinOptions.entities = entities;
    if (options.taskParallel) {
      return taskParallelFrame(world, state, owner, skinOptions, joints);
    }
    // The task-parallel frame hands its workers a task at once; this one, after its first systems.
    wakeWorkers(state);
    // The awaited frame's skinning options are its own: the next frame may start before it ends.
    if (awaiting) return skinAfter(world, { ...options, entities }, joints);
    // One pass of compares for every system's checks (the blocking frame
    // only: no game code runs until it returns; the pipeline ends the vouch).
    vouchFrame(state, selected);
    joints();
    // The multiply-inverse-bind system has just checked these palettes.
    skinEntities(world, "skinSystem", skinOptions, false, true);
    skinEntities(world, "skinWithTangentsSystem", skinOptions, true, true);
  };
  // The fault callback runs once the frame is over: what it does to the
  // world (removing the entity, say) cannot meet a frame half done.
  const pipeline = (world: object, deltaSeconds: number, entities?: ArrayLike<number>) => {
    const faults = stateOf(world, "animate").faults;
    faults.depth++;
    try {
      const steps = frame(world, deltaSeconds, entities, false);
      if (steps) runBlocking(steps);
    } finally {
      endVouch();
      faults.depth--;
    }
    faults.notify();
  };
  const settle = async (faults: FaultLog, frame: Promise<void>) => {
    try {
      await frame;
    } finally {
      faults.depth--;
    }
    faults.notify();
  };
  // The first play of a process pays no compilation inside a game's frame.
  if (!options.pool && !options.taskParallel) warmPlayPath(Core.default, pipeline);
  return Object.defineProperties(pipeline, {
    systems: { value: systems, enumerable: true },
    async: {
      value: (world: object, deltaSeconds: number, entities?: ArrayLike<number>) => {
        let faults: FaultLog | undefined;
        try {
          faults = stateOf(world, "animate").faults;
          faults.depth++;
          const steps = frame(world, deltaSeconds, entities, true)!;
          return settle(faults, runAwaiting(steps, stateOf(world, "animate").resources.memory));
        } catch (error) {
          if (faults) faults.depth--;
          return Promise.reject(error);
        }
      },
      enumerable: true,
    },
    mode: {
      get: (): ThreadMode => {
        const mode = options.pool?.mode ?? "single-thread";
        return options.taskParallel && mode === "workers" ? "task-parallel" : mode;
      },
      enumerable: true,
    },
  }) as AnimationPipeline;
}

/** The plain frame as steps: the joint work, then each skinning system with its one join awaitable. */
function* skinAfter(
  world: object,
  options: SkinSystemOptions,
  joints: () => void,
): Generator<Join, void, void> {
  joints();
  const state = stateOf(world, "animate");
  for (
    const [caller, directions] of [["skinSystem", false], ["skinWithTangentsSystem", true]] as const
  ) {
    // Tables of their own: a system the game calls during an await cannot rewrite these rows.
    const skinning = prepareSkinning(world, caller, options, directions, `animate: ${caller}`);
    if (!skinning) continue;
    yield* skinWhile(state, skinning.calls, () => {});
    skinning.publish();
  }
}
