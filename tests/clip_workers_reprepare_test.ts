/**
 * A clip prepared on workers holds its compact form as a clip built here
 * does: after `disposeClip`, after its skeleton is disposed, and for a
 * skeleton on another core, `prepareClips` (and so `createCharacterAssets`)
 * builds it here, once, and it then plays without a build, sampling as
 * before; played unprepared on a new structure it builds there, as any
 * clip does (the hitch the preparation avoids).
 */
import { assertEquals } from "@std/assert";
import { prepareClips, SkeletonAsset } from "../mod.ts";
import { compactClip, createClipWorkers, disposeClip, saveCompactClips } from "../clips.ts";
import { Core } from "../kernels.ts";
import { createCharacterAssets, createCharacterAssetsAsync, importGltf } from "../gltf/mod.ts";
import { buildCounters } from "../animation/_build_work.ts";
import { assetUrl } from "./_three_gltf.ts";

Deno.test("clips prepared on workers are prepared again here once their forms are gone", async () => {
  const model = await importGltf(assetUrl("CesiumMan.glb"));
  const character = model.skeletons[0];
  const clips = character.clips;
  using clipWorkers = createClipWorkers({ workers: 1 });
  const core = Core.create();
  const reference = saveCompactClips(new SkeletonAsset(character.skeleton, Core.create()), [
    ...clips.map((c) => ({ ...c })),
  ]);

  const first = await createCharacterAssetsAsync(character, { core, clipWorkers });
  clips.forEach(disposeClip);
  let before = buildCounters.builds;
  prepareClips(first.skeleton, clips);
  assertEquals(buildCounters.builds, before + clips.length, "built again after disposeClip");
  before = buildCounters.builds;
  clips.forEach((clip) => compactClip(clip, first.skeleton));
  assertEquals(buildCounters.builds, before, "and attached: no build on play");
  assertEquals(saveCompactClips(first.skeleton, clips), reference);

  first.skin.dispose();
  first.skeleton.dispose();
  await createCharacterAssetsAsync(character, { core, clipWorkers });
  const other = new SkeletonAsset(character.skeleton, Core.create());
  before = buildCounters.builds;
  compactClip(clips[0], other);
  assertEquals(buildCounters.builds, before + 1, "built from its keys where it has no form");
  before = buildCounters.builds;
  const again = createCharacterAssets(character, Core.create());
  assertEquals(buildCounters.builds, before + clips.length, "createCharacterAssets built them");
  assertEquals(saveCompactClips(again.skeleton, clips), reference);
});
