/**
 * Clip sampling kernels: each SIMD build of the core against the scalar
 * reference (the baseline) running on plain `Float32Array`s. Divide a time
 * by the group's joint count for ns/joint.
 *
 * - `blendPoses` at 1024 joints: two random poses (unit quaternions, half of
 *   the pairs in opposite hemispheres so the shorter-arc flip is taken),
 *   blended at a fixed weight into a third pose.
 */
import * as ref from "../simd/reference.ts";
import { type CoreBuild, instantiate, isBuildSupported } from "../simd/_core.ts";
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
