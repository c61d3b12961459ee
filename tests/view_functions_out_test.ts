/**
 * The view functions' allocation-free forms: given the game's object
 * (`out`), `getSkinnedBounds`, `getJointSkinBounds`, `getRootMotion`,
 * `getPlayback` and `getLayers` fill it with what they return without one
 * and return it, whatever it held before (a longer layer list is cut to
 * the entity's layers); `getSkinnedBounds` leaves it untouched when there
 * are no bounds yet. The typed-array views come back as the same object
 * while they stay the entity's block (what they show is checked after every
 * call of the ECS programs, `tests/ecs_programs_test.ts`).
 */

import { assert, assertEquals, assertStrictEquals } from "@std/assert";
import { addEntity } from "bitecs";
import {
  addCharacter,
  type Bounds,
  createAnimationPipeline,
  crossFadeTo,
  getJointSkinBounds,
  getModelMatrices,
  getPlayback,
  getPose,
  getSkinnedBounds,
  getSkinnedPositions,
  getSkinningPalette,
  type PlaybackInfo,
  playClip,
} from "../mod.ts";
import { enableRootMotion, getRootMotion, type RootMotion } from "../clips.ts";
import { addLayer, getLayers, type LayerInfo, removeLayer } from "../layers.ts";
import { createCharacterAssets, importGltf } from "../gltf/mod.ts";
import { createScene } from "./_scene.ts";
import { findModel } from "./_assets.ts";

const box = (): Bounds => ({ min: [7, 7, 7], max: [-7, -7, -7] });

Deno.test("view functions fill the game's object as they would return a new one", async () => {
  const scene = createScene("simd", 0);
  const { world, core } = scene;
  const model = await importGltf(findModel("Fox.glb")!);
  const definition = model.skeletons.find((s) => s.primitives.length > 0)!;
  const { skeleton, skin } = createCharacterAssets(definition, core);
  // Walk, Run, Survey: the root moves in the first.
  const clips = [1, 2, 0].map((i) => definition.clips[i]);
  const eid = addEntity(world);
  addCharacter(world, eid, skeleton, skin, {});
  playClip(world, eid, clips[0]);
  const root = clips[0].channels.find((c) => c.path === "translation")!.joint;
  enableRootMotion(world, eid, { joint: root });

  const bounds = box();
  assertEquals(getSkinnedBounds(world, eid, bounds), undefined, "no bounds before a frame");
  assertEquals(bounds, box(), "out untouched without bounds");

  const animate = createAnimationPipeline();
  const layers: LayerInfo[] = [];
  // Three layers reported first, then the list is reused for two.
  addLayer(world, eid, clips[1], { weight: 0.4 });
  addLayer(world, eid, clips[2], { weight: 0.6, mode: "additive" });
  const motion: RootMotion = { dx: 9, dz: 9, dyaw: 9 };
  const playback: PlaybackInfo = { clip: clips[2], time: -1, fade: -1 };
  let moved = false;
  for (let frame = 0; frame < 40; frame++) {
    if (frame === 10) crossFadeTo(world, eid, clips[1], 0.5);
    if (frame === 20) {
      assertEquals(getLayers(world, eid, layers).length, 3);
      removeLayer(world, eid, 2);
    }
    animate(world, 1 / 30);
    assertEquals(getSkinnedBounds(world, eid, bounds), getSkinnedBounds(world, eid));
    assertStrictEquals(getSkinnedBounds(world, eid, bounds), bounds);
    assertEquals(getJointSkinBounds(world, eid, bounds), getJointSkinBounds(world, eid));
    assertStrictEquals(getJointSkinBounds(world, eid, bounds), bounds);
    assertEquals(getRootMotion(world, eid, motion), getRootMotion(world, eid));
    assertStrictEquals(getRootMotion(world, eid, motion), motion);
    moved ||= motion.dx !== 0 || motion.dz !== 0 || motion.dyaw !== 0;
    assertEquals(getPlayback(world, eid, playback), getPlayback(world, eid));
    assertStrictEquals(getPlayback(world, eid, playback), playback);
    assertEquals(getLayers(world, eid, layers), getLayers(world, eid));
    assertStrictEquals(getLayers(world, eid, layers), layers);
  }
  assertEquals(layers.length, 2, "the list cut to the entity's two layers");
  assert(moved, "the root moved in some frame");
  assert(getPlayback(world, eid).next === undefined, "the cross-fade ended");

  // The views: the same object each call while they are the entity's block.
  assertStrictEquals(getPose(world, eid), getPose(world, eid));
  assertStrictEquals(getModelMatrices(world, eid), getModelMatrices(world, eid));
  assertStrictEquals(getSkinningPalette(world, eid), getSkinningPalette(world, eid));
  assertStrictEquals(getSkinnedPositions(world, eid), getSkinnedPositions(world, eid));
});
