/**
 * The whole frame against three.js: the same skeleton, pose and weights
 * through Marrow's pipeline and through three.js's bones and
 * `SkinnedMesh.applyBoneTransform` give the same skinned positions.
 */
import { assertEquals, assertLess } from "@std/assert";
import * as THREE from "three";
import { createAnimationPipeline, getPose, getSkinnedPositions } from "../mod.ts";
import { createCylinder, wavePose } from "../procedural/cylinder.ts";
import { BUILDS, createScene } from "./_scene.ts";
import { threeCharacter, threeGeometry } from "./_three_cylinder.ts";

const SHAPE = { joints: 12, segments: 8, rings: 24, influences: "mixed" as const };

function threeSkinnedPositions(pose: Float32Array): number[] {
  const cylinder = createCylinder(SHAPE);
  const geometry = threeGeometry(cylinder);
  const mesh = threeCharacter(cylinder, geometry, pose);
  const n = cylinder.skin.vertexCount;
  mesh.updateMatrixWorld(true);
  mesh.skeleton.update();
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
      animate(world, 0);
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
