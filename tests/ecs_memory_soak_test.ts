/**
 * Soak: assets and worlds created and disposed by the thousand leave the
 * core's memory where it started (after the first world warmed it up).
 */
import { assert, assertEquals } from "@std/assert";
import { addEntity, createWorld } from "bitecs";
import {
  addCharacter,
  createAnimation,
  createAnimationPipeline,
  disposeAnimation,
  SkeletonAsset,
  SkinAsset,
} from "../mod.ts";
import { Core } from "../kernels.ts";
import { createCylinder } from "../procedural/cylinder.ts";

Deno.test("10,000 assets and 1,000 worlds of 100 characters give their memory back", () => {
  const started = performance.now();
  const core = Core.create("relaxed-simd");
  const small = createCylinder({ joints: 6, segments: 4, rings: 3 });
  const start = { bytes: core.byteLength, allocated: core.allocatedBytes };
  for (let i = 0; i < 5_000; i++) {
    using skeleton = new SkeletonAsset(small.skeleton, core);
    using _skin = new SkinAsset(skeleton, small.skin);
  }
  const afterAssets = { bytes: core.byteLength, allocated: core.allocatedBytes };
  assertEquals(afterAssets.allocated, start.allocated);
  const animate = createAnimationPipeline();
  let warm = 0;
  for (let w = 0; w < 1_000; w++) {
    using skeleton = new SkeletonAsset(small.skeleton, core);
    using skin = new SkinAsset(skeleton, small.skin);
    const world = createWorld();
    createAnimation(world, { core });
    for (let c = 0; c < 100; c++) addCharacter(world, addEntity(world), skeleton, skin);
    if (w % 50 === 0) animate(world, 1 / 60);
    disposeAnimation(world);
    if (w === 0) warm = core.byteLength;
  }
  const end = { bytes: core.byteLength, allocated: core.allocatedBytes };
  console.log(
    `start ${start.bytes} bytes (${start.allocated} allocated); after 10,000 assets ${afterAssets.bytes}; ` +
      `after the first world ${warm}; peak heap ${core.peakBytes}; end ${end.bytes} (${end.allocated} allocated); ` +
      `${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
  assertEquals(end.allocated, start.allocated);
  assert(end.bytes <= warm, `the memory grew after the first world: ${warm} → ${end.bytes}`);
});
