/**
 * `skinPositions`: the scalar reference equals three.js
 * `SkinnedMesh.applyBoneTransform` (same bones, inverse bind matrices and
 * weights, identity bind matrix), caps included (weights renormalized on
 * the three.js side).
 */

import fc from "fast-check";
import * as THREE from "three";
import { MATRIX_FLOATS } from "../kernels.ts";
import {
  affineArb,
  assertClose,
  fcParams,
  flattenInfluences,
  inVertices,
  matricesArb,
  positionsArb,
  toColumnMajor,
  vertexInfluencesArb,
} from "./_arbitrary.ts";
import { bounds, type Case, reference } from "./_skin_positions.ts";

// ------------------------------------------------------------- three.js

/** three.js skinning of every vertex (at most 4 influences each). */
function threeSkin(
  model: Float32Array,
  inverseBind: Float32Array,
  positions: Float32Array,
  influences: readonly { joints: number[]; weights: number[] }[],
): Float64Array {
  const jointCount = inverseBind.length / MATRIX_FLOATS;
  const bones = Array.from({ length: jointCount }, (_, j) => {
    const bone = new THREE.Bone();
    bone.matrixWorld.fromArray(toColumnMajor(model, j));
    return bone;
  });
  const boneInverses = Array.from(
    { length: jointCount },
    (_, j) => new THREE.Matrix4().fromArray(toColumnMajor(inverseBind, j)),
  );
  const skeleton = new THREE.Skeleton(bones, boneInverses);
  const n = influences.length;
  const geometry = new THREE.BufferGeometry();
  const xyz = new Float32Array(n * 3),
    index = new Uint16Array(n * 4),
    weight = new Float32Array(n * 4);
  influences.forEach(({ joints, weights }, v) => {
    xyz.set(positions.subarray(v * 4, v * 4 + 3), v * 3);
    index.set(joints, v * 4);
    weight.set(weights, v * 4);
  });
  geometry.setAttribute("position", new THREE.BufferAttribute(xyz, 3));
  geometry.setAttribute("skinIndex", new THREE.Uint16BufferAttribute(index, 4));
  geometry.setAttribute(
    "skinWeight",
    new THREE.Float32BufferAttribute(weight, 4),
  );
  const mesh = new THREE.SkinnedMesh(geometry);
  mesh.bind(skeleton, new THREE.Matrix4());
  const out = new Float64Array(n * 4);
  const p = new THREE.Vector3();
  for (let v = 0; v < n; v++) {
    p.fromBufferAttribute(
      geometry.getAttribute("position") as THREE.BufferAttribute,
      v,
    );
    mesh.applyBoneTransform(v, p);
    out.set([p.x, p.y, p.z, 1], v * 4);
  }
  return out;
}

Deno.test("skinPositions: the reference equals three.js applyBoneTransform", () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 1, max: 8 }).chain((jointCount) =>
        fc.integer({ min: 1, max: 6 }).chain((vertexCount) =>
          fc.record({
            model: matricesArb(affineArb(), jointCount, jointCount),
            inverseBind: matricesArb(affineArb(), jointCount, jointCount),
            positions: positionsArb(vertexCount),
            influences: fc.array(vertexInfluencesArb(jointCount, 4), {
              minLength: vertexCount,
              maxLength: vertexCount,
            }),
            cap: fc.integer({ min: 1, max: 4 }),
          })
        )
      ),
      ({ model, inverseBind, positions, influences, cap }) => {
        const c: Case = {
          model,
          inverseBind,
          positions,
          influences: flattenInfluences(influences),
          cap,
          extraOut: 0,
        };
        const { out, bases } = reference(c);
        // three.js takes the weights as given: cap and renormalize them.
        const capped = influences.map(({ joints, weights }) => {
          const used = weights.slice(0, cap);
          const sum = used.reduce((a, b) => a + b, 0);
          return {
            joints: joints.slice(0, cap),
            weights: used.length < weights.length ? used.map((w) => w / sum) : used,
          };
        });
        const expected = threeSkin(model, inverseBind, positions, capped);
        assertClose(
          out,
          expected,
          bounds(c, bases, out.length),
          "three.js",
          inVertices,
        );
      },
    ),
    fcParams(),
  );
});
