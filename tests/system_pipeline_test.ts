/**
 * The whole frame against three.js: the same skeleton, pose and weights
 * through Marrow's pipeline and through three.js's bones and
 * `SkinnedMesh.applyBoneTransform` give the same skinned positions.
 */
import { assertEquals, assertLess } from "@std/assert";
import * as THREE from "three";
import { createAnimationPipeline, getPose, getSkinnedPositions, poseIndex } from "../mod.ts";
import { createCylinder, wavePose } from "../examples/cylinder.ts";
import { BUILDS, createScene } from "./_scene.ts";

const SHAPE = { joints: 12, segments: 8, rings: 24, influences: "mixed" as const };

function threeSkinnedPositions(pose: Float32Array): number[] {
  const { skeleton, skin } = createCylinder(SHAPE);
  const bones = Array.from(skeleton.parents, () => new THREE.Bone());
  bones.forEach((bone, j) => {
    const at = (f: number) => pose[poseIndex(j, f as 0)];
    bone.position.set(at(0), at(1), at(2));
    bone.quaternion.set(at(3), at(4), at(5), at(6));
    bone.scale.set(at(7), at(8), at(9));
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
  const geometry = new THREE.BufferGeometry();
  const n = skin.vertexCount;
  const indices = new Uint16Array(n * 4),
    weights = new Float32Array(n * 4),
    positions = new Float32Array(n * 3);
  for (let v = 0, k = 0; v < n; k += skin.influenceCounts[v], v++) {
    positions.set(skin.positions.subarray(v * 4, v * 4 + 3), v * 3);
    for (let i = 0; i < skin.influenceCounts[v]; i++) {
      indices[v * 4 + i] = skin.joints[k + i];
      weights[v * 4 + i] = skin.weights[k + i];
    }
  }
  geometry.setAttribute("position", new THREE.BufferAttribute(positions, 3));
  geometry.setAttribute("skinIndex", new THREE.BufferAttribute(indices, 4));
  geometry.setAttribute("skinWeight", new THREE.BufferAttribute(weights, 4));
  const mesh = new THREE.SkinnedMesh(geometry, new THREE.MeshBasicMaterial());
  const threeSkeleton = new THREE.Skeleton(bones, inverses);
  mesh.add(bones[0]);
  mesh.bind(threeSkeleton, new THREE.Matrix4());
  mesh.updateMatrixWorld(true);
  threeSkeleton.update();
  const out: number[] = [];
  const vertex = new THREE.Vector3();
  for (let v = 0; v < n; v++) {
    vertex.fromBufferAttribute(geometry.getAttribute("position") as THREE.BufferAttribute, v);
    mesh.applyBoneTransform(v, vertex);
    out.push(vertex.x, vertex.y, vertex.z);
  }
  return out;
}

for (const build of BUILDS) {
  Deno.test(`the pipeline (${build}) skins like three.js's applyBoneTransform`, () => {
    const { world, skeleton, skin, entities } = createScene(build, 2, SHAPE, {
      normals: false,
      tangents: false,
    });
    const animate = createAnimationPipeline();
    for (const time of [0, 0.7, 2.9]) {
      entities.forEach((eid, i) => wavePose(getPose(world, eid), skeleton.jointCount, time, i));
      animate(world);
      entities.forEach((eid, i) => {
        const expected = threeSkinnedPositions(getPose(world, eid));
        const actual = getSkinnedPositions(world, eid);
        assertEquals(expected.length, skin.vertexCount * 3);
        let max = 0;
        for (let v = 0; v < skin.vertexCount; v++) {
          const o = skin.outputIndex[v] * 4;
          for (let c = 0; c < 3; c++) {
            max = Math.max(max, Math.abs(actual[o + c] - expected[v * 3 + c]));
          }
        }
        assertLess(max, 1e-4, `entity ${i} at t=${time}: max error ${max}`);
      });
    }
  });
}
