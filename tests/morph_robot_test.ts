/**
 * RobotExpressive imported as a user gets it: its rigid meshes (the
 * face under the head joint, with the Angry, Surprised and Sad targets)
 * come as one-joint skins of its skeleton, and its face moves with the
 * weights the game sets. Every vertex of every mesh, morphed and skinned
 * through the ECS pipeline on every core build, against three.js's CPU
 * path (`getVertexPosition`: morph, then skin for a SkinnedMesh, then the
 * object's world matrix) at random animated times and random weights,
 * within 1e-4 of the model's size.
 */

import "../scalar.ts";
import { assert, assertEquals, assertLess } from "@std/assert";
import { addEntity, createWorld } from "bitecs";
import * as THREE from "three";
import {
  addCharacter,
  createAnimation,
  createAnimationPipeline,
  disposeAnimation,
  getSkinnedPositions,
  playClip,
  SkeletonAsset,
  SkinAsset,
} from "../mod.ts";
import { addMorphWeights, getMorphWeights, setMorphWeights } from "../morph.ts";
import { importGltf } from "../gltf/mod.ts";
import { Core, type CoreBuild } from "../kernels.ts";
import { assetUrl, loadThree, poseThree, readAsset } from "./_three_gltf.ts";
import { random } from "./_scene.ts";

const FILE = "RobotExpressive.glb";
const TOLERANCE = 1e-4;
const BUILDS: CoreBuild[] = ["relaxed-simd", "simd", "scalar"];
const FACE = ["Angry", "Surprised", "Sad"];

const model = await importGltf(assetUrl(FILE)); // attached meshes by default
const three = await loadThree(readAsset(FILE));
/** three.js's object of each (node, mesh, primitive). */
const objects = new Map<string, THREE.Mesh>();
three.gltf.scene.traverse((object: THREE.Object3D) => {
  if (!(object as THREE.Mesh).isMesh) return;
  const own = three.gltf.parser.associations.get(object);
  const node = own?.nodes ?? three.gltf.parser.associations.get(object.parent!)?.nodes;
  objects.set(`${node}/${own?.meshes}/${own?.primitives ?? 0}`, object as THREE.Mesh);
});

Deno.test("RobotExpressive: rigid meshes import as one-joint skins, the face with its targets", () => {
  assertEquals(model.skeletons.length, 1);
  const [robot] = model.skeletons;
  // Every mesh three.js draws, skinned or not, and no other.
  assertEquals(robot.primitives.length, objects.size);
  for (const p of robot.primitives) assert(objects.has(`${p.node}/${p.mesh}/${p.primitive}`));
  assertEquals(robot.primitives.filter((p) => p.gltfSkin === -1).length, 15);
  const face = robot.primitives.filter((p) => p.meshName === "Head");
  assertEquals(face.length, 3);
  for (const p of face) {
    assertEquals(p.skin.morphTargets!.map((t) => t.name), FACE);
    assertEquals([...p.morphWeights], [0, 0, 0]);
  }
  // Its clips key the face weights (at 0 throughout).
  assert(robot.clips.every((c) => c.morphChannels?.length === 1 && c.morphChannels[0].node === 13));
});

for (const build of BUILDS) {
  Deno.test(`RobotExpressive (${build}): the face morphs and every mesh moves as three.js`, () => {
    const core = Core.create(build);
    const world = createWorld();
    createAnimation(world, { core });
    const animate = createAnimationPipeline();
    const [robot] = model.skeletons;
    using skeleton = new SkeletonAsset(robot.skeleton, core);
    using skin = new SkinAsset(skeleton, robot.primitives.map((p) => p.skin));
    const eid = addEntity(world);
    addCharacter(world, eid, skeleton, skin);
    addMorphWeights(world, eid);
    assertEquals(skin.morphTargetNames, [...FACE, ...FACE, ...FACE]);
    // The clips' joints only: their face channel (0 throughout) would override the game's weights.
    const bodies = robot.clips.map(({ morphChannels: _, ...body }) => body);
    const next = random(77);
    let worst = 0, moved = 0;
    for (let i = 0; i < 6; i++) {
      const face = FACE.map(() => next() * 1.2 - 0.1);
      const clip = Math.floor(next() * robot.clips.length);
      const time = next() * robot.clips[clip].duration;
      setMorphWeights(world, eid, [...face, ...face, ...face]);
      playClip(world, eid, bodies[clip], { time, wrap: "clamp" });
      animate(world, 0);
      poseThree(three, clip, time);
      const expected: number[][] = [];
      let lo = [Infinity, Infinity, Infinity], hi = [-Infinity, -Infinity, -Infinity];
      robot.primitives.forEach((p) => {
        const object = objects.get(`${p.node}/${p.mesh}/${p.primitive}`)!;
        // In place: the mixer's bindings hold the array.
        object.morphTargetInfluences?.splice(0, 3, ...Float32Array.from(face));
        const out: number[] = [], v3 = new THREE.Vector3();
        for (let v = 0; v < p.skin.vertexCount; v++) {
          object.getVertexPosition(v, v3).applyMatrix4(object.matrixWorld);
          out.push(v3.x, v3.y, v3.z);
          lo = lo.map((l, k) => Math.min(l, v3.getComponent(k)));
          hi = hi.map((h, k) => Math.max(h, v3.getComponent(k)));
        }
        expected.push(out);
      });
      const size = Math.hypot(hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]);
      const positions = getSkinnedPositions(world, eid);
      robot.primitives.forEach((p, m) => {
        const first = skin.meshes[m].firstVertex;
        for (let v = 0; v < p.skin.vertexCount; v++) {
          const o = skin.outputIndex[first + v] * 4;
          for (let k = 0; k < 3; k++) {
            worst = Math.max(worst, Math.abs(positions[o + k] - expected[m][v * 3 + k]) / size);
          }
        }
        if (p.meshName === "Head") moved += p.skin.vertexCount;
      });
    }
    assert(moved > 0);
    assertLess(worst, TOLERANCE, `${build}: ${worst} x size`);
    disposeAnimation(world);
    console.log(`  ${build}: max error ${worst.toExponential(2)} x size`);
  });
}

Deno.test("RobotExpressive: its clips drive the face weights (keyed 0) over the game's, as three.js", () => {
  const world = createWorld();
  createAnimation(world);
  const animate = createAnimationPipeline();
  const [robot] = model.skeletons;
  using skeleton = new SkeletonAsset(robot.skeleton);
  using skin = new SkinAsset(skeleton, robot.primitives.map((p) => p.skin));
  // The default binding (each mesh takes the channel keying as many targets) and the named nodes.
  const plain = addEntity(world), named = addEntity(world);
  addCharacter(world, plain, skeleton, skin);
  addCharacter(world, named, skeleton, skin);
  addMorphWeights(world, plain);
  addMorphWeights(world, named, undefined, { nodes: robot.primitives.map((p) => p.node) });
  const faces = robot.primitives.filter((p) => p.meshName === "Head")
    .map((p) => objects.get(`${p.node}/${p.mesh}/${p.primitive}`)!);
  const next = random(5);
  for (let i = 0; i < 5; i++) {
    const face = FACE.map(() => next() * 0.8 + 0.1);
    const clip = Math.floor(next() * robot.clips.length);
    const time = next() * robot.clips[clip].duration;
    // In place: the mixer's bindings hold the array.
    for (const object of faces) object.morphTargetInfluences!.splice(0, 3, ...face);
    poseThree(three, clip, time);
    const expected = faces.flatMap((object) => [...object.morphTargetInfluences!]);
    assertEquals(expected, [0, 0, 0, 0, 0, 0, 0, 0, 0]);
    for (const eid of [plain, named]) {
      setMorphWeights(world, eid, [...face, ...face, ...face]);
      playClip(world, eid, robot.clips[clip], { time, wrap: "clamp" });
    }
    animate(world, 0);
    for (const eid of [plain, named]) assertEquals([...getMorphWeights(world, eid)], expected);
  }
  // A clip that keys no weights leaves the game's again.
  const { morphChannels: _, ...body } = robot.clips[0];
  setMorphWeights(world, plain, [0.5, 0.25, 1, 0.5, 0.25, 1, 0.5, 0.25, 1]);
  playClip(world, plain, body);
  animate(world, 0.1);
  assertEquals([...getMorphWeights(world, plain)], [0.5, 0.25, 1, 0.5, 0.25, 1, 0.5, 0.25, 1]);
  disposeAnimation(world);
});
