/**
 * The transform kernels at 1024 joints: each SIMD build of the core against
 * the scalar reference (the baseline) running on plain `Float32Array`s.
 * The skeleton is a 32-joint humanoid repeated 32 times, parents before
 * children in depth-first order, so most joints continue a chain
 * (`parent == i - 1`) as in real rigs; chains are up to 10 joints deep.
 */
import * as ref from "../simd/scalar/mod.ts";
import { type CoreBuild, instantiate, isBuildSupported } from "../simd/wasm/_core.ts";
import { MATRIX_FLOATS, poseFloats } from "../simd/memory/layout.ts";
import { random, randomPose } from "../tests/_scene.ts";

const JOINTS = 1024;

// Parent of each joint of one humanoid, depth-first.
const HUMANOID = [
  ...[-1, 0, 1, 2, 3, 4], // hips, spine ×3, neck, head
  ...[3, 6, 7, 8, 9, 10, 11, 9, 13], // left shoulder to hand, index, thumb
  ...[3, 15, 16, 17, 18, 19, 20, 18, 22], // the same on the right
  ...[0, 24, 25, 26], // left leg to toe
  ...[0, 28, 29, 30], // right leg to toe
];

const parents = new Int16Array(JOINTS);
for (let i = 0; i < JOINTS; i++) {
  const base = i - (i % HUMANOID.length),
    parent = HUMANOID[i % HUMANOID.length];
  parents[i] = parent < 0 ? -1 : base + parent;
}

// Deterministic data: unit quaternions, bone offsets in [-1, 1], scales
// near 1.
const pose = randomPose(JOINTS, random(0x9e3779b9));
const local = new Float32Array(JOINTS * MATRIX_FLOATS);
ref.quatToMat(pose, local, JOINTS);
const model = new Float32Array(JOINTS * MATRIX_FLOATS);
ref.localToModel(local, model, parents, 0, JOINTS - 1);

// Reference outputs, separate from its inputs.
const outMatrices = new Float32Array(JOINTS * MATRIX_FLOATS);
const outPose = new Float32Array(poseFloats(JOINTS));

/** A core of `build` holding copies of the inputs, and its kernels. */
function setUp(build: CoreBuild) {
  const { memory, kernels } = instantiate(build);
  const matrixBytes = JOINTS * MATRIX_FLOATS * 4;
  const at = {
    pose: memory.alloc(pose.byteLength),
    local: memory.alloc(matrixBytes),
    model: memory.alloc(matrixBytes),
    parents: memory.alloc(parents.byteLength),
    outMatrices: memory.alloc(matrixBytes),
    outPose: memory.alloc(pose.byteLength),
  };
  const views = memory.views();
  views.f32.set(pose, at.pose >> 2);
  views.f32.set(local, at.local >> 2);
  views.f32.set(model, at.model >> 2);
  views.i16.set(parents, at.parents >> 1);
  return { kernels, at };
}

const builds = (["simd", "relaxed-simd"] as const).filter(isBuildSupported);
const cores = builds.map((build) => ({ build, ...setUp(build) }));

type Core = (typeof cores)[number];
const groups: [string, () => void, (core: Core) => () => void][] = [
  [
    "quatToMat",
    () => ref.quatToMat(pose, outMatrices, JOINTS),
    ({ kernels, at }) => () => kernels.quatToMat(at.pose, at.outMatrices, JOINTS),
  ],
  [
    "matToQuat",
    () => ref.matToQuat(model, outPose, JOINTS),
    ({ kernels, at }) => () => kernels.matToQuat(at.model, at.outPose, JOINTS),
  ],
  [
    "localToModel",
    () => ref.localToModel(local, outMatrices, parents, 0, JOINTS - 1),
    ({ kernels, at }) => () =>
      kernels.localToModel(at.local, at.outMatrices, at.parents, 0, JOINTS - 1),
  ],
  [
    "modelToLocal",
    () => ref.modelToLocal(model, outMatrices, parents, 0, JOINTS - 1),
    ({ kernels, at }) => () =>
      kernels.modelToLocal(at.model, at.outMatrices, at.parents, 0, JOINTS - 1),
  ],
  [
    "multiplyMatrices",
    () => ref.multiplyMatrices(model, local, outMatrices, JOINTS),
    ({ kernels, at }) => () => kernels.multiplyMatrices(at.model, at.local, at.outMatrices, JOINTS),
  ],
];

for (const [name, reference, kernel] of groups) {
  const group = `${name} (${JOINTS} joints)`;
  Deno.bench({
    name: `${name} scalar reference`,
    group,
    baseline: true,
    fn: reference,
  });
  for (const core of cores) {
    Deno.bench({ name: `${name} ${core.build}`, group, fn: kernel(core) });
  }
}
