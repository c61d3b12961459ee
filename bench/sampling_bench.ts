/**
 * Clip sampling kernels: each SIMD build of the core against the scalar
 * reference (the baseline) running on plain `Float32Array`s. Divide a time
 * by the group's joint count for ns/joint.
 *
 * - `blendPoses` at 1024 joints: two random poses (unit quaternions, half of
 *   the pairs in opposite hemispheres so the shorter-arc flip is taken),
 *   blended at a fixed weight into a third pose.
 */
import * as ref from "../simd/scalar/mod.ts";
import { type CoreBuild, instantiate, isBuildSupported } from "../simd/wasm/_core.ts";
import { random, randomPose } from "../tests/_scene.ts";

const JOINTS = 1024;
const WEIGHT = 0.3;

const next = random(0x9e3779b9);
const a = randomPose(JOINTS, next);
const b = randomPose(JOINTS, next);
const out = new Float32Array(a.length);

/** A core of `build` holding copies of the inputs, and its kernels. */
function setUp(build: CoreBuild) {
  const { memory, kernels } = instantiate(build);
  const at = {
    a: memory.alloc(a.byteLength),
    b: memory.alloc(b.byteLength),
    out: memory.alloc(out.byteLength),
  };
  const views = memory.views();
  views.f32.set(a, at.a >> 2);
  views.f32.set(b, at.b >> 2);
  return { kernels, at };
}

const builds = (["simd", "relaxed-simd"] as const).filter(isBuildSupported);
const cores = builds.map((build) => ({ build, ...setUp(build) }));

const group = `blendPoses ${JOINTS} joints`;
Deno.bench({
  name: "blendPoses scalar reference",
  group,
  baseline: true,
  fn: () => ref.blendPoses(a, b, out, JOINTS, WEIGHT),
});
for (const { build, kernels, at } of cores) {
  Deno.bench({
    name: `blendPoses ${build}`,
    group,
    fn: () => kernels.blendPoses(at.a, at.b, at.out, JOINTS, WEIGHT),
  });
}

// "sampling": 100 Xbots playing "walk", one entity per character (its first skinned skeleton).
import { addEntity, createWorld } from "bitecs";
import {
  addJointQuat,
  addSkeleton,
  createAnimation,
  getPose,
  playClip,
  sampleClipsSystem,
  SkeletonAsset,
} from "../mod.ts";
import { importGltf } from "../gltf/mod.ts";
import { sampleClip, wrapTime } from "../clips.ts";
import { Core as MarrowCore } from "../kernels.ts";
import { BakedClip } from "./_baked_clip.ts";
import { coreKernels, coreMemory } from "../simd/memory/_instance.ts";
import {
  BLEND_A,
  BLEND_B,
  BLEND_JOINT_COUNT,
  BLEND_OUT,
  BLEND_WEIGHT,
  JOB_WORDS,
} from "../simd/abi.ts";
import { missingTestOnlyModels } from "../tests/_assets.ts";
import { assetUrl } from "../tests/_three_gltf.ts";

if (!missingTestOnlyModels().includes("Xbot.glb")) {
  const DT = 1 / 60, COUNT = 100;
  const model = await importGltf(assetUrl("Xbot.glb"));
  const gltfSkeleton = model.skeletons.find((s) => s.primitives.length > 0)!;
  const clip = gltfSkeleton.clips.find((c) => c.name === "walk")!;
  const scene = (build: "simd" | "relaxed-simd") => {
    const core = MarrowCore.create(build);
    const world = createWorld();
    createAnimation(world, { core });
    const skeleton = new SkeletonAsset(gltfSkeleton.skeleton, core);
    const entities = Array.from({ length: COUNT }, (_, i) => {
      const eid = addEntity(world);
      addSkeleton(world, eid, skeleton);
      addJointQuat(world, eid);
      playClip(world, eid, clip, { time: i * 0.1 });
      return eid;
    });
    return { core, world, skeleton, entities };
  };
  const group = `sampling: ${COUNT} × Xbot walk, one entity each, per frame`;
  const base = scene("simd");
  let time = 0;
  Deno.bench({
    name: "sampling: exact scalar sampler (sampleClip)",
    group,
    baseline: true,
    fn: () => {
      time += DT;
      base.entities.forEach((eid, i) => {
        const pose = getPose(base.world, eid);
        pose.set(gltfSkeleton.skeleton.restPose);
        sampleClip(clip, wrapTime(time + i * 0.1, clip.duration, "loop"), pose);
      });
    },
  });
  for (const build of builds) {
    const s = scene(build);
    Deno.bench({
      name: `sampling: compact, forward (sampleClipsSystem) ${build}`,
      group,
      fn: () => sampleClipsSystem(s.world, DT),
    });
    const r = scene(build);
    let seed = 1;
    Deno.bench({
      name: `sampling: compact, random access (a seek per entity per frame) ${build}`,
      group,
      fn: () => {
        // A large step per frame: every lane searches instead of walking forward.
        seed = (seed * 1103515245 + 12345) & 0x7fffffff;
        sampleClipsSystem(r.world, (seed % 1000) / 1000 * clip.duration + 0.37);
      },
    });
    // The baked format it replaces: two baked frames blended per entity, one call.
    const b = scene(build);
    const baked = new BakedClip(clip, b.skeleton);
    const memory = coreMemory(b.core);
    const jobs = memory.alloc(COUNT * JOB_WORDS * 4);
    const poses = b.entities.map(() => memory.alloc(40 * 17 * 4));
    let bakedTime = 0;
    Deno.bench({
      name: `sampling: baked frames (blendPosesBatch) ${build}`,
      group,
      fn: () => {
        bakedTime += DT;
        const { u32, f32 } = memory.views();
        for (let i = 0; i < COUNT; i++) {
          const [a, c, w] = baked.locate(wrapTime(bakedTime + i * 0.1, clip.duration, "loop"));
          const at = (jobs >> 2) + i * JOB_WORDS;
          u32[at + BLEND_A] = a, u32[at + BLEND_B] = c, u32[at + BLEND_OUT] = poses[i];
          u32[at + BLEND_JOINT_COUNT] = 68, f32[at + BLEND_WEIGHT] = w;
        }
        coreKernels(b.core).blendPosesBatch(jobs, COUNT);
      },
    });
  }
}
