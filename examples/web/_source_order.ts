/**
 * For the browser test: a character's skinned output drawn as a naive
 * renderer would draw it from the file, to compare with the zero-copy
 * drawing pixel for pixel.
 *
 * @module
 */

import * as THREE from "three";
import type { Crowd, DemoCharacter } from "../crowd.ts";
import { uvAttribute } from "./_materials.ts";

/**
 * Mesh `m` of `crowd`'s entity `i` as a naive renderer would draw it from the file:
 * its skinned output put back in source vertex order (a copy) with the
 * file's own index buffer. Must look exactly like the zero-copy drawing.
 */
export function sourceOrderGeometry(
  crowd: Crowd,
  character: DemoCharacter,
  i: number,
  m: number,
): THREE.BufferGeometry {
  const range = crowd.skin.meshes[m];
  const positions = crowd.positions(i), normals = crowd.normals(i);
  const sourcePositions = new Float32Array(range.vertexCount * 3);
  const sourceNormals = new Float32Array(range.vertexCount * 3);
  const uvs = uvAttribute(character, crowd.skin)?.array as Float32Array | undefined;
  const sourceUvs = new Float32Array(range.vertexCount * 2);
  for (let v = 0; v < range.vertexCount; v++) {
    const out = crowd.skin.outputIndex[range.firstVertex + v], o = out * 4;
    sourcePositions.set(positions.subarray(o, o + 3), v * 3);
    if (normals) sourceNormals.set(normals.subarray(o, o + 3), v * 3);
    if (uvs) sourceUvs.set(uvs.subarray(out * 2, out * 2 + 2), v * 2);
  }
  const geometry = new THREE.BufferGeometry();
  if (uvs) geometry.setAttribute("uv", new THREE.BufferAttribute(sourceUvs, 2));
  geometry.setAttribute("position", new THREE.BufferAttribute(sourcePositions, 3));
  if (normals) geometry.setAttribute("normal", new THREE.BufferAttribute(sourceNormals, 3));
  const indices = character.meshes[m].indices ??
    Uint32Array.from({ length: range.vertexCount }, (_, v) => v);
  geometry.setIndex(new THREE.BufferAttribute(indices, 1));
  return geometry;
}
