/**
 * A generated cylinder character in three.js: bones from a SoA×4 pose, a
 * `SkinnedMesh` with the same weights, bound with an identity bind matrix,
 * so that `applyBoneTransform` gives model-space positions comparable with
 * Marrow's.
 *
 * @module
 */

import * as THREE from "three";
import type { Cylinder } from "../procedural/cylinder.ts";
import { type PoseField, poseIndex } from "../simd/memory/layout.ts";

/** Geometry shared by every instance of a character (up to 4 influences). */
export function threeGeometry({ skin }: Cylinder): THREE.BufferGeometry {
  const n = skin.vertexCount;
  const indices = new Uint16Array(n * 4), weights = new Float32Array(n * 4);
  const positions = new Float32Array(n * 3);
  for (let v = 0, k = 0; v < n; k += skin.influenceCounts[v], v++) {
    positions.set(skin.positions.subarray(v * 4, v * 4 + 3), v * 3);
    for (let i = 0; i < Math.min(4, skin.influenceCounts[v]); i++) {
      indices[v * 4 + i] = skin.joints[k + i];
      weights[v * 4 + i] = skin.weights[k + i];
    }
  }
  const geometry = new THREE.BufferGeometry();
  geometry.setAttribute("position", new THREE.BufferAttribute(positions, 3));
  geometry.setAttribute("skinIndex", new THREE.BufferAttribute(indices, 4));
  geometry.setAttribute("skinWeight", new THREE.BufferAttribute(weights, 4));
  return geometry;
}

/** A skinned mesh of `geometry` whose bones hold `pose`. */
export function threeCharacter(
  { skeleton }: Cylinder,
  geometry: THREE.BufferGeometry,
  pose: Float32Array,
): THREE.SkinnedMesh {
  const bones = Array.from(skeleton.parents, () => new THREE.Bone());
  bones.forEach((bone, j) => {
    const at = (f: number) => pose[poseIndex(j, f as PoseField)];
    bone.position.set(at(0), at(1), at(2));
    bone.quaternion.set(at(3), at(4), at(5), at(6));
    bone.scale.set(at(7), at(8), at(9));
    if (skeleton.parents[j] >= 0) bones[skeleton.parents[j]].add(bone);
  });
  const inverses = bones.map((_, j) => {
    const m = skeleton.inverseBind.subarray(j * 12, j * 12 + 12);
    // Our 3x4 rows with the implicit fourth row, in Matrix4.set's row order.
    return new THREE.Matrix4().set(...m, 0, 0, 0, 1);
  });
  const mesh = new THREE.SkinnedMesh(geometry, new THREE.MeshBasicMaterial());
  mesh.add(bones[0]);
  mesh.bind(new THREE.Skeleton(bones, inverses), new THREE.Matrix4());
  return mesh;
}
