/**
 * `skinVertices`: the scalar reference equals three.js
 * `SkinnedMesh.applyBoneTransform` for positions (bones = model matrices,
 * boneInverses = inverse bind, palette = model × inverse bind) and
 * gl-matrix for normals and tangents (`mat4.multiplyScalarAndAdd`,
 * `vec3.transformMat3`, `vec3.normalize`).
 */

import fc from "fast-check";
import { mat3, mat4, vec3 } from "gl-matrix";
import * as THREE from "three";
import { MATRIX_FLOATS, SkinFlags } from "../kernels.ts";
import * as ref from "../simd/scalar/mod.ts";
import {
  affineArb,
  assertClose,
  fcParams,
  inVertices,
  matricesArb,
  meshArb,
  type MeshData,
  toColumnMajor,
  tolerance,
} from "./_arbitrary.ts";
import { bounds, type Case, flagsOf, reference } from "./_skin_vertices.ts";

// ------------------------------------------------- three.js and gl-matrix

/** Per vertex, its influences (joints and weights) from a mesh's parts. */
function influencesOf(
  mesh: MeshData,
): { joints: number[]; weights: number[] }[] {
  const list: { joints: number[]; weights: number[] }[] = [];
  let k = 0;
  for (let p = 0; p < mesh.parts.length; p += 2) {
    const n = mesh.parts[p];
    for (let v = 0; v < mesh.parts[p + 1]; v++, k += n) {
      list.push({
        joints: mesh.joints.slice(k, k + n),
        weights: Array.from(mesh.weights.subarray(k, k + n)),
      });
    }
  }
  return list;
}

/** The first `cap` influences, renormalized when some were dropped. */
function capped(
  list: { joints: number[]; weights: number[] }[],
  cap: number | undefined,
) {
  return list.map(({ joints, weights }) => {
    const used = weights.slice(0, cap ?? weights.length);
    const sum = used.reduce((a, b) => a + b, 0);
    return {
      joints: joints.slice(0, used.length),
      weights: used.length < weights.length ? used.map((w) => w / sum) : used,
    };
  });
}

/** three.js skinning of every position (at most 4 influences each). */
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
  const n = influences.length;
  const xyz = new Float32Array(n * 3),
    index = new Uint16Array(n * 4),
    weight = new Float32Array(n * 4);
  influences.forEach(({ joints, weights }, v) => {
    xyz.set(positions.subarray(v * 4, v * 4 + 3), v * 3);
    index.set(joints, v * 4);
    weight.set(weights, v * 4);
  });
  const geometry = new THREE.BufferGeometry();
  geometry.setAttribute("position", new THREE.BufferAttribute(xyz, 3));
  geometry.setAttribute("skinIndex", new THREE.Uint16BufferAttribute(index, 4));
  geometry.setAttribute(
    "skinWeight",
    new THREE.Float32BufferAttribute(weight, 4),
  );
  const mesh = new THREE.SkinnedMesh(geometry);
  mesh.bind(new THREE.Skeleton(bones, boneInverses), new THREE.Matrix4());
  const out = new Float64Array(n * 4);
  const p = new THREE.Vector3();
  for (let v = 0; v < n; v++) {
    p.set(xyz[v * 3], xyz[v * 3 + 1], xyz[v * 3 + 2]);
    mesh.applyBoneTransform(v, p);
    out.set([p.x, p.y, p.z, 1], v * 4);
  }
  return out;
}

const independentArb = fc.integer({ min: 1, max: 8 }).chain((jointCount) =>
  fc.record({
    model: matricesArb(affineArb(), jointCount, jointCount),
    inverseBind: matricesArb(affineArb(), jointCount, jointCount),
    mesh: meshArb({ jointCount, maxPer: 4, maxParts: 3, maxVertices: 4 }),
    cap: fc.option(fc.integer({ min: 1, max: 4 }), { nil: undefined }),
    renormalize: fc.boolean(),
  })
);

Deno.test("skinVertices: the reference's positions equal three.js applyBoneTransform", () => {
  fc.assert(
    fc.property(independentArb, ({ model, inverseBind, mesh, cap }) => {
      const palette = new Float32Array(model.length);
      ref.multiplyMatrices(
        model,
        inverseBind,
        palette,
        model.length / MATRIX_FLOATS,
      );
      const c: Case = {
        palette,
        mesh,
        meshNormals: false,
        meshTangents: false,
        outNormals: false,
        outTangents: false,
        renormalize: false,
        cap,
        extraOut: 0,
      };
      const actual = reference(c).positions;
      const lists = capped(influencesOf(mesh), cap);
      const expected = threeSkin(model, inverseBind, mesh.positions, lists);
      // Bound: the magnitudes of model × inverse bind × position.
      const limits = new Float64Array(actual.length);
      lists.forEach(({ joints, weights }, v) => {
        for (let r = 0; r < 3; r++) {
          let sum = 0;
          joints.forEach((j, i) => {
            const M = j * 12 + r * 4;
            let row = Math.abs(model[M + 3]);
            for (let col = 0; col < 3; col++) {
              let inner = Math.abs(inverseBind[j * 12 + col * 4 + 3]);
              for (let d = 0; d < 3; d++) {
                inner += Math.abs(inverseBind[j * 12 + col * 4 + d]) *
                  Math.abs(mesh.positions[v * 4 + d]);
              }
              row += Math.abs(model[M + col]) * inner;
            }
            sum += weights[i] * row;
          });
          limits[v * 4 + r] = tolerance(sum);
        }
      });
      assertClose(actual, expected, limits, "three.js", inVertices);
    }),
    fcParams(),
  );
});

Deno.test("skinVertices: the reference's normals and tangents equal gl-matrix", () => {
  fc.assert(
    fc.property(independentArb, ({ model, mesh, cap, renormalize }) => {
      const palette = model;
      const c: Case = {
        palette,
        mesh,
        meshNormals: true,
        meshTangents: true,
        outNormals: true,
        outTangents: true,
        renormalize,
        cap,
        extraOut: 0,
      };
      const actual = reference(c);
      const unnormalized = renormalize
        ? reference(c, flagsOf(c) & ~SkinFlags.RENORMALIZE)
        : undefined;
      const expected = {
        normals: new Float64Array(actual.normals.length),
        tangents: new Float64Array(actual.normals.length),
      };
      capped(influencesOf(mesh), cap).forEach(({ joints, weights }, v) => {
        const C = new Float64Array(16) as unknown as mat4;
        joints.forEach((j, i) => {
          mat4.multiplyScalarAndAdd(
            C,
            C,
            toColumnMajor(palette, j) as unknown as mat4,
            weights[i],
          );
        });
        const rot = mat3.fromMat4(new Float64Array(9) as unknown as mat3, C);
        for (const stream of ["normals", "tangents"] as const) {
          const input = mesh[stream].subarray(v * 4, v * 4 + 4);
          const d = vec3.transformMat3(new Float64Array(3) as unknown as vec3, [
            input[0],
            input[1],
            input[2],
          ], rot);
          if (renormalize) vec3.normalize(d, d);
          expected[stream].set([
            d[0],
            d[1],
            d[2],
            stream === "tangents" ? input[3] : 0,
          ], v * 4);
        }
      });
      for (const stream of ["normals", "tangents"] as const) {
        assertClose(
          actual[stream],
          expected[stream],
          bounds(c, stream, unnormalized?.[stream]),
          `gl-matrix: ${stream}`,
          inVertices,
        );
      }
    }),
    fcParams(),
  );
});
