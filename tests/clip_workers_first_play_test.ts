/**
 * After an awaited `createCharacterAssetsAsync`, no clip builds anywhere on
 * the calling thread: not while the preparation runs (the workers build
 * them), and not inside `playClip`, `crossFadeTo` or a frame, for every clip
 * of every test model (the test-only ones when `../shared` has them).
 * Builds are counted (`buildCounters` counts this thread's), never timed.
 */
import { assertEquals } from "@std/assert";
import { addEntity, createWorld } from "bitecs";
import {
  addCharacter,
  createAnimation,
  createAnimationPipeline,
  crossFadeTo,
  playClip,
} from "../mod.ts";
import { compactClip, createClipWorkers } from "../clips.ts";
import { createCharacterAssetsAsync, importGltf } from "../gltf/mod.ts";
import { buildCounters } from "../animation/_build_work.ts";
import { assetUrl, listAssets, testOnModels } from "./_three_gltf.ts";

const DT = 1 / 60;

for (const file of listAssets()) {
  testOnModels(
    [file],
    `${file}: clips prepared on workers build neither here nor in their first play`,
    async () => {
      const model = await importGltf(assetUrl(file));
      const world = createWorld();
      createAnimation(world);
      const animate = createAnimationPipeline();
      using clipWorkers = createClipWorkers({ workers: 2 });
      const characters = [];
      const beforeAssets = buildCounters.builds;
      let clipCount = 0;
      for (const gltfSkeleton of model.skeletons) {
        if (gltfSkeleton.primitives.length === 0) continue;
        const { skeleton, skin } = await createCharacterAssetsAsync(gltfSkeleton, { clipWorkers });
        for (const clip of gltfSkeleton.clips) compactClip(clip, skeleton);
        const eid = addEntity(world);
        addCharacter(world, eid, skeleton, skin);
        characters.push({ eid, clips: gltfSkeleton.clips });
        clipCount += gltfSkeleton.clips.length;
      }
      assertEquals(
        buildCounters.builds,
        beforeAssets,
        `${file}: a clip was built on the calling thread while preparing`,
      );
      animate(world, DT);
      let played = 0;
      for (const { eid, clips } of characters) {
        clips.forEach((clip, i) => {
          playClip(world, eid, clip, { time: 0.25 });
          animate(world, DT);
          crossFadeTo(world, eid, clips[(i + 1) % clips.length], 0.2);
          animate(world, DT);
          assertEquals(
            buildCounters.builds,
            beforeAssets,
            `${file}: clip "${clip.name}" was built in play`,
          );
          played++;
        });
      }
      assertEquals(played, clipCount);
    },
  );
}
