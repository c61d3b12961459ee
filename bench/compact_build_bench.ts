/**
 * Compact clip builds per test model: group `compact build: <model>`, each
 * build of every clip of the file for its skeleton (`new CompactClip`,
 * default options, a build per clip and skeleton as `prepareClips` does
 * it), against importing the file (`importGltf`: parse and validate) as
 * the baseline. The group's name gives the MB of the file's animation data
 * (the accessors its animations read): MB/s is that over the build's time.
 *
 * @module
 */
import { SkeletonAsset } from "../mod.ts";
import { importGltf } from "../gltf/mod.ts";
import { Core } from "../kernels.ts";
import { CompactClip } from "../animation/compact_clip.ts";
import { lifetimeOf } from "../animation/_lifetime.ts";
import { animationBytes } from "./_clip_memory.ts";
import { missingTestOnlyModels } from "../tests/_assets.ts";
import { listAssets, readAsset } from "../tests/_three_gltf.ts";

for (const file of listAssets().filter((f) => !missingTestOnlyModels().includes(f))) {
  const bytes = readAsset(file);
  const model = await importGltf(bytes);
  const core = Core.create("simd");
  const builds = model.skeletons.filter((s) => s.clips.length > 0).map((s) => ({
    skeleton: new SkeletonAsset(s.skeleton, core),
    clips: s.clips,
  }));
  if (builds.length === 0) continue;
  const megabytes = animationBytes(bytes) / 1e6;
  const group = `compact build: ${file} (${megabytes.toFixed(3)} MB of animation data)`;
  Deno.bench({
    name: `compact build: ${file}: importGltf (parse and validate)`,
    group,
    baseline: true,
    fn: async () => {
      await importGltf(bytes);
    },
  });
  Deno.bench({
    name: `compact build: ${file}: every clip built for its skeleton`,
    group,
    fn: () => {
      for (const { skeleton, clips } of builds) {
        for (const clip of clips) lifetimeOf(new CompactClip(clip, skeleton)).dispose();
      }
    },
  });
}
