/**
 * The ECS scene of the ECS-layer issue: 100 characters × 64 joints × 10,000
 * vertices with 4 influences, normals and tangents. Per system and per
 * frame, on each core build (scalar as baseline), and the whole frame
 * against three.js on the same data (three.js as that group's baseline).
 * Also what batching saves: one call for all entities against one call per
 * entity.
 */
import "../scalar.ts";
import { coreKernels } from "../simd/memory/_instance.ts";
import * as THREE from "three";
import { addEntity, createWorld } from "bitecs";
import {
  addCharacter,
  createAnimation,
  createAnimationPipeline,
  getPose,
  multiplyInverseBindSystem,
  quatToMatSystem,
  skinSystem,
} from "../mod.ts";
import { type CoreBuild, MatrixBuffer } from "../kernels.ts";
import { createCylinder, wavePose } from "../procedural/cylinder.ts";
import { createScene } from "../tests/_scene.ts";
import { threeCharacter, threeGeometry } from "../tests/_three_cylinder.ts";
import { JOB_WORDS } from "../simd/abi.ts";
import { MATRIX_FLOATS, poseFloats } from "../simd/memory/layout.ts";
import { stateOf } from "../components/_lifecycle.ts";
import { checkPalettes, MAX_PALETTE_MAGNITUDE } from "../systems/_select.ts";
import { prepareSkinning, runSkinCall, selectSkinned } from "../systems/skin.ts";
import { skeletonInternals } from "../animation/_asset_internals.ts";

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
  pipeline(world, 0);
  Deno.bench({
    name: `frame ${build}`,
    group: "scene frame (100 × 64 joints × 10k vertices, tangents)",
    baseline: build === "scalar",
    n: build === "scalar" ? 10 : undefined,
    fn: () => pipeline(world, 0),
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
      fn: () => system.run(world, 0),
    });
  }
}

// three.js on the same characters: bones from the same pose, positions only.
function threeScene() {
  const cylinder = createCylinder(SHAPE);
  const geometry = threeGeometry(cylinder);
  const position = geometry.getAttribute("position") as THREE.BufferAttribute;
  const scene = new THREE.Scene();
  const meshes: THREE.SkinnedMesh[] = [];
  const pose = new Float32Array(cylinder.skeleton.restPose.length);
  for (let c = 0; c < CHARACTERS; c++) {
    pose.set(cylinder.skeleton.restPose);
    wavePose(pose, SHAPE.joints, 0.5, c);
    const mesh = threeCharacter(cylinder, geometry, pose);
    scene.add(mesh);
    meshes.push(mesh);
  }
  const out = new Float32Array(position.count * 3);
  const vertex = new THREE.Vector3();
  return () => {
    scene.updateMatrixWorld(true);
    for (const mesh of meshes) {
      mesh.skeleton.update();
      for (let v = 0; v < position.count; v++) {
        vertex.fromBufferAttribute(position, v);
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
    fn: () => pipeline(world, 0),
  });
}

// Batching: the quat→mat system's one call against one call per entity; and
// what the system adds to its kernel call: the query, the ownership check of
// every store field it reads, the rows and the pose scan.
{
  const { world, core, entities } = scenes["relaxed-simd"];
  const { JointQuat, JointMat } = createAnimation(world);
  const kernels = coreKernels(core);
  const perEntity = entities.map((
    eid,
  ) => [JointQuat.byteOffset[eid], JointMat.paletteByteOffset[eid]]);
  const group = "batching (quat→mat, 100 entities, relaxed-simd)";
  Deno.bench({
    name: "one call per entity",
    group,
    baseline: true,
    fn: () => {
      for (const [pose, matrices] of perEntity) kernels.quatToMat(pose, matrices, SHAPE.joints);
    },
  });
  const rows = new Uint32Array(perEntity.length * JOB_WORDS);
  perEntity.forEach(([pose, matrices], i) =>
    rows.set([pose, matrices, SHAPE.joints], i * JOB_WORDS)
  );
  const table = new MatrixBuffer(Math.ceil(rows.length / MATRIX_FLOATS), core);
  new Uint32Array(table.array.buffer, table.byteOffset, rows.length).set(rows);
  Deno.bench({
    name: "one batched call",
    group,
    fn: () => kernels.quatToMatBatch(table.byteOffset, perEntity.length),
  });
  const scan = new Uint32Array(perEntity.length * JOB_WORDS);
  perEntity.forEach(([pose], i) => scan.set([pose, poseFloats(SHAPE.joints)], i * JOB_WORDS));
  const scanTable = new MatrixBuffer(Math.ceil(scan.length / MATRIX_FLOATS), core);
  new Uint32Array(scanTable.array.buffer, scanTable.byteOffset, scan.length).set(scan);
  Deno.bench({
    name: "one batched call after the pose scan",
    group,
    fn: () => {
      kernels.firstBeyondBatch(scanTable.byteOffset, perEntity.length, Infinity);
      kernels.quatToMatBatch(table.byteOffset, perEntity.length);
    },
  });
  Deno.bench({
    name: "the system: query, ownership checks, rows, pose scan, batched call",
    group,
    fn: () => quatToMatSystem(world),
  });
  const half = entities.filter((_, i) => i % 2 === 0);
  Deno.bench({
    name: "the system on a subset of 50 entities",
    group,
    fn: () => quatToMatSystem(world, half),
  });
  const empty = createWorld();
  createAnimation(empty, { core });
  for (let i = 0; i < 1000; i++) addEntity(empty);
  Deno.bench({
    name: "the system with no matching entity (1,000 entities)",
    group: "fixed cost",
    fn: () => quatToMatSystem(empty),
  });
  Deno.bench({
    name: "skinSystem with no matching entity (1,000 entities)",
    group: "fixed cost",
    fn: () => skinSystem(empty),
  });
  // Every skin of the scene has tangents: the positions-only system idles.
  Deno.bench({
    name: "skinSystem idle beside 100 skinned entities with tangents",
    group: "fixed cost",
    fn: () => skinSystem(world),
  });
}

// What multiplyInverseBindSystem adds per entity to its batched call (the
// multiply with the palette check fused in, table built once here): 1,000
// entities × 20 joints. (system − kernel) / 1,000 is the per-entity row cost.
// Also the two calls it replaces: the multiply, then a scan of the palettes.
{
  const ENTITIES = 1000;
  const { world, core, entities, skeleton } = createScene("relaxed-simd", ENTITIES, {
    joints: 20,
    segments: 8,
    rings: 8,
  });
  const { JointMat } = createAnimation(world);
  const kernels = coreKernels(core);
  const n = skeleton.jointCount;
  const words = (rows: number[][]) => {
    const buffer = new MatrixBuffer(Math.ceil((rows.length * JOB_WORDS) / MATRIX_FLOATS), core);
    const u32 = new Uint32Array(buffer.array.buffer, buffer.byteOffset, rows.length * JOB_WORDS);
    rows.forEach((row, i) => u32.set(row, i * JOB_WORDS));
    return buffer.byteOffset;
  };
  const multiply = words(entities.map((eid) => [
    JointMat.modelByteOffset[eid],
    skeletonInternals(skeleton).inverseBindByteOffset,
    JointMat.paletteByteOffset[eid],
    n,
    0, // keep: no last good copy
  ]));
  const scan = words(entities.map((eid) => [JointMat.paletteByteOffset[eid], n * MATRIX_FLOATS]));
  const group = "per entity overhead (multiplyInverseBind, 1,000 entities × 20 joints)";
  Deno.bench({
    name: "the checked multiply (one call), table prebuilt",
    group,
    baseline: true,
    fn: () => void kernels.multiplyMatricesCheckedBatch(multiply, ENTITIES, 1e18),
  });
  Deno.bench({
    name: "multiply, then scan the palettes (two calls), tables prebuilt",
    group,
    fn: () => {
      kernels.multiplyMatricesBatch(multiply, ENTITIES);
      kernels.firstBeyondBatch(scan, ENTITIES, 1e18);
    },
  });
  Deno.bench({
    name: "multiplyInverseBindSystem",
    group,
    fn: () => multiplyInverseBindSystem(world),
  });
}

// What skinSystem adds per entity to its batched calls (the palette scan and
// the skinning, tables written once here by the system's own code): 1,000
// entities × 20 joints × 4 vertices, so that the calls cost little beside the
// rows. (system − calls) / 1,000 is the per-entity row cost.
{
  const ENTITIES = 1000;
  const SMALL_CHARACTER = { joints: 20, segments: 2, rings: 2 };
  const POSITIONS_ONLY = { normals: false, tangents: false };
  const { world } = createScene("relaxed-simd", ENTITIES, SMALL_CHARACTER, POSITIONS_ONLY);
  const pipelineOnce = createAnimationPipeline();
  pipelineOnce(world, 0);
  const state = stateOf(world, "bench");
  const skinned = selectSkinned(world, state, "bench", {}, false);
  checkPalettes(state, skinned);
  const scan = state.jobs("paletteScan").ptr;
  const { calls } = prepareSkinning(world, "bench", {}, false, "bench: rows", true)!;
  const group = "per entity overhead (skinSystem, 1,000 entities × 20 joints × 4 vertices)";
  Deno.bench({
    name: "the batched calls (palette scan, skinning), tables prebuilt",
    group,
    baseline: true,
    fn: () => {
      state.kernels.firstBeyondBatch(scan, skinned.length, MAX_PALETTE_MAGNITUDE);
      for (const call of calls) runSkinCall(state, call);
    },
  });
  Deno.bench({ name: "skinSystem", group, fn: () => skinSystem(world) });
  // The same entities created after 20,000 others: high entity ids.
  const late = createScene("relaxed-simd", 0, SMALL_CHARACTER, POSITIONS_ONLY);
  for (let i = 0; i < 20000; i++) addEntity(late.world);
  for (let i = 0; i < ENTITIES; i++) {
    addCharacter(late.world, addEntity(late.world), late.skeleton, late.skin, POSITIONS_ONLY);
  }
  pipelineOnce(late.world, 0);
  Deno.bench({
    name: "skinSystem, the entities created after 20,000 others",
    group,
    fn: () => skinSystem(late.world),
  });
}
