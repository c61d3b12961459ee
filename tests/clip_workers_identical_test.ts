/**
 * Clips prepared on worker threads are the clips a build on the calling
 * thread makes: for every clip of every test model (the test-only ones when
 * `../shared` has them), the compact form `prepareClipsOnWorkers` attaches
 * has the same bytes, counts and error as `compactClip`'s on another core
 * of the same build, and samples bit for bit as it does through a
 * playback (forward steps, seeks, reversed steps). On the fastest build for
 * every model, and for two on the scalar build (the forms go into scalar
 * cores; a build measures on its own SIMD core whatever the skeleton's).
 */
import "../scalar.ts";
import { assertEquals } from "@std/assert";
import { SkeletonAsset } from "../mod.ts";
import { compactClip, createClipWorkers, prepareClipsOnWorkers } from "../clips.ts";
import { Core, type CoreBuild } from "../kernels.ts";
import { importGltf } from "../gltf/mod.ts";
import { compactClipParts } from "../animation/_compact_parts.ts";
import { bestBuild } from "../simd/wasm/_core.ts";
import { playTimes, samplePlayback } from "./_clip_file.ts";
import { assetUrl, listAssets, testOnModels } from "./_three_gltf.ts";

/** Seeded uniform numbers in [0, 1). */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32);
}

function bitsEqual(a: Float32Array, b: Float32Array): boolean {
  const ua = new Uint32Array(a.buffer, a.byteOffset, a.length);
  const ub = new Uint32Array(b.buffer, b.byteOffset, b.length);
  return ua.length === ub.length && ua.every((bits, i) => bits === ub[i]);
}

async function checkModel(file: string, build: CoreBuild): Promise<void> {
  const model = await importGltf(assetUrl(file));
  using clipWorkers = createClipWorkers({ workers: 2 });
  assertEquals(clipWorkers.mode, "workers", "Deno runs module workers");
  let compared = 0;
  for (const gltfSkeleton of model.skeletons) {
    if (gltfSkeleton.clips.length === 0) continue;
    const syncCore = Core.create(build), workerCore = Core.create(build);
    using syncSkeleton = new SkeletonAsset(gltfSkeleton.skeleton, syncCore);
    using workerSkeleton = new SkeletonAsset(gltfSkeleton.skeleton, workerCore);
    // The synchronous builds first: a clip prepared on workers is not built from its keys again.
    const built = gltfSkeleton.clips.map((clip) => compactClip(clip, syncSkeleton));
    const prepared = await prepareClipsOnWorkers(workerSkeleton, gltfSkeleton.clips, {
      clipWorkers,
    });
    for (const [i, clip] of gltfSkeleton.clips.entries()) {
      const where = `${file} (${build}), skin ${gltfSkeleton.skin}, clip ${i} "${clip.name}"`;
      const a = compactClipParts(built[i], syncSkeleton);
      const b = compactClipParts(prepared[i], workerSkeleton);
      assertEquals(
        [b.trackCount, b.keyCount, b.tolerance, b.virtualDistance, b.maxError, b.steps],
        [a.trackCount, a.keyCount, a.tolerance, a.virtualDistance, a.maxError, a.steps],
        `${where}: counts and error`,
      );
      assertEquals(b.image.length, a.image.length, `${where}: bytes`);
      assertEquals(b.image.every((byte, k) => byte === a.image[k]), true, `${where}: image`);
      const times = playTimes(clip.duration, random(i + 1));
      const poses = samplePlayback(syncCore, built[i], times);
      const workerPoses = samplePlayback(workerCore, prepared[i], times);
      for (let t = 0; t < times.length; t++) {
        assertEquals(
          bitsEqual(workerPoses[t], poses[t]),
          true,
          `${where}: pose at ${times[t]} (sample ${t})`,
        );
      }
      compared++;
    }
  }
  assertEquals(compared > 0, true, `${file}: some clip was compared`);
}

for (const file of listAssets()) {
  testOnModels(
    [file],
    `${file}: clips prepared on workers sample bit for bit as built here`,
    () => checkModel(file, bestBuild()),
  );
}
for (const file of ["CesiumMan.glb", "Fox.glb"]) {
  testOnModels(
    [file],
    `${file}: clips prepared on workers for scalar cores sample bit for bit too`,
    () => checkModel(file, "scalar"),
  );
}
