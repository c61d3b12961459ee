/**
 * A minimal game, as `tests/bundle_size_test.ts` bundles it: `mod.ts` and
 * one generated character playing a clip, for three frames of the frame's
 * systems, which the entry module gives (`_bundle_game_systems.ts` runs them
 * by hand, `_bundle_game_pipeline.ts` by `createAnimationPipeline`). Prints
 * the core's build, the skinned positions' length and their sum, so that the
 * bundle's run can be compared with the source's.
 *
 * @module
 */

import { addEntity, createWorld } from "bitecs";
import {
  addCharacter,
  createAnimation,
  createClip,
  getSkinnedPositions,
  playClip,
  SkeletonAsset,
  SkinAsset,
} from "../mod.ts";
import { Core } from "../kernels.ts";
import { createCylinder } from "../procedural/cylinder.ts";

/** Plays the game for three frames of `runFrame` and prints what it skinned. */
export function playGame(runFrame: (world: object, deltaSeconds: number) => void): void {
  const world = createWorld();
  createAnimation(world);
  const character = createCylinder({ joints: 8 });
  const skeleton = new SkeletonAsset(character.skeleton);
  const skin = new SkinAsset(skeleton, character.skin);
  const bend = createClip({
    name: "bend",
    duration: 1,
    channels: [{
      joint: 1,
      path: "rotation",
      interpolation: "LINEAR",
      times: Float32Array.of(0, 1),
      values: Float32Array.of(0, 0, 0, 1, 0, 0, Math.SQRT1_2, Math.SQRT1_2),
    }],
  });
  const eid = addEntity(world);
  addCharacter(world, eid, skeleton, skin);
  playClip(world, eid, bend, { time: 0.25 });

  for (let frame = 0; frame < 3; frame++) runFrame(world, 1 / 60);
  const positions = getSkinnedPositions(world, eid);
  console.log(
    Core.default.build,
    positions.length,
    positions.reduce((a, b) => a + b, 0).toFixed(4),
  );
}
