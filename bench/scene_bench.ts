/**
 * The ECS scene of the ECS-layer issue: 100 characters × 64 joints × 10,000
 * vertices with 4 influences, normals and tangents. Per system and per
 * frame, on each core build (scalar as baseline), and the whole frame
 * against three.js on the same data (three.js as that group's baseline).
 * Also what batching saves: one call for all entities against one call per
 * entity.
 */
import * as THREE from "three";
import { type CoreBuild, createAnimationPipeline, getPose } from "../mod.ts";
import { createCylinder, wavePose } from "../examples/cylinder.ts";
import { createScene } from "../tests/_scene.ts";
import { Core } from "../simd/core.ts";
import { stateOf } from "../components/_world.ts";
import { MATRIX_FLOATS } from "../simd/layout.ts";

const CHARACTERS = 100;
const SHAPE = { joints: 64, segments: 100, rings: 100, influences: 4 } as const;
const BUILDS: CoreBuild[] = ["scalar", "simd", "relaxed-simd"];

function marrowScene(build: CoreBuild) {
  const scene = createScene(build, CHARACTERS, SHAPE);
  scene.entities.forEach((eid, i) => wavePose(getPose(scene.world, eid), SHAPE.joints, 0.5, i));
  return scene;
}

const scenes = Object.fromEntries(BUILDS.map((build) => [build, marrowScene(build)]));
const pipeline = createAnimationPipeline();

for (const build of BUILDS) {
  const { world } = scenes[build];
  pipeline(world);
  Deno.bench({
    name: `frame ${build}`,
    group: "scene frame (100 × 64 joints × 10k vertices, tangents)",
    baseline: build === "scalar",
    n: build === "scalar" ? 10 : undefined,
    fn: () => pipeline(world),
  });
  // The scene has no clip players and no positions-only skins: those systems idle.
  for (
    const system of pipeline.systems.filter((s) => s.name !== "sampleClips" && s.name !== "skin")
  ) {
    Deno.bench({
      name: `${system.name} ${build}`,
      group: `system ${system.name}`,
      baseline: build === "scalar",
      n: build === "scalar" && system.name === "skinWithTangents" ? 10 : undefined,
      fn: () => system.run(world),
    });
  }
}

// three.js on the same characters: bones from the same pose, positions only.
function threeScene() {
  const { skeleton, skin } = createCylinder(SHAPE);
  const n = skin.vertexCount;
  const geometry = new THREE.BufferGeometry();
  const position = new Float32Array(n * 3),
    index = new Uint16Array(n * 4),
    weight = new Float32Array(n * 4);
  for (let v = 0; v < n; v++) {
    position.set(skin.positions.subarray(v * 4, v * 4 + 3), v * 3);
    index.set(skin.joints.subarray(v * 4, v * 4 + 4), v * 4);
    weight.set(skin.weights.subarray(v * 4, v * 4 + 4), v * 4);
  }
  geometry.setAttribute("position", new THREE.BufferAttribute(position, 3));
  geometry.setAttribute("skinIndex", new THREE.BufferAttribute(index, 4));
  geometry.setAttribute("skinWeight", new THREE.BufferAttribute(weight, 4));
  const scene = new THREE.Scene();
  const meshes: THREE.SkinnedMesh[] = [];
  const pose = new Float32Array(skeleton.restPose.length);
  for (let c = 0; c < CHARACTERS; c++) {
    pose.set(skeleton.restPose);
    wavePose(pose, SHAPE.joints, 0.5, c);
    const bones = Array.from(skeleton.parents, () => new THREE.Bone());
    bones.forEach((bone, j) => {
      const at = (f: number) => pose[(j >> 2) * 40 + f * 4 + (j & 3)];
      bone.position.set(at(0), at(1), at(2));
      bone.quaternion.set(at(3), at(4), at(5), at(6));
      if (skeleton.parents[j] >= 0) bones[skeleton.parents[j]].add(bone);
    });
    const inverses = bones.map((_, j) => {
      const m = skeleton.inverseBind.subarray(j * 12, j * 12 + 12);
      return new THREE.Matrix4().set(
        m[0],
        m[1],
        m[2],
        m[3],
        m[4],
        m[5],
        m[6],
        m[7],
        m[8],
        m[9],
        m[10],
        m[11],
        0,
        0,
        0,
        1,
      );
    });
    const mesh = new THREE.SkinnedMesh(geometry, new THREE.MeshBasicMaterial());
    mesh.add(bones[0]);
    mesh.bind(new THREE.Skeleton(bones, inverses), new THREE.Matrix4());
    scene.add(mesh);
    meshes.push(mesh);
  }
  const out = new Float32Array(n * 3);
  const vertex = new THREE.Vector3();
  return () => {
    scene.updateMatrixWorld(true);
    for (const mesh of meshes) {
      mesh.skeleton.update();
      for (let v = 0; v < n; v++) {
        vertex.fromArray(position, v * 3);
        mesh.applyBoneTransform(v, vertex);
        vertex.toArray(out, v * 3);
      }
    }
  };
}

const threeFrame = threeScene();
Deno.bench({
  name: "three.js positions only",
  group: "scene frame vs three.js",
  baseline: true,
  n: 3,
  warmup: 1,
  fn: threeFrame,
});
for (const build of BUILDS) {
  const { world } = scenes[build];
  Deno.bench({
    name: `Marrow ${build}, with normals and tangents`,
    group: "scene frame vs three.js",
    n: build === "scalar" ? 10 : undefined,
    fn: () => pipeline(world),
  });
}

// Batching: the quat→mat system's one call against one call per entity.
{
  const { world, core } = scenes["relaxed-simd"];
  const state = stateOf(world, "bench");
  const kernels = Core.kernelsOf(core);
  const perEntity = [...state.poses].map(([eid, pose]) => [
    pose,
    state.matrices.get(eid)! + SHAPE.joints * MATRIX_FLOATS * 4,
  ]);
  Deno.bench({
    name: "one call per entity",
    group: "batching (quat→mat, 100 entities, relaxed-simd)",
    baseline: true,
    fn: () => {
      for (const [pose, matrices] of perEntity) kernels.quatToMat(pose, matrices, SHAPE.joints);
    },
  });
  const table = state.jobs("quatToMat", () => {
    throw new Error("the table was built by the frame above");
  });
  Deno.bench({
    name: "one batched call",
    group: "batching (quat→mat, 100 entities, relaxed-simd)",
    fn: () => kernels.quatToMatBatch(table.ptr, table.count),
  });
}
