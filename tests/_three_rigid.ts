/**
 * Rigidly attached meshes as three.js loads them, for the glTF comparison
 * harness (`_three_gltf.ts`): the meshes without a skin that Marrow imports
 * as one-joint skins, and their vertices as a one-joint skin moves them.
 *
 * @module
 */

import type * as THREE from "three";
import type { GLTF } from "three/examples/jsm/loaders/GLTFLoader.js";
import type { SkinnedVertices, ThreePrimitive } from "./_three_gltf.ts";

/**
 * A mesh primitive without a skin in a skeleton's hierarchy (under a node
 * whose root is a root of some skin's bones), as Marrow imports it:
 * rigidly attached, a one-joint skin of its node.
 */
export interface ThreeRigidPrimitive {
  /** glTF node index. */
  readonly node: number;
  /** glTF mesh index. */
  readonly mesh: number;
  /** Primitive index in the mesh. */
  readonly primitive: number;
  /** The three.js object. */
  readonly object: THREE.Mesh;
}

/** The meshes among `meshes` whose root is a root of some skinned primitive's bones. */
export function rigidPrimitives(
  gltf: GLTF,
  skinned: readonly ThreePrimitive[],
  meshes: readonly THREE.Mesh[],
): ThreeRigidPrimitive[] {
  const root = (object: THREE.Object3D) => {
    while (object.parent && object.parent !== gltf.scene) object = object.parent;
    return object;
  };
  const roots = new Set(skinned.flatMap((p) => p.object.skeleton.bones.map(root)));
  return meshes.filter((mesh) => roots.has(root(mesh))).map((mesh) => {
    const own = gltf.parser.associations.get(mesh);
    const node = own?.nodes ?? gltf.parser.associations.get(mesh.parent!)?.nodes;
    if (own?.meshes === undefined || node === undefined) {
      throw new Error(`no glTF association for mesh "${mesh.name}"`);
    }
    return { node, mesh: own.meshes, primitive: own.primitives ?? 0, object: mesh };
  });
}

/**
 * A rigid mesh's vertices moved by its world matrix; directions by its 3×3
 * part, normalized, as a one-joint skin moves them.
 */
export function threeRigid(mesh: THREE.Mesh, stride: number): SkinnedVertices {
  const { geometry, matrixWorld } = mesh;
  const streams = ["position", "normal", "tangent"].map((name) => geometry.getAttribute(name));
  const count = Math.ceil(streams[0].count / stride);
  const out = streams.map((a) => a ? new Float64Array(count * 3) : undefined);
  const e = matrixWorld.elements;
  for (let i = 0, v = 0; v < streams[0].count; v += stride, i++) {
    streams.forEach((stream, s) => {
      if (!stream) return;
      const x = stream.getX(v), y = stream.getY(v), z = stream.getZ(v);
      const w = s === 0 ? 1 : 0;
      const p = [0, 1, 2].map((c) => e[c] * x + e[4 + c] * y + e[8 + c] * z + e[12 + c] * w);
      const len = s === 0 ? 1 : Math.hypot(p[0], p[1], p[2]);
      for (let c = 0; c < 3; c++) out[s]![i * 3 + c] = p[c] / len;
    });
  }
  const [positions, normals, tangents] = out;
  return {
    positions: positions!,
    ...(normals ? { normals } : {}),
    ...(tangents ? { tangents } : {}),
  };
}
