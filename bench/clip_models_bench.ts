/**
 * Clip sampling on every test model: per model a group whose baseline is
 * the exact scalar sampler (`sampleClip`), beside the compact clips played
 * by `sampleClipsSystem` and the baked frames of earlier versions
 * (`blendPosesBatch`), relaxed SIMD. Each of a model's clips plays on
 * each skeleton that has it, ten times, 0.1 s apart: the speed per model
 * of the compact clip table in the README.
 *
 * @module
 */
import { addEntity, createWorld } from "bitecs";
import {
  addJointQuat,
  addSkeleton,
  type Clip,
  createAnimation,
  getPose,
  playClip,
  sampleClipsSystem,
  SkeletonAsset,
} from "../mod.ts";
import { importGltf } from "../gltf/mod.ts";
import { sampleClip, wrapTime } from "../clips.ts";
import { Core } from "../kernels.ts";
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
import { isBuildSupported } from "../simd/wasm/_core.ts";
import { poseFloats } from "../simd/memory/layout.ts";
import { missingTestOnlyModels } from "../tests/_assets.ts";
import { assetUrl, listAssets } from "../tests/_three_gltf.ts";

const DT = 1 / 60, COPIES = 10;
const build = isBuildSupported("relaxed-simd") ? "relaxed-simd" : "simd";

for (const file of listAssets().filter((f) => !missingTestOnlyModels().includes(f))) {
  const model = await importGltf(assetUrl(file));
  const core = Core.create(build);
  const world = createWorld();
  createAnimation(world, { core });
  const playbacks: {
    eid: number;
    clip: Clip;
    offset: number;
    rest: Float32Array;
    baked: BakedClip;
    pose: number;
    lanes: number;
  }[] = [];
  const memory = coreMemory(core);
  for (const gltfSkeleton of model.skeletons) {
    if (gltfSkeleton.clips.length === 0) continue;
    const skeleton = new SkeletonAsset(gltfSkeleton.skeleton, core);
    for (const clip of gltfSkeleton.clips) {
      const baked = new BakedClip(clip, skeleton);
      for (let i = 0; i < COPIES; i++) {
        const eid = addEntity(world);
        addSkeleton(world, eid, skeleton);
        addJointQuat(world, eid);
        playClip(world, eid, clip, { time: i * 0.1 });
        const pose = memory.alloc(poseFloats(skeleton.jointCount) * 4);
        const rest = gltfSkeleton.skeleton.restPose;
        const lanes = Math.ceil(skeleton.jointCount / 4) * 4;
        playbacks.push({ eid, clip, offset: i * 0.1, rest, baked, pose, lanes });
      }
    }
  }
  if (playbacks.length === 0) continue;
  const group = `sampling per model: ${file}, ${playbacks.length} playbacks`;
  let exactTime = 0, bakedTime = 0;
  Deno.bench({
    name: `sampling per model: ${file}: exact scalar sampler (sampleClip)`,
    group,
    baseline: true,
    fn: () => {
      exactTime += DT;
      for (const { eid, clip, offset, rest } of playbacks) {
        const pose = getPose(world, eid);
        pose.set(rest);
        sampleClip(clip, wrapTime(exactTime + offset, clip.duration, "loop"), pose);
      }
    },
  });
  Deno.bench({
    name: `sampling per model: ${file}: compact (sampleClipsSystem) ${build}`,
    group,
    fn: () => sampleClipsSystem(world, DT),
  });
  const jobs = memory.alloc(playbacks.length * JOB_WORDS * 4);
  Deno.bench({
    name: `sampling per model: ${file}: baked frames (blendPosesBatch) ${build}`,
    group,
    fn: () => {
      bakedTime += DT;
      const { u32, f32 } = memory.views();
      playbacks.forEach(({ clip, offset, baked, pose, lanes }, i) => {
        const [a, c, w] = baked.locate(wrapTime(bakedTime + offset, clip.duration, "loop"));
        const at = (jobs >> 2) + i * JOB_WORDS;
        u32[at + BLEND_A] = a, u32[at + BLEND_B] = c, u32[at + BLEND_OUT] = pose;
        u32[at + BLEND_JOINT_COUNT] = lanes, f32[at + BLEND_WEIGHT] = w;
      });
      coreKernels(core).blendPosesBatch(jobs, playbacks.length);
    },
  });
}
