/**
 * The crowd of `crowd_bench.ts`: small characters cross-fading for ever, on
 * any checkout's modules, with each system's core calls on the tables the
 * system wrote.
 *
 * @module
 */

import { addEntity, createWorld } from "bitecs";
import type * as mine from "./_crowd_modules.ts";
import { JOB_WORDS } from "../simd/abi.ts";
import type { WorkerPool } from "../kernels.ts";

/** What the bench needs of a checkout: its modules, loaded from its root. */
export type Modules = typeof mine;

/** Issue #30's small character: 20 joints, 300 vertices, 2 influences. */
export const SMALL_CHARACTER = { joints: 20, segments: 10, rings: 30, influences: 2 } as const;
export const DELTA = 1 / 60;
/** Frames of the walk's loop (the run's is half). */
const LOOP_FRAMES = 60;

/**
 * A crowd of `count` characters of `m`'s checkout, each cross-fading for
 * ever, warmed; `shape`: their cylinder's (fewer vertices show the
 * systems' JavaScript more sharply against the skinning's); `pool`: the
 * worker pool its pipeline runs on (this checkout only), with `taskParallel`.
 */
export function crowdScene(
  m: Modules,
  count: number,
  shape: { joints: number; segments: number; rings: number; influences: number } = SMALL_CHARACTER,
  pool?: WorkerPool,
  taskParallel = false,
) {
  const core = pool?.core ?? m.Core.create("relaxed-simd");
  const world = createWorld();
  m.createAnimation(world, { core });
  const cylinder = m.createCylinder(shape);
  const skeleton = new m.SkeletonAsset(cylinder.skeleton, core);
  const skin = new m.SkinAsset(skeleton, cylinder.skin);
  // Loops of whole frames: every LOOP_FRAMES frames the clip times come round.
  const walk = m.waveClip(shape.joints, { duration: LOOP_FRAMES * DELTA });
  const run = m.waveClip(shape.joints, { duration: LOOP_FRAMES * DELTA / 2, amplitude: 0.4 });
  const entities: number[] = [];
  for (let i = 0; i < count; i++) {
    const eid = addEntity(world);
    m.addCharacter(world, eid, skeleton, skin, { normals: true, tangents: false });
    m.playClip(world, eid, walk, { time: (i * 0.1) % 1 });
    // A fade that never ends: every frame samples and blends two clips.
    m.crossFadeTo(world, eid, run, 1e9, { time: (i * 0.05) % 0.5 });
    entities.push(eid);
  }
  const pipeline = m.createAnimationPipeline(pool ? { pool, taskParallel } : {});
  for (let i = 0; i < 5; i++) pipeline(world, DELTA);
  // Each system once on its own: the tables its kernels row runs on exist from the first iteration.
  for (const system of pipeline.systems) system.run(world, DELTA);
  const state = m.stateOf(world, "crowd bench");
  const kernels = state.kernels;
  const table = (name: string) => state.jobs(name).ptr;
  // The skinning's palette scan on its own: a table per skinning system
  // (kept with its rows) in checkouts since issue #30, one shared before.
  const paletteScan = table("skinWithTangentsSystem: palette scan") || table("paletteScan");
  // The skinning rows as the system writes them, in a table of their own.
  const skinning = m.prepareSkinning(world, "crowd bench", {}, true, "crowd bench: rows", true)!;
  const skinCalls = () => {
    for (let i = 0; i < skinning.calls.length; i++) m.runSkinCall(state, skinning.calls[i]);
  };
  const n = entities.length;
  // The sampling rows of a loop's frames, in order: replayed at the same
  // time, the kernel would find every key in its cache, and sample faster
  // than the system, whose clip times advance.
  const sampled: number[] = [];
  for (let k = 0; k < LOOP_FRAMES; k++) {
    pipeline(world, DELTA);
    const rows = state.jobs("sampleClips").readBack(2 * n * JOB_WORDS);
    const copy = state.jobs(`crowd bench: sampling frame ${k}`);
    copy.begin(2 * n, JOB_WORDS);
    copy.staging(2 * n * JOB_WORDS).set(rows.subarray(0, 2 * n * JOB_WORDS));
    copy.commit(2 * n * JOB_WORDS);
    sampled.push(copy.ptr);
  }
  let frame = 0;
  /** Each system's core calls, on the tables it wrote (sampling: a loop's, in turn). */
  const kernelsOf: Record<string, () => void> = {
    sampleClips: () => {
      kernels.sampleCompactBatch(sampled[frame], 2 * n);
      frame = (frame + 1) % LOOP_FRAMES;
    },
    quatToMat: () => {
      kernels.firstBeyondBatch(table("poseScan"), n, Infinity);
      kernels.quatToMatBatch(table("quatToMat"), n);
    },
    transformSkeleton: () => void kernels.localToModelBatch(table("localToModelBatch"), n),
    multiplyInverseBind: () =>
      void kernels.multiplyMatricesCheckedBatch(table("multiplyMatricesCheckedBatch"), n, 1e18),
    skinWithTangents: () => {
      kernels.firstBeyondBatch(paletteScan, n, 1e18);
      skinCalls();
    },
  };
  // The pipeline skips the skinning's palette scan (the checked multiply did it).
  const frameKernels = () => {
    kernelsOf.sampleClips();
    kernelsOf.quatToMat();
    kernelsOf.transformSkeleton();
    kernelsOf.multiplyInverseBind();
    skinCalls();
  };
  return { world, entities, pipeline, kernelsOf, frameKernels };
}
