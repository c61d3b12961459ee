/**
 * Clips are ready before they play: on the README's path (importGltf →
 * createCharacterAssets → addCharacter → playClip / crossFadeTo → animate)
 * no compact clip is built inside playClip, crossFadeTo or the frame, for
 * every clip of every test model (the test-only ones when `../shared` has
 * them). Builds are counted (`buildCounters` in `animation/_build_work.ts`),
 * never timed. A clip made in code builds once: in `prepareClip`, or, left
 * unprepared, in the `playClip` that first plays it. Preparing checks its
 * morph channels too, which its first `playClip` then does not.
 */
import { assertEquals, assertGreater, assertRejects, assertThrows } from "@std/assert";
import { addEntity, createWorld } from "bitecs";
import {
  addCharacter,
  type Clip,
  ClipError,
  createAnimation,
  createAnimationPipeline,
  createClip,
  crossFadeTo,
  playClip,
  prepareClip,
  prepareClips,
  SkeletonAsset,
  SkinAsset,
} from "../mod.ts";
import { createCharacterAssets, importGltf } from "../gltf/mod.ts";
import { prepareClipsOnWorkers } from "../clips.ts";
import { createCylinder } from "../procedural/cylinder.ts";
import { buildCounters } from "../animation/_build_work.ts";
import { assetUrl, listAssets, testOnModels } from "./_three_gltf.ts";

const DT = 1 / 60;

for (const file of listAssets()) {
  testOnModels(
    [file],
    `${file}: no clip is built inside playClip, crossFadeTo or a frame`,
    async () => {
      const model = await importGltf(assetUrl(file));
      const world = createWorld();
      createAnimation(world);
      const animate = createAnimationPipeline();
      const characters = [];
      const beforeAssets = buildCounters.builds;
      let clipCount = 0;
      for (const gltfSkeleton of model.skeletons) {
        // The README path: characters are skeletons with skinned meshes.
        if (gltfSkeleton.primitives.length === 0) continue;
        const { skeleton, skin } = createCharacterAssets(gltfSkeleton);
        const eid = addEntity(world);
        addCharacter(world, eid, skeleton, skin);
        characters.push({ eid, clips: gltfSkeleton.clips });
        clipCount += gltfSkeleton.clips.length;
      }
      if (clipCount > 0) {
        assertGreater(buildCounters.builds, beforeAssets, "createCharacterAssets prepares clips");
      }
      animate(world, DT);
      const before = buildCounters.builds;
      let played = 0;
      for (const { eid, clips } of characters) {
        clips.forEach((clip, i) => {
          playClip(world, eid, clip, { time: 0.25 });
          animate(world, DT);
          crossFadeTo(world, eid, clips[(i + 1) % clips.length], 0.2);
          animate(world, DT);
          assertEquals(
            buildCounters.builds,
            before,
            `${file}: clip "${clip.name}" was built in play`,
          );
          played++;
        });
      }
      assertEquals(played, clipCount);
    },
  );
}

Deno.test("a clip made in code builds once: in prepareClip, else in its first playClip", () => {
  const world = createWorld();
  createAnimation(world);
  const animate = createAnimationPipeline();
  const cylinder = createCylinder({ joints: 8 });
  const skeleton = new SkeletonAsset(cylinder.skeleton);
  const skin = new SkinAsset(skeleton, cylinder.skin);
  const eid = addEntity(world);
  addCharacter(world, eid, skeleton, skin);
  const clip = (name: string, angle: number) =>
    createClip({
      name,
      channels: [{
        joint: 2,
        path: "rotation",
        interpolation: "LINEAR",
        times: new Float32Array([0, 0.5, 1]),
        values: new Float32Array([
          0,
          0,
          0,
          1,
          Math.sin(angle / 2),
          0,
          0,
          Math.cos(angle / 2),
          0,
          0,
          0,
          1,
        ]),
      }],
    });
  const [prepared, listed, unprepared] = [clip("prepared", 1), clip("listed", 2), clip("bare", 3)];
  const start = buildCounters.builds;
  prepareClip(skeleton, prepared);
  prepareClips(skeleton, [listed]);
  assertEquals(buildCounters.builds, start + 2);
  for (const c of [prepared, listed]) {
    playClip(world, eid, c);
    animate(world, DT);
  }
  assertEquals(buildCounters.builds, start + 2, "prepared clips build nothing in play");
  playClip(world, eid, unprepared);
  assertEquals(buildCounters.builds, start + 3, "an unprepared clip builds on first play");
  animate(world, DT);
  playClip(world, eid, unprepared);
  animate(world, DT);
  assertEquals(buildCounters.builds, start + 3, "and only then");
});

Deno.test("prepareClip checks a clip's morph channels: its first playClip checks none, a bad one builds nothing", async () => {
  const world = createWorld();
  createAnimation(world);
  const cylinder = createCylinder({ joints: 4 });
  const skeleton = new SkeletonAsset(cylinder.skeleton);
  const eid = addEntity(world);
  addCharacter(world, eid, skeleton, new SkinAsset(skeleton, cylinder.skin));
  const morphed = (name: string, weight: number): Clip => ({
    name,
    animation: 0,
    start: 0,
    duration: 1,
    channels: [{
      node: 1,
      joint: 1,
      path: "translation",
      interpolation: "LINEAR",
      times: new Float32Array([0, 1]),
      values: new Float32Array([0, 1, 0, 0, 2, 0]),
    }],
    morphChannels: [{
      node: 0,
      mesh: 0,
      targetCount: 2,
      interpolation: "LINEAR",
      times: new Float32Array([0, 1]),
      values: new Float32Array([0, weight, 1, 0]),
    }],
  });
  // Refused before its build.
  const bad = morphed("bad", NaN), start = buildCounters.builds;
  assertThrows(() => prepareClip(skeleton, bad), ClipError, "morphChannels[0]: values[1] is NaN");
  assertThrows(() => prepareClips(skeleton, [bad]), ClipError, "morphChannels[0]");
  await assertRejects(() => prepareClipsOnWorkers(skeleton, [bad]), ClipError, "morphChannels[0]");
  assertEquals(buildCounters.builds, start, "a clip refused builds nothing");
  // A clip checked is not checked again (its weights spoiled after): prepared, its first play
  // checks nothing; unprepared, the same spoiling is refused in play.
  const [prepared, bare] = [morphed("prepared", 0.5), morphed("bare", 0.5)];
  prepareClips(skeleton, [prepared]);
  for (const clip of [prepared, bare]) clip.morphChannels![0].values[1] = NaN;
  playClip(world, eid, prepared);
  assertThrows(() => playClip(world, eid, bare), ClipError, "morphChannels[0]: values[1] is NaN");
});

Deno.test("prepareClip and prepareClips name a bad skeleton or list in a TypeError, before any build", () => {
  const { skeleton: definition } = createCylinder({ joints: 3 });
  const clip = createClip({
    name: "step",
    channels: [{
      joint: 1,
      path: "translation",
      interpolation: "LINEAR",
      times: new Float32Array([0, 1]),
      values: new Float32Array([0, 1, 0, 0, 2, 0]),
    }],
  });
  const disposed = new SkeletonAsset(definition);
  disposed.dispose();
  const start = buildCounters.builds;
  assertThrows(
    () => prepareClip(disposed, clip),
    TypeError,
    "prepareClip: skeleton: it was disposed",
  );
  assertThrows(
    () => prepareClips(disposed, [clip]),
    TypeError,
    "prepareClips: skeleton: it was disposed",
  );
  assertThrows(
    () => prepareClip({} as SkeletonAsset, clip),
    TypeError,
    "prepareClip: skeleton: expected a SkeletonAsset",
  );
  using skeleton = new SkeletonAsset(definition);
  assertThrows(
    () => prepareClips(skeleton, clip as unknown as Clip[]),
    TypeError,
    "prepareClips: clips: expected an array",
  );
  assertEquals(buildCounters.builds, start, "nothing refused was built");
});
