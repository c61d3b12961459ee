/**
 * Checks shared by the glTF import tests: the invariants every import must
 * satisfy, and the rest pose against three.js.
 *
 * @module
 */

import { assert, assertAlmostEquals, assertEquals, assertGreater, assertLess } from "@std/assert";
import type { GltfImport } from "../gltf/import.ts";
import { MATRIX_FLOATS } from "../simd/memory/layout.ts";
import { loadThree, poseThree } from "./_three_gltf.ts";
import { bindTwins, compareModel, comparePoses } from "./_gltf_compare.ts";

/** Position tolerance, relative to the bounding-box diagonal. */
export const RELATIVE_TOLERANCE = 1e-4;

/** Whether matrix `j` of `m` is exactly the identity. */
export function identityAt(m: Float32Array, j: number): boolean {
  const o = j * MATRIX_FLOATS;
  return [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0].every((v, i) => m[o + i] === v);
}

/** Whether joint `j` of `pose` (SoA×4) has the identity transform. */
export function identityPoseAt(pose: Float32Array, j: number): boolean {
  const g = (j >> 2) * 40 + (j & 3);
  return [0, 0, 0, 0, 0, 0, 1, 1, 1, 1].every((v, f) => pose[g + f * 4] === v);
}

/** Invariants every import must satisfy. */
export function checkStructure(model: GltfImport): void {
  for (const s of model.skeletons) {
    const { parents, restPose, inverseBind, names } = s.skeleton;
    const n = parents.length;
    assertEquals(names.length, n);
    assertEquals(s.nodes.length, n);
    const twins = bindTwins(s);
    assertEquals(new Set(s.nodes).size, n - twins.length, "each node once, but bind twins");
    for (const j of twins) {
      assert(s.skeleton.names[j].includes("#bind:skin"), `bind twin ${j} is named as one`);
      assert(identityPoseAt(restPose, j), `bind twin ${j} stands at its parent`);
    }
    assertEquals(restPose.length, Math.ceil(n / 4) * 40);
    assertEquals(inverseBind.length, n * MATRIX_FLOATS);
    for (let j = 0; j < n; j++) {
      assert(parents[j] < j, `joint ${j}: parent ${parents[j]} comes first`);
      const g = (j >> 2) * 40 + (j & 3);
      const len = Math.hypot(
        restPose[g + 12],
        restPose[g + 16],
        restPose[g + 20],
        restPose[g + 24],
      );
      assertAlmostEquals(len, 1, 1e-6);
    }
    assert(inverseBind.every(Number.isFinite));
    assertEquals(s.skins[0].skin, s.skin);
    assertEquals(s.skins[0].name, s.name);
    assertEquals(s.skins[0].skinJoints, s.skinJoints);
    const jointsOfSkin = new Map(s.skins.map((k) => [k.skin, new Set(k.skinJoints)]));
    for (const k of s.skins) assertEquals(jointsOfSkin.get(k.skin)!.size, k.skinJoints.length);
    const isSkinJoint = new Set(s.skins.flatMap((k) => [...k.skinJoints]));
    for (let j = 0; j < n; j++) {
      // Folded-in ancestors bind nothing: their inverse bind is the identity.
      if (!isSkinJoint.has(j)) assert(identityAt(inverseBind, j));
    }
    for (const p of s.primitives) {
      // A rigidly attached mesh (gltfSkin -1) follows its node's joint alone, with weight 1.
      const attached = p.gltfSkin === -1;
      const skinJoints = attached
        ? new Set([s.nodes.indexOf(p.node)])
        : jointsOfSkin.get(p.gltfSkin);
      assert(skinJoints, `primitive skinned with skin ${p.gltfSkin}, one of the skeleton's`);
      if (attached) assert(!skinJoints.has(-1), `attached node ${p.node} is a joint`);
      const { vertexCount, positions, normals, tangents } = p.skin;
      assertEquals(positions.length, vertexCount * 4);
      for (let v = 0; v < vertexCount; v++) {
        assertEquals(positions[v * 4 + 3], 1);
        if (normals) assertEquals(normals[v * 4 + 3], 0);
        if (tangents) assertEquals(Math.abs(tangents[v * 4 + 3]), 1);
      }
      const { influenceCounts, joints, weights } = p.skin;
      let k = 0;
      for (let v = 0; v < vertexCount; v++) {
        const c = influenceCounts[v];
        assertGreater(c, 0);
        if (attached) assertEquals([c, weights[k]], [1, 1]);
        for (let i = 0; i < c; i++, k++) {
          assert(skinJoints.has(joints[k]), `vertex ${v}: a joint of its skin`);
          assertGreater(weights[k], 0);
          if (i > 0) assert(weights[k] <= weights[k - 1], "sorted");
        }
      }
      assertEquals(k, joints.length);
      assertEquals(k, weights.length);
    }
  }
}

/** Marrow vs three.js at the rest pose: vertices and joint transforms. */
export async function checkRestAgainstThree(
  model: GltfImport,
  bytes: Uint8Array,
): Promise<{ relative: number; normal: number; tangent: number }> {
  const three = await loadThree(bytes);
  poseThree(three, null, 0);
  const r = compareModel(model, three, null, 0);
  const relative = r.maxPosition / r.bboxDiagonal;
  assertGreater(r.bboxDiagonal, 0);
  assertLess(relative, RELATIVE_TOLERANCE, `rest pose, worst at ${r.worst}`);
  assertLess(r.maxNormal, 1e-4);
  assertLess(r.maxTangent, 1e-4);
  // Node matrices are decomposed by gltf-transform for Marrow and by
  // three.js for itself: equal to about 1e-6.
  const poses = comparePoses(model, three, null, 0, r.bboxDiagonal);
  assertLess(poses.translation, 1e-5);
  assertLess(poses.rotation, 1e-5);
  assertLess(poses.scale, 1e-5);
  return { relative, normal: r.maxNormal, tangent: r.maxTangent };
}
