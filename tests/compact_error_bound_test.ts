/**
 * The error a compact clip reports is what plays: on every real model, each
 * clip built for a scalar core and played on a SIMD core stays within its
 * reported `maxError` (plus float noise) at the clip's key times, which
 * every build measures, and the same clip built for a SIMD core reports the
 * same error (the build measures on one core, whatever core it is for).
 */
import "../scalar.ts";
import { assert, assertEquals, assertLessOrEqual } from "@std/assert";
import { SkeletonAsset } from "../mod.ts";
import { compactClip } from "../clips.ts";
import { Core } from "../kernels.ts";
import { importGltf } from "../gltf/mod.ts";
import { measuredError, SIMD_BUILDS } from "./_compact.ts";
import { assetUrl, listAssets, testOnModels } from "./_three_gltf.ts";

/** The builds measure at most 4096 times: three per distinct key time, and bisected pieces' times. */
const MEASURED_TIMES = 4096;

for (const file of listAssets()) {
  testOnModels(
    [file],
    `${file}: the played clip stays within the reported error at the key times`,
    async () => {
      const model = await importGltf(assetUrl(file));
      let clips = 0, dense = 0;
      for (const gltfSkeleton of model.skeletons.slice(0, 2)) {
        const definition = gltfSkeleton.skeleton;
        for (const clip of gltfSkeleton.clips.slice(0, 6)) {
          const times = [...new Set(clip.channels.flatMap((c) => [...c.times]))];
          if (times.length * 4 > MEASURED_TIMES) {
            dense++;
            continue;
          }
          const scalar = compactClip(clip, new SkeletonAsset(definition, Core.create("scalar")));
          for (const build of SIMD_BUILDS) {
            const simd = compactClip(clip, new SkeletonAsset(definition, Core.create(build)));
            assertEquals(simd.maxError, scalar.maxError, `${build}: clip "${clip.name}"`);
          }
          const measured = measuredError(definition, clip, times, scalar.virtualDistance);
          // Noise: the test's SIMD build and its scalar exact poses against
          // the build's kernels, a few float32 roundings of the model's size.
          const noise = 1e-7 * (scalar.tolerance / 1e-5);
          assertLessOrEqual(measured, scalar.maxError + noise, `clip "${clip.name}"`);
          clips++;
        }
      }
      // A clip of more key times than the build measures at (BrainStem's)
      // is measured at some of them only: checked by compact_clip_test's
      // bound at random times.
      assert(clips > 0 || dense > 0);
    },
  );
}
