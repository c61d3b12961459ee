/**
 * The first play of a clip pays nothing a later play does not, on the
 * README's path (importGltf → createCharacterAssets → addCharacter →
 * playClip → animate). Counted, never timed (`deno task bench:first-play`
 * times it): `createAnimationPipeline` plays its private warm-up character
 * once per process and core (`systems/_warm_up.ts`), gives back every byte
 * and clip it took, and no warm-up runs later; the first `playClip` and its
 * frame grow no store of the world (every store was sized when the
 * character was added) and register no query (`createAnimation` registered
 * the systems'), and every clip of the test models is sampled by a
 * kernel the warm-up ran (a never-run kernel is compiled, and runs
 * unoptimized, inside the first play's frame).
 */
import { assertEquals } from "@std/assert";
import { addEntity, createWorld } from "bitecs";
import { addCharacter, createAnimation, createAnimationPipeline, playClip } from "../mod.ts";
import { clipBytes, setClipBudget } from "../clips.ts";
import { Core } from "../kernels.ts";
import { createCharacterAssets, importGltf } from "../gltf/mod.ts";
import { stateOf } from "../components/_lifecycle.ts";
import { warmPlayPath, warmUpClips, warmUps } from "../systems/_warm_up.ts";
import type { Clip } from "../animation/clip.ts";
import { compactClip } from "../animation/compact_clip.ts";
import { compactClipParts } from "../animation/_compact_parts.ts";
import { SkeletonAsset } from "../animation/skeleton_asset.ts";
import { PoseField, poseFloats, poseIndex } from "../simd/memory/layout.ts";
import { CLIP_SHARED_KEYS } from "../simd/abi.ts";
import { assetUrl, listAssets, testOnModels } from "./_three_gltf.ts";

const DT = 1 / 60;

Deno.test("createAnimationPipeline warms the play path once per core and gives back all it took", () => {
  createAnimationPipeline();
  const { count, completed } = warmUps;
  // Core.default was warmed by the pipeline: no second warm-up.
  warmPlayPath(Core.default, createAnimationPipeline());
  assertEquals(warmUps.count, count, "the pipeline warmed the default core");
  const core = Core.create();
  const animate = createAnimationPipeline();
  const bytes = core.allocatedBytes, clips = clipBytes(core);
  warmPlayPath(core, animate);
  assertEquals(warmUps.count, count + 1, "a new core is warmed");
  assertEquals(warmUps.completed, completed + 1, "the warm-up played through");
  assertEquals(core.allocatedBytes, bytes, "the warm-up gave back its core memory");
  assertEquals(clipBytes(core), clips, "the warm-up gave back its clip");
  warmPlayPath(core, createAnimationPipeline());
  assertEquals(warmUps.count, count + 1, "once per core");
});

Deno.test("a warm-up the core refuses (clip budget) leaves a working pipeline and gives back its assets", () => {
  const core = Core.create();
  setClipBudget(core, 16);
  const animate = createAnimationPipeline();
  const bytes = core.allocatedBytes, { count, completed } = warmUps;
  warmPlayPath(core, animate);
  assertEquals(warmUps.count, count + 1);
  assertEquals(warmUps.completed, completed, "refused: it did not play through");
  assertEquals(core.allocatedBytes, bytes, "the refused warm-up gave back its assets");
});

/** Every typed array of the world's stores, by name: a grown store is a new array. */
function storeArrays(world: object): Map<string, unknown> {
  const state = stateOf(world, "test");
  const arrays = new Map<string, unknown>();
  const stores: [string, object][] = [
    ...Object.entries(state.components as unknown as Record<string, object>),
    ["owned", state.resources.owned],
  ];
  for (const [name, store] of stores) {
    for (const [field, array] of Object.entries(store)) {
      if (ArrayBuffer.isView(array)) arrays.set(`${name}.${field}`, array);
    }
  }
  arrays.set("capacity", state.resources.capacity);
  return arrays;
}

/** The sampling kernel that plays `clip` built for `skeleton` (by default): its layout. */
function samplerOf(clip: Clip, skeleton: SkeletonAsset): string {
  const { image } = compactClipParts(compactClip(clip, skeleton), skeleton);
  const shared = new DataView(image.buffer).getUint32(CLIP_SHARED_KEYS, true) !== 0;
  return shared ? "shared timeline" : "per-track keys";
}

/** The samplers the warm-up's clips play through, built on a chain of their joints. */
function warmUpSamplers(): Set<string> {
  const clips = warmUpClips();
  const joints = 1 + Math.max(...clips.flatMap((c) => c.channels.map((ch) => ch.joint)));
  const restPose = new Float32Array(poseFloats(joints));
  for (let j = 0; j < joints; j++) {
    restPose[poseIndex(j, PoseField.TY)] = j === 0 ? 0 : 1;
    for (const field of [PoseField.QW, PoseField.SX, PoseField.SY, PoseField.SZ]) {
      restPose[poseIndex(j, field)] = 1;
    }
  }
  const skeleton = new SkeletonAsset({
    names: Array.from({ length: joints }, (_, j) => `j${j}`),
    parents: Int16Array.from({ length: joints }, (_, j) => j - 1),
    restPose,
    inverseBind: new Float32Array(joints * 12),
  }, Core.create());
  return new Set(clips.map((clip) => samplerOf(clip, skeleton)));
}
let warmSamplers: Set<string> | undefined;

for (const file of listAssets()) {
  testOnModels(
    [file],
    `${file}: the first playClip and its frame grow no store, register no query and warm nothing, and its clips play through samplers the warm-up ran`,
    async () => {
      const model = await importGltf(assetUrl(file));
      const world = createWorld();
      createAnimation(world);
      const animate = createAnimationPipeline();
      const characters = [];
      for (const gltfSkeleton of model.skeletons) {
        if (gltfSkeleton.primitives.length === 0 || gltfSkeleton.clips.length === 0) continue;
        const { skeleton, skin } = createCharacterAssets(gltfSkeleton);
        const eid = addEntity(world);
        addCharacter(world, eid, skeleton, skin);
        characters.push({ eid, clip: gltfSkeleton.clips[0] });
        warmSamplers ??= warmUpSamplers();
        for (const clip of gltfSkeleton.clips) {
          const sampler = samplerOf(clip, skeleton);
          assertEquals(
            warmSamplers.has(sampler),
            true,
            `${file}: clip "${clip.name}" plays through the ${sampler} sampler, which the warm-up never ran`,
          );
        }
      }
      const before = storeArrays(world), warmed = warmUps.count;
      const queries = [...stateOf(world, "test").queries.keys()];
      for (const { eid, clip } of characters) {
        playClip(world, eid, clip);
        animate(world, DT);
      }
      const after = storeArrays(world);
      for (const [name, array] of before) {
        assertEquals(after.get(name) === array, true, `${file}: ${name} grew in the first play`);
      }
      assertEquals(warmUps.count, warmed, "no warm-up inside a play or a frame");
      assertEquals(
        [...stateOf(world, "test").queries.keys()],
        queries,
        `${file}: the first frame registered a query (createAnimation registers the systems')`,
      );
    },
  );
}
