/**
 * Compact clips: every SIMD build samples exactly as the scalar reference
 * (`simd/scalar/sample.ts`) on random clips and random time sequences
 * (forward, seeks, reversed); the reported maximum error bounds the error
 * measured at random times against the exact sampler, on random clips and
 * on every clip of the real models; STEP keys are exact.
 */
import "../scalar.ts";
import fc from "fast-check";
import { assert, assertEquals, assertLessOrEqual } from "@std/assert";
import { type Clip, createClip, SkeletonAsset } from "../mod.ts";
import { importGltf } from "../gltf/mod.ts";
import { clipBytes, compactClip, disposeClip } from "../clips.ts";
import { Core } from "../kernels.ts";
import { ClipSampler } from "../animation/clip_sampler.ts";
import { exactPose } from "../animation/_clip_error.ts";
import { coreMemory } from "../simd/memory/_instance.ts";
import { fcParams } from "./_arbitrary.ts";
import { random } from "./_scene.ts";
import {
  assertSimdMatchesScalar,
  bound,
  measuredError,
  randomClip,
  randomSkeleton,
  sampleOnCore,
  SIMD_BUILDS,
  timeSequence,
} from "./_compact.ts";
import { assetUrl, listAssets, testOnModels } from "./_three_gltf.ts";
import { lifetimeOf } from "../animation/_lifetime.ts";

Deno.test("compact sampling: every SIMD build equals the scalar reference on random clips", () => {
  fc.assert(
    fc.property(fc.integer({ min: 1, max: 11 }), fc.nat(), (joints, seed) => {
      const next = random(seed + 1);
      const definition = randomSkeleton(joints, next);
      const clip = randomClip(joints, next);
      const times = timeSequence(next, clip.duration);
      assertSimdMatchesScalar(definition, clip, times);
    }),
    fcParams(30),
  );
});

Deno.test("compact clips: the reported maximum error bounds the error at random times", () => {
  for (let seed = 1; seed <= 20; seed++) {
    const next = random(seed);
    const joints = 1 + Math.floor(next() * 10);
    const definition = randomSkeleton(joints, next);
    const clip = randomClip(joints, next);
    const compact = compactClip(clip, new SkeletonAsset(definition, Core.create("scalar")));
    const times = Array.from({ length: 300 }, () => next() * clip.duration);
    const measured = measuredError(definition, clip, times, compact.virtualDistance);
    assertLessOrEqual(measured, bound(compact.maxError, definition), `seed ${seed}`);
  }
});

Deno.test("compact clips: STEP keys are exact", () => {
  const clip = createClip({
    name: "step",
    channels: [{
      joint: 1,
      path: "translation",
      interpolation: "STEP",
      times: Float32Array.of(0, 0.5, 1),
      values: Float32Array.of(0.1, 0.2, 0.3, 1.7, -2.9, 3.3, 0.123456789, 5, 6),
    }],
  });
  const definition = randomSkeleton(3, random(7));
  const times = [0, 0.25, 0.4999, 0.5, 0.75, 1, 2, 0.5, 0];
  for (const build of ["scalar", ...SIMD_BUILDS] as const) {
    const poses = sampleOnCore(build, definition, clip, times);
    const rest = new SkeletonAsset(definition, Core.create("scalar")).restPose;
    // The STEP lane (joint 1's translation) holds the file's floats exactly.
    const lane = [1, 5, 9];
    poses.forEach((pose, i) => {
      const exact = exactPose(clip, rest, times[i]);
      assertEquals(lane.map((k) => pose[k]), lane.map((k) => exact[k]), `${build} t=${times[i]}`);
    });
  }
});

for (const file of listAssets()) {
  testOnModels(
    [file],
    `${file}: every compact clip's reported error bounds the measured one`,
    async () => {
      const model = await importGltf(assetUrl(file));
      const next = random(0x5eed);
      let clips = 0;
      for (const gltfSkeleton of model.skeletons.slice(0, 4)) {
        const definition = gltfSkeleton.skeleton;
        for (const clip of gltfSkeleton.clips.slice(0, 8)) {
          const compact = compactClip(clip, new SkeletonAsset(definition, Core.create("scalar")));
          const times = Array.from({ length: 64 }, () => next() * clip.duration);
          const measured = measuredError(definition, clip, times, compact.virtualDistance);
          assertLessOrEqual(measured, bound(compact.maxError, definition), `clip "${clip.name}"`);
          clips++;
        }
      }
      assert(clips > 0);
    },
  );
}

Deno.test("compact clips: skeletons of one core with the same parents and rest pose share one, soundly", () => {
  const next = random(11);
  const definition = randomSkeleton(6, next);
  const clip = randomClip(6, next);
  const core = Core.create("scalar");
  const [a, b] = [0, 1].map(() => new SkeletonAsset(definition, core));
  const shared = compactClip(clip, a);
  assert(compactClip(clip, b) === shared, "the same structure shares the clip");
  assertEquals(clipBytes(core), shared.bytes);
  // A rest pose differing in one float, or another core, builds its own.
  const moved = { ...definition, restPose: definition.restPose.slice() };
  moved.restPose[0] += 0.25;
  const own = compactClip(clip, new SkeletonAsset(moved, core));
  assert(own !== shared);
  assertEquals(clipBytes(core), shared.bytes + own.bytes);
  assert(compactClip(clip, new SkeletonAsset(definition, Core.create("scalar"))) !== shared);
  // b plays it; a's memory going disposes it, but it stays until b stops.
  const sampler = new ClipSampler(compactClip(clip, b), coreMemory(core));
  a.dispose();
  assert(lifetimeOf(shared).disposed);
  assertEquals(clipBytes(core), shared.bytes + own.bytes);
  sampler.release();
  assertEquals(clipBytes(core), own.bytes);
  const rebuilt = compactClip(clip, b);
  assert(rebuilt !== shared && !lifetimeOf(rebuilt).disposed);
  assertEquals(clipBytes(core), own.bytes + rebuilt.bytes);
});

Deno.test("compact clips: a rig's clips on the same key arrays share one; options and disposal keep them apart", async () => {
  const model = await importGltf(
    new URL("./fixtures/gltf/RobotExpressive.glb", import.meta.url),
  );
  // Two skeleton assets of one rig, each with its own clip objects on the
  // same key arrays (as an importer that cut one clip per skin made them).
  const [rig] = model.skeletons;
  const copy = (clip: Clip): Clip => ({ ...clip, channels: clip.channels.map((c) => ({ ...c })) });
  const [a, b] = [rig, { ...rig, clips: rig.clips.map(copy) }];
  const core = Core.create("scalar");
  const [skeletonA, skeletonB] = [a, b].map((s) => new SkeletonAsset(s.skeleton, core));
  const [clipA, clipB] = [a.clips[0], b.clips[0]];
  assert(clipA !== clipB, "a clip per skeleton asset");
  const shared = compactClip(clipA, skeletonA);
  assert(compactClip(clipB, skeletonB) === shared);
  assertEquals(clipBytes(core), shared.bytes);
  // Options ask for a build of its own; a clip with other keys is another clip.
  const tight = compactClip(b.clips[1], skeletonB, { tolerance: shared.tolerance / 2 });
  assert(tight !== shared && tight !== compactClip(a.clips[1], skeletonA));
  const other = compactClip(a.clips[2], skeletonA);
  assert(other !== shared);
  // Disposing one of the clips disposes the shared build; the other builds again.
  const before = clipBytes(core);
  disposeClip(clipA);
  assert(lifetimeOf(shared).disposed);
  assertEquals(clipBytes(core), before - shared.bytes);
  const rebuilt = compactClip(clipB, skeletonB);
  assert(rebuilt !== shared && !lifetimeOf(rebuilt).disposed);
  assertEquals(clipBytes(core), before);
});

Deno.test("compact clips: a clip on key arrays written after a build does not share it", () => {
  const definition = randomSkeleton(3, random(5));
  const skeleton = new SkeletonAsset(definition, Core.create("scalar"));
  const times = Float32Array.of(0, 0.5, 1);
  const values = Float32Array.of(0, 0, 0, 1, 2, 3, -1, 0.5, 2);
  const make = () =>
    createClip({
      name: "moved",
      channels: [{ joint: 1, path: "translation", interpolation: "LINEAR", times, values }],
    });
  const first = compactClip(make(), skeleton);
  assert(compactClip(make(), skeleton) === first, "same arrays, same contents");
  values[4] = 7;
  const after = compactClip(make(), skeleton);
  assert(after !== first, "contents changed in place");
  assert(compactClip(make(), skeleton) === after);
});
