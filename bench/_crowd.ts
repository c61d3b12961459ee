/**
 * The crowd of `crowd_bench.ts`: small characters cross-fading for ever, on
 * any checkout's modules, with each system's core calls on the tables the
 * system wrote.
 *
 * @module
 */

import { addEntity, createWorld } from "bitecs";
import type * as mine from "./_crowd_modules.ts";

/** What the bench needs of a checkout: its modules, loaded from its root. */
export type Modules = typeof mine;

const SHAPE = { joints: 20, segments: 10, rings: 30, influences: 2 } as const;
export const DELTA = 1 / 60;

/** A crowd of `count` characters of `m`'s checkout, each cross-fading for ever, warmed. */
export function crowdScene(m: Modules, count: number) {
  const core = m.Core.create("relaxed-simd");
  const world = createWorld();
  m.createAnimation(world, { core });
  const cylinder = m.createCylinder(SHAPE);
  const skeleton = new m.SkeletonAsset(cylinder.skeleton, core);
  const skin = new m.SkinAsset(skeleton, cylinder.skin);
  const walk = m.waveClip(SHAPE.joints, { duration: 2 });
  const run = m.waveClip(SHAPE.joints, { duration: 0.7, amplitude: 0.4 });
  const entities: number[] = [];
  for (let i = 0; i < count; i++) {
    const eid = addEntity(world);
    m.addCharacter(world, eid, skeleton, skin, { normals: true, tangents: false });
    m.playClip(world, eid, walk, { time: (i * 0.1) % 2 });
    // A fade that never ends: every frame samples and blends two clips.
    m.crossFadeTo(world, eid, run, 1e9, { time: (i * 0.05) % 0.7 });
    entities.push(eid);
  }
  const pipeline = m.createAnimationPipeline();
  for (let i = 0; i < 5; i++) pipeline(world, DELTA);
  const state = m.stateOf(world, "crowd bench");
  const kernels = state.kernels;
  const table = (name: string) => state.jobs(name).ptr;
  // The skinning rows as the system writes them, in a table of their own.
  const skinning = m.prepareSkinning(world, "crowd bench", {}, true, "crowd bench: rows", true)!;
  const skinCalls = () => {
    for (let i = 0; i < skinning.calls.length; i++) m.runSkinCall(state, skinning.calls[i]);
  };
  const n = entities.length;
  /** Each system's core calls, on the tables it wrote in its last run. */
  const kernelsOf: Record<string, () => void> = {
    sampleClips: () => void kernels.sampleCompactBatch(table("sampleClips"), 2 * n),
    quatToMat: () => {
      kernels.firstBeyondBatch(table("poseScan"), n, Infinity);
      kernels.quatToMatBatch(table("quatToMat"), n);
    },
    transformSkeleton: () => void kernels.localToModelBatch(table("localToModelBatch"), n),
    multiplyInverseBind: () =>
      void kernels.multiplyMatricesCheckedBatch(table("multiplyMatricesCheckedBatch"), n, 1e18),
    skinWithTangents: () => {
      kernels.firstBeyondBatch(table("paletteScan"), n, 1e18);
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
  return { world, pipeline, kernelsOf, frameKernels };
}
