/**
 * Random skeletons, clips and time sequences for the compact clip tests,
 * sampling a clip's compact form on a core, and its error there.
 *
 * @module
 */
import "../scalar.ts";
import { type Clip, createClip, SkeletonAsset, type SkeletonDefinition } from "../mod.ts";
import { compactClip, type CompactClipOptions } from "../clips.ts";
import { Core, type CoreBuild } from "../kernels.ts";
import { ClipSampler } from "../animation/clip_sampler.ts";
import { exactPose, poseDistance } from "../animation/_clip_error.ts";
import { coreKernels, coreMemory } from "../simd/memory/_instance.ts";
import { JOB_WORDS } from "../simd/abi.ts";
import { poseFloats } from "../simd/memory/layout.ts";
import { randomQuaternion } from "./_scene.ts";
import { isBuildSupported } from "../simd/wasm/_core.ts";
import { assert } from "@std/assert";

/** The SIMD builds this machine runs. */
export const SIMD_BUILDS = (["simd", "relaxed-simd"] as const).filter(isBuildSupported);

/** `count` increasing random key times. */
function randomTimes(count: number, next: () => number): Float32Array {
  const times = new Float32Array(count);
  let t = next() * 0.3;
  for (let k = 0; k < count; k++) times[k] = t += 0.01 + next() * 0.3;
  return times;
}

/** A chain-and-branch skeleton of `n` joints with random rest poses. */
export function randomSkeleton(n: number, next: () => number): SkeletonDefinition {
  const parents = Int16Array.from({ length: n }, (_, j) => (j === 0 ? -1 : Math.floor(next() * j)));
  const restPose = new Float32Array(poseFloats(n));
  for (let j = 0; j < n; j++) {
    const lane = (j >> 2) * 40 + (j & 3);
    const q = randomQuaternion(next);
    for (let c = 0; c < 3; c++) restPose[lane + c * 4] = next() - 0.5;
    for (let c = 0; c < 4; c++) restPose[lane + (3 + c) * 4] = q[c];
    for (let c = 0; c < 3; c++) restPose[lane + (7 + c) * 4] = 1;
  }
  const inverseBind = new Float32Array(n * 12);
  for (let j = 0; j < n; j++) inverseBind.set([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0], j * 12);
  return { names: Array.from({ length: n }, (_, j) => `j${j}`), parents, restPose, inverseBind };
}

/**
 * A random clip on `n` joints: random paths, interpolations, key times and
 * values; with `sharedTimes`, every channel keys the same times (as
 * exporters write them), so that group paths become synchronous blocks.
 */
export function randomClip(n: number, next: () => number, sharedTimes = false): Clip {
  const channels = [];
  const common = randomTimes(1 + Math.floor(next() * 12), next);
  for (let j = 0; j < n; j++) {
    for (const path of ["translation", "rotation", "scale"] as const) {
      if (next() < 0.4) continue;
      const interpolation = (["STEP", "LINEAR", "LINEAR", "CUBICSPLINE"] as const)[
        Math.floor(next() * 4)
      ];
      const times = sharedTimes ? common : randomTimes(1 + Math.floor(next() * 12), next);
      const count = times.length;
      const size = path === "rotation" ? 4 : 3;
      const perKey = interpolation === "CUBICSPLINE" ? 3 : 1;
      const values = new Float32Array(count * size * perKey);
      for (let k = 0; k < count * perKey; k++) {
        const v = path === "rotation"
          ? randomQuaternion(next)
          : [0, 1, 2].map(() => (path === "scale" ? 0.5 + next() : next() * 2 - 1));
        values.set(v, k * size);
      }
      channels.push({ joint: j, path, interpolation, times, values });
    }
  }
  return createClip({ name: "random", channels });
}

/**
 * Samples `clip` (built with `options`) on a core of `build` at `times` in
 * order (one playback); the poses.
 */
export function sampleOnCore(
  build: CoreBuild,
  definition: SkeletonDefinition,
  clip: Clip,
  times: number[],
  options?: CompactClipOptions,
): Float32Array[] {
  const core = Core.create(build);
  const skeleton = new SkeletonAsset(definition, core);
  const compact = compactClip(clip, skeleton, options);
  const memory = coreMemory(core);
  const sampler = new ClipSampler(compact, memory);
  const floats = poseFloats(skeleton.jointCount);
  const pose = memory.alloc(floats * 4), jobs = memory.alloc(JOB_WORDS * 4);
  const out = times.map((time) => {
    const { u32, f32 } = memory.views();
    sampler.emit(u32, f32, jobs >> 2, time, pose);
    coreKernels(core).sampleCompactBatch(jobs, 1);
    return memory.views().f32.slice(pose >> 2, (pose >> 2) + floats);
  });
  sampler.release();
  return out;
}

/** Times: forward steps, then seeks and reversed steps. */
export function timeSequence(next: () => number, end: number): number[] {
  const times: number[] = [];
  for (let t = -0.05; t < end + 0.1; t += 0.01 + next() * 0.05) times.push(t);
  for (let i = 0; i < 20; i++) times.push(next() * (end + 0.2) - 0.1);
  for (let t = end; t > 0; t -= 0.02 + next() * 0.04) times.push(t);
  return times;
}

/**
 * Asserts that every SIMD build samples `clip`'s compact form at `times`
 * (one playback, in order, built with `options`) as the scalar reference
 * does, within float noise.
 */
export function assertSimdMatchesScalar(
  definition: SkeletonDefinition,
  clip: Clip,
  times: number[],
  options?: CompactClipOptions,
): void {
  const expected = sampleOnCore("scalar", definition, clip, times, options);
  for (const build of SIMD_BUILDS) {
    sampleOnCore(build, definition, clip, times, options).forEach((pose, i) => {
      for (let k = 0; k < pose.length; k++) {
        const d = Math.abs(pose[k] - expected[i][k]);
        assert(d <= 2e-6, `${build}: t=${times[i]} float ${k}: ${pose[k]} vs ${expected[i][k]}`);
      }
    });
  }
}

/** The largest error of `clip` sampled on the simd core at `times`, against the exact sampler. */
export function measuredError(
  definition: SkeletonDefinition,
  clip: Clip,
  times: number[],
  virtualDistance: number,
): number {
  const rest = new SkeletonAsset(definition, Core.create("scalar")).restPose;
  const poses = sampleOnCore(SIMD_BUILDS[0] ?? "scalar", definition, clip, times);
  let worst = 0;
  poses.forEach((pose, i) => {
    const exact = exactPose(clip, rest, times[i]);
    worst = Math.max(
      worst,
      poseDistance(pose, exact, definition.parents as Int16Array, virtualDistance),
    );
  });
  return worst;
}

/**
 * What the reported error must bound: it is measured densely (key times
 * and quarters between) with the scalar reference, the test measures at
 * other times on a SIMD core, so it allows twice the report plus float
 * noise (1e-6 of the skeleton's size).
 */
export function bound(reported: number, definition: SkeletonDefinition): number {
  const size = new SkeletonAsset(definition, Core.create("scalar"));
  return 2 * reported + 1e-6 * compactSize(size);
}

/** The size of `skeleton` (the diagonal of its rest joints' bounds). */
function compactSize(skeleton: SkeletonAsset): number {
  return compactClip(createClip({ name: "", channels: [] }), skeleton).tolerance / 1e-5;
}
