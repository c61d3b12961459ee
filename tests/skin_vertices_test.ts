/**
 * `skinVertices` (and the `SkinMesh` it reads): collapsed-palette skinning,
 * `C = sum w * palette[j]` per vertex over the first `maxInfluences`
 * influences (renormalized when the cap drops some), `p' = C * p`,
 * `n' = C.rot * n`, `t' = (C.rot * t.xyz, t.w)`, optionally renormalized.
 *
 * 1. Every build equals the scalar reference on random meshes (parts of
 *    1..6 influences, empty parts, any stream selection, cap and
 *    renormalize flag); w components exact; nothing written past the mesh
 *    or outside the requested outputs.
 * 2. The reference equals three.js `SkinnedMesh.applyBoneTransform` for
 *    positions (bones = model matrices, boneInverses = inverse bind,
 *    palette = model × inverse bind) and gl-matrix for normals and
 *    tangents (`mat4.multiplyScalarAndAdd`, `vec3.transformMat3`,
 *    `vec3.normalize`).
 * 3. Known values: identity, rotations, scale with and without
 *    renormalize, zero vectors, caps 1 and 2, tangent handedness.
 * 4. Bad input (SkinMesh included): the right error, nothing written.
 *
 * The scalar build runs the reference's own functions, so its bitwise check
 * in 1 finds only bugs of its wrapper (arguments, offsets, counts, what it
 * writes); the arithmetic it shares with the reference is checked by 2,
 * against an independent implementation.
 */

import fc from "fast-check";
import { mat3, mat4, vec3 } from "gl-matrix";
import * as THREE from "three";
import { assertEquals } from "@std/assert";
import {
  MATRIX_FLOATS,
  SkinFlags,
  SkinMesh,
  type SkinOutput,
  skinVertices,
  type SkinVerticesOptions,
  VERTEX_FLOATS,
  type VertexBuffer,
} from "../kernels.ts";
import * as ref from "../simd/reference.ts";
import {
  acrossBuilds,
  affineArb,
  Arena,
  assertBitwise,
  assertClose,
  BUILDS,
  coreFor,
  EPSILON,
  fcParams,
  inVertices,
  layoutMeshArb,
  matricesArb,
  meshArb,
  type MeshData,
  rejections,
  sampleOne,
  SIMD_BUILDS,
  toColumnMajor,
  tolerance,
  wrong,
} from "./_arbitrary.ts";

/** Fills vertices the kernel must not write. */
const SENTINEL = 12345.5;

interface Case {
  palette: Float32Array;
  mesh: MeshData;
  /** Which streams the mesh has. */
  meshNormals: boolean;
  meshTangents: boolean;
  /** Which outputs are requested (only streams the mesh has). */
  outNormals: boolean;
  outTangents: boolean;
  renormalize: boolean;
  cap: number | undefined;
  extraOut: number;
}

interface Streams {
  positions: Float32Array;
  normals: Float32Array;
  tangents: Float32Array;
}

function vertexCountOf(mesh: MeshData): number {
  return mesh.positions.length / VERTEX_FLOATS;
}

function flagsOf(c: Case): number {
  return (c.outNormals ? SkinFlags.NORMALS : 0) |
    (c.outTangents ? SkinFlags.TANGENTS : 0) |
    (c.renormalize ? SkinFlags.RENORMALIZE : 0);
}

/** The reference's outputs (unrequested streams stay sentinel). */
function reference(c: Case, flags = flagsOf(c)): Streams {
  const n = (vertexCountOf(c.mesh) + c.extraOut) * VERTEX_FLOATS;
  const out = {
    positions: new Float32Array(n).fill(SENTINEL),
    normals: new Float32Array(n).fill(SENTINEL),
    tangents: new Float32Array(n).fill(SENTINEL),
  };
  const m = c.mesh;
  const empty = new Float32Array(0);
  ref.skinVertices(
    c.palette,
    Uint32Array.from(m.parts),
    Uint16Array.from(m.joints),
    m.weights,
    m.positions,
    flags & SkinFlags.NORMALS ? m.normals : empty,
    flags & SkinFlags.TANGENTS ? m.tangents : empty,
    out.positions,
    flags & SkinFlags.NORMALS ? out.normals : empty,
    flags & SkinFlags.TANGENTS ? out.tangents : empty,
    flags,
    c.cap ?? 255,
  );
  return out;
}

/**
 * Per-float bounds of one stream: `sum_k w_k sum_c |palette[j_k][r][c]|
 * |v_c|` (`v_3 = 1` for positions, 0 for directions), over the used weight
 * sum when capped, over the unnormalized length when renormalized; 0
 * (exact) for w and past the mesh.
 */
function bounds(
  c: Case,
  stream: "positions" | "normals" | "tangents",
  unnormalized?: Float32Array,
): Float64Array {
  const m = c.mesh;
  const input = m[stream];
  const out = new Float64Array((vertexCountOf(m) + c.extraOut) * VERTEX_FLOATS);
  let v = 0, k = 0;
  for (let p = 0; p < m.parts.length; p += 2) {
    const n = m.parts[p], count = m.parts[p + 1];
    const used = Math.min(n, c.cap ?? 255);
    const end = v + count;
    for (; v < end; v++, k += n) {
      let wsum = 0;
      for (let i = 0; i < used; i++) wsum += m.weights[k + i];
      const length = unnormalized ? Math.hypot(...unnormalized.subarray(v * 4, v * 4 + 3)) : 1;
      for (let r = 0; r < 3; r++) {
        let sum = 0;
        for (let i = 0; i < used; i++) {
          const e = m.joints[k + i] * MATRIX_FLOATS + r * 4;
          let row = stream === "positions" ? Math.abs(c.palette[e + 3]) : 0;
          for (let col = 0; col < 3; col++) {
            row += Math.abs(c.palette[e + col]) * Math.abs(input[v * 4 + col]);
          }
          sum += Math.abs(m.weights[k + i]) * row;
        }
        out[v * 4 + r] = tolerance((used < n ? sum / wsum : sum) / length);
      }
    }
  }
  return out;
}

function checkAgainstReference(c: Case): void {
  const expected = reference(c);
  const unnormalized = c.renormalize
    ? reference(c, flagsOf(c) & ~SkinFlags.RENORMALIZE)
    : undefined;
  const m = c.mesh;
  const size = (vertexCountOf(m) + c.extraOut) * VERTEX_FLOATS;
  const results = acrossBuilds((arena) => {
    const mesh = arena.mesh({
      parts: m.parts,
      joints: m.joints,
      weights: m.weights,
      positions: m.positions,
      normals: c.meshNormals ? m.normals : undefined,
      tangents: c.meshTangents ? m.tangents : undefined,
    });
    const palette = arena.matrices(c.palette);
    const initial = new Float32Array(size).fill(SENTINEL);
    const out: SkinOutput = {
      positions: arena.vertices(initial),
      normals: c.outNormals ? arena.vertices(initial) : undefined,
      tangents: c.outTangents ? arena.vertices(initial) : undefined,
    };
    const options: SkinVerticesOptions = {
      renormalize: c.renormalize,
      maxInfluences: c.cap,
    };
    const outputs = [out.positions, out.normals, out.tangents].filter((
      b,
    ): b is VertexBuffer => !!b);
    arena.writesOnly(outputs, () => skinVertices(palette, mesh, out, options));
    return {
      positions: out.positions.array.slice(),
      normals: out.normals?.array.slice() ?? initial,
      tangents: out.tangents?.array.slice() ?? initial,
    };
  });
  for (const stream of ["positions", "normals", "tangents"] as const) {
    assertBitwise(
      results.scalar[stream],
      expected[stream],
      `scalar build: ${stream}`,
      inVertices,
    );
    const limits = bounds(
      c,
      stream,
      stream === "positions" ? undefined : unnormalized?.[stream],
    );
    for (const build of SIMD_BUILDS) {
      assertClose(
        results[build][stream],
        expected[stream],
        limits,
        `${build} build: ${stream}`,
        inVertices,
      );
    }
  }
}

function caseArb(
  options: {
    minJoints?: number;
    maxJoints: number;
    maxPer: number;
    maxParts: number;
    maxVertices: number;
  },
) {
  return fc.record({
    jointCount: fc.integer({
      min: options.minJoints ?? 1,
      max: options.maxJoints,
    }),
    extraPalette: fc.nat(2),
    meshNormals: fc.boolean(),
    meshTangents: fc.boolean(),
    wantNormals: fc.boolean(),
    wantTangents: fc.boolean(),
    renormalize: fc.boolean(),
    cap: fc.option(fc.integer({ min: 1, max: 6 }), { nil: undefined }),
    extraOut: fc.nat(2),
  }).chain((o) =>
    fc.record({
      palette: matricesArb(
        affineArb(),
        o.jointCount + o.extraPalette,
        o.jointCount + o.extraPalette,
      ),
      mesh: meshArb({
        jointCount: o.jointCount,
        maxPer: options.maxPer,
        maxParts: options.maxParts,
        maxVertices: options.maxVertices,
      }),
    }).map(({ palette, mesh }): Case => ({
      palette,
      mesh,
      meshNormals: o.meshNormals,
      meshTangents: o.meshTangents,
      outNormals: o.meshNormals && o.wantNormals,
      outTangents: o.meshTangents && o.wantTangents,
      renormalize: o.renormalize,
      cap: o.cap,
      extraOut: o.extraOut,
    }))
  );
}

Deno.test("skinVertices: every build equals the reference on random meshes", () => {
  fc.assert(
    fc.property(
      caseArb({ maxJoints: 8, maxPer: 6, maxParts: 4, maxVertices: 5 }),
      checkAgainstReference,
    ),
    fcParams(),
  );
});

Deno.test("skinVertices: every build equals the reference at explicit sizes", () => {
  for (const size of [0, 1, 2, 3, 4, 5, 7, 8, 1023]) {
    for (const per of [1, 2, 3, 4, 5, 8]) {
      // One part of `size` vertices with `per` influences, then a part of
      // one three-influence vertex (the kernel's over-read guard).
      const base = sampleOne(
        caseArb({
          minJoints: 8,
          maxJoints: 40,
          maxPer: 8,
          maxParts: 0,
          maxVertices: 0,
        }),
        size * 8 + per,
      );
      const jointCount = base.palette.length / MATRIX_FLOATS;
      for (const parts of [[per, size], [per, size, 3, 1]]) {
        const mesh = sampleOne(
          layoutMeshArb(parts, jointCount),
          size * 8 + per + parts.length,
        );
        for (const cap of [undefined, 1, 2, 3, 4]) {
          for (const renormalize of [false, true]) {
            checkAgainstReference({
              ...base,
              mesh,
              meshNormals: true,
              meshTangents: true,
              outNormals: true,
              outTangents: renormalize,
              renormalize,
              cap,
              extraOut: 3,
            });
          }
        }
        checkAgainstReference({
          ...base,
          mesh,
          meshNormals: true,
          meshTangents: false,
          outNormals: false,
          outTangents: false,
          renormalize: false,
          cap: undefined,
          extraOut: 0,
        });
      }
    }
  }
});

Deno.test("skinVertices: every build equals the reference with joints past 255", () => {
  // Joint indices use both bytes of their u16; parts of every kernel path.
  const base = sampleOne(
    caseArb({
      minJoints: 1500,
      maxJoints: 1500,
      maxPer: 8,
      maxParts: 0,
      maxVertices: 0,
    }),
    1500,
  );
  const parts = [1, 200, 2, 200, 3, 200, 4, 200, 5, 100, 7, 100, 3, 23];
  const mesh = sampleOne(layoutMeshArb(parts, 1500), 1501);
  for (const cap of [undefined, 1, 3]) {
    checkAgainstReference({
      ...base,
      mesh,
      meshNormals: true,
      meshTangents: true,
      outNormals: true,
      outTangents: true,
      renormalize: cap === 3,
      cap,
      extraOut: 1,
    });
  }
});

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

// ----------------------------------------------------------- known values

/** T(x, y, z). */
const T = (
  x: number,
  y: number,
  z: number,
) => [1, 0, 0, x, 0, 1, 0, y, 0, 0, 1, z];
const I = T(0, 0, 0);
/** Rz(90°): x -> y, y -> -x. */
const RZ = [0, -1, 0, 0, 1, 0, 0, 0, 0, 0, 1, 0];
/** S(2). */
const S2 = [2, 0, 0, 0, 0, 2, 0, 0, 0, 0, 2, 0];
const ZERO = new Array(12).fill(0);

interface Known {
  parts: number[];
  joints: number[];
  weights: number[];
  positions: number[];
  normals: number[];
  tangents: number[];
}

for (const build of BUILDS) {
  /** Skins `mesh` with every stream; returns the three outputs. */
  const run = (
    palette: number[],
    mesh: Known,
    options: SkinVerticesOptions = {},
  ) => {
    const arena = new Arena(coreFor(build));
    try {
      const m = arena.mesh(mesh);
      const n = mesh.positions.length / 4;
      const out = {
        positions: arena.vertices(n),
        normals: arena.vertices(n),
        tangents: arena.vertices(n),
      };
      skinVertices(arena.matrices(palette), m, out, options);
      return {
        positions: Array.from(out.positions.array),
        normals: Array.from(out.normals.array),
        tangents: Array.from(out.tangents.array),
      };
    } finally {
      arena.free();
    }
  };
  const one = (
    positions: number[],
    normals: number[],
    tangents: number[],
  ): Known => ({
    parts: [1, 1],
    joints: [0],
    weights: [1],
    positions,
    normals,
    tangents,
  });

  Deno.test(`skinVertices (${build}): identity, rotation and handedness`, () => {
    const mesh = one([1, 2, 3, 1], [0, 0, 1, 0], [1, 0, 0, -1]);
    assertEquals(run(I, mesh), {
      positions: [1, 2, 3, 1],
      normals: [0, 0, 1, 0],
      tangents: [1, 0, 0, -1],
    });
    // Rz90: (1, 2, 3) -> (-2, 1, 3); x -> y; the handedness stays -1.
    assertEquals(run(RZ, one([1, 2, 3, 1], [1, 0, 0, 0], [0, 1, 0, -1])), {
      positions: [-2, 1, 3, 1],
      normals: [0, 1, 0, 0],
      tangents: [-1, 0, 0, -1],
    });
    // Translation moves positions only.
    assertEquals(
      run(T(5, 6, 7), one([1, 2, 3, 1], [1, 0, 0, 0], [0, 1, 0, 1])),
      {
        positions: [6, 8, 10, 1],
        normals: [1, 0, 0, 0],
        tangents: [0, 1, 0, 1],
      },
    );
  });

  Deno.test(`skinVertices (${build}): renormalize`, () => {
    const mesh = one([1, 0, 0, 1], [1, 0, 0, 0], [0, 0, 3, 1]);
    // S(2) doubles directions, unless renormalized.
    assertEquals(run(S2, mesh), {
      positions: [2, 0, 0, 1],
      normals: [2, 0, 0, 0],
      tangents: [0, 0, 6, 1],
    });
    assertEquals(run(S2, mesh, { renormalize: true }), {
      positions: [2, 0, 0, 1],
      normals: [1, 0, 0, 0],
      tangents: [0, 0, 1, 1],
    });
    // A zero matrix gives zero directions, not NaN.
    assertEquals(run(ZERO, mesh, { renormalize: true }), {
      positions: [0, 0, 0, 1],
      normals: [0, 0, 0, 0],
      tangents: [0, 0, 0, 1],
    });
  });

  Deno.test(`skinVertices (${build}): weights, caps 1 and 2`, () => {
    // Halfway between T(2, 0, 0) and T(0, 4, 0): p + (1, 2, 0).
    const two: Known = {
      parts: [2, 1],
      joints: [0, 1],
      weights: [0.5, 0.5],
      positions: [1, 1, 1, 1],
      normals: [0, 1, 0, 0],
      tangents: [1, 0, 0, 1],
    };
    assertEquals(run([...T(2, 0, 0), ...T(0, 4, 0)], two).positions, [
      2,
      3,
      1,
      1,
    ]);
    // Cap 1: the heaviest influence alone, its weight taken as 1.
    assertEquals(
      run([...T(2, 0, 0), ...T(0, 4, 0)], two, { maxInfluences: 1 }).positions,
      [3, 1, 1, 1],
    );
    const twoScaled = { ...two, weights: [0.6, 0.4] };
    assertEquals(run([...S2, ...I], twoScaled, { maxInfluences: 1 }), {
      positions: [2, 2, 2, 1],
      normals: [0, 2, 0, 0],
      tangents: [2, 0, 0, 1],
    });
    // Three influences 0.5, 0.25, 0.25 of T(4,0,0), T(0,4,0), T(0,0,4).
    const three: Known = {
      parts: [3, 1],
      joints: [0, 1, 2],
      weights: [0.5, 0.25, 0.25],
      positions: [0, 0, 0, 1],
      normals: [0, 0, 1, 0],
      tangents: [0, 1, 0, -1],
    };
    const palette = [...T(4, 0, 0), ...T(0, 4, 0), ...T(0, 0, 4)];
    assertClose(run(palette, three).positions, [2, 1, 1, 1], EPSILON, "all");
    // Cap 2: ((2, 0, 0) + (0, 1, 0)) / 0.75.
    assertClose(
      run(palette, three, { maxInfluences: 2 }).positions,
      [8 / 3, 4 / 3, 0, 1],
      EPSILON,
      "cap 2",
    );
    assertClose(
      run(palette, three, { maxInfluences: 1 }).positions,
      [4, 0, 0, 1],
      EPSILON,
      "cap 1",
    );
  });

  Deno.test(`skinVertices (${build}): parts in order, empty parts skipped`, () => {
    // Part 1: one vertex, one influence (joint 1); part 2: none; part 3:
    // one vertex, two influences (joints 0 and 1, halves).
    const mesh: Known = {
      parts: [1, 1, 4, 0, 2, 1],
      joints: [1, 0, 1],
      weights: [1, 0.5, 0.5],
      positions: [0, 0, 0, 1, 0, 0, 0, 1],
      normals: [1, 0, 0, 0, 1, 0, 0, 0],
      tangents: [0, 1, 0, 1, 0, 1, 0, -1],
    };
    const result = run([...T(2, 0, 0), ...T(0, 2, 0)], mesh);
    assertEquals(result.positions, [0, 2, 0, 1, 1, 1, 0, 1]);
    assertEquals(result.tangents, [0, 1, 0, 1, 0, 1, 0, -1]);
  });
}

// --------------------------------------------------------------- bad input

const FIXTURE: Known = {
  parts: [1, 1, 2, 2],
  joints: [0, 1, 2, 2, 0],
  weights: [1, 0.75, 0.25, 0.5, 0.5],
  positions: [0, 0, 0, 1, 1, 0, 0, 1, 0, 1, 0, 1],
  normals: [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0],
  tangents: [0, 1, 0, 1, 0, 0, 1, -1, 1, 0, 0, 1],
};

function setUp(arena: Arena) {
  return {
    palette: arena.matrices(sampleOne(matricesArb(affineArb(), 3, 3), 61)),
    mesh: arena.mesh(FIXTURE),
    out: {
      positions: arena.vertices(new Array(12).fill(SENTINEL)),
      normals: arena.vertices(new Array(12).fill(SENTINEL)),
      tangents: arena.vertices(new Array(12).fill(SENTINEL)),
    },
  };
}

for (const build of BUILDS) {
  const core = coreFor(build);
  const other = coreFor(build === "scalar" ? "simd" : "scalar");
  const bad = rejections("skinVertices", core, other, setUp);

  // SkinMesh: parts, influences and streams.
  const f = FIXTURE;
  for (
    const [name, change, pattern] of [
      [
        "an odd parts list",
        { parts: [1, 1, 2] },
        /^parts: expected \[influences, vertexCount\] pairs, got 3 numbers/,
      ],
      [
        "0 influences per vertex",
        { parts: [0, 1, 2, 2] },
        /^parts\[0\]: influences per vertex must be 1\.\.255, got 0/,
      ],
      [
        "256 influences per vertex",
        { parts: [1, 1, 256, 2] },
        /^parts\[2\]: influences per vertex must be 1\.\.255, got 256/,
      ],
      [
        "a negative vertex count",
        { parts: [1, 1, 2, -2] },
        /^parts\[3\]: vertex count must be a whole number >= 0, got -2/,
      ],
      [
        "a fractional vertex count",
        { parts: [1, 1.5, 2, 2] },
        /^parts\[1\]: vertex count must be a whole number >= 0, got 1\.5/,
      ],
      [
        "a negative joint",
        { joints: [0, 1, -1, 2, 0] },
        /^joints\[2\]: expected a joint index 0\.\.65535, got -1/,
      ],
      [
        "joint 65536",
        { joints: [0, 1, 2, 65536, 0] },
        /^joints\[3\]: expected a joint index 0\.\.65535, got 65536/,
      ],
      [
        "too few joints",
        { joints: [0, 1, 2, 2] },
        /^joints: expected at least 5 values, got 4/,
      ],
      [
        "a NaN weight",
        { weights: [1, 0.75, 0.25, NaN, 0.5] },
        /^weights\[3\]: expected a finite weight >= 0, got NaN/,
      ],
      [
        "an infinite weight",
        { weights: [Infinity, 0.75, 0.25, 0.5, 0.5] },
        /^weights\[0\]: expected a finite weight >= 0, got Infinity/,
      ],
      [
        "a negative weight",
        { weights: [1, 0.75, 0.25, 0.5, -0.5] },
        /^weights\[4\]: expected a finite weight >= 0, got -0\.5/,
      ],
      [
        "a NaN position",
        { positions: [0, 0, 0, 1, 1, 0, NaN, 1, 0, 1, 0, 1] },
        /^positions\[6\] \(element 1, component 2\) is NaN/,
      ],
      [
        "too few positions",
        { positions: [0, 0, 0, 1, 1, 0, 0, 1] },
        /^positions: expected at least 12 values, got 8/,
      ],
      [
        "a NaN normal",
        { normals: [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, NaN] },
        /^normals\[11\] \(element 2, component 3\) is NaN/,
      ],
      [
        "too few normals",
        { normals: [1, 0, 0, 0] },
        /^normals: expected at least 12 values, got 4/,
      ],
      ["an infinite tangent", {
        tangents: [0, 1, 0, 1, 0, 0, 1, -Infinity, 1, 0, 0, 1],
      }, /^tangents\[7\] \(element 1, component 3\) is -Infinity/],
    ] as const
  ) {
    bad(
      `SkinMesh with ${name}`,
      (_, arena) => () => arena.mesh({ ...f, ...change }),
      RangeError,
      pattern,
    );
  }

  // Argument types.
  bad(
    "a MatrixBuffer as the mesh",
    ({ palette, out }) => () => skinVertices(palette, wrong(palette), out),
    TypeError,
    /^skinVertices: mesh: expected a SkinMesh, got MatrixBuffer/,
  );
  bad(
    "a SkinMesh as the palette",
    ({ mesh, out }) => () => skinVertices(wrong(mesh), mesh, out),
    TypeError,
    /^skinVertices: palette: expected a MatrixBuffer, got SkinMesh/,
  );
  bad(
    "a VertexBuffer as out",
    ({ palette, mesh, out }) => () => skinVertices(palette, mesh, wrong(out.positions)),
    TypeError,
    /^skinVertices: out\b/,
  );
  bad(
    "a missing out",
    ({ palette, mesh }) => () => skinVertices(palette, mesh, wrong(undefined)),
    TypeError,
    /^skinVertices: out: expected \{ positions, normals\?, tangents\? \}/,
  );
  bad(
    "a Float32Array as out.normals",
    ({ palette, mesh, out }) => () =>
      skinVertices(palette, mesh, {
        positions: out.positions,
        normals: wrong(new Float32Array(12)),
      }),
    TypeError,
    /^skinVertices: (out\.)?normals: expected a (VertexBuffer|buffer of a Marrow core), got Float32Array/,
  );
  bad(
    "a MatrixBuffer as out.tangents",
    ({ palette, mesh, out }) => () =>
      skinVertices(palette, mesh, {
        positions: out.positions,
        tangents: wrong(palette),
      }),
    TypeError,
    /^skinVertices: out\.tangents: expected a VertexBuffer, got MatrixBuffer/,
  );
  bad(
    "the same buffer for positions and normals",
    ({ palette, mesh, out }) => () =>
      skinVertices(palette, mesh, {
        positions: out.positions,
        normals: out.positions,
      }),
    TypeError,
    /^skinVertices: out: output streams must be distinct buffers/,
  );
  bad(
    "null options",
    ({ palette, mesh, out }) => () => skinVertices(palette, mesh, out, wrong(null)),
    TypeError,
    /^skinVertices: options\b/,
  );

  // Streams the mesh lacks; sizes.
  bad(
    "normals from a mesh without normals",
    ({ palette, out }, arena) => {
      const mesh = arena.mesh({ ...f, normals: undefined });
      return () => skinVertices(palette, mesh, out);
    },
    TypeError,
    /^skinVertices: out\.normals: the mesh has no normals/,
  );
  bad(
    "tangents from a mesh without tangents",
    ({ palette, out }, arena) => {
      const mesh = arena.mesh({ ...f, tangents: undefined });
      return () => skinVertices(palette, mesh, out);
    },
    TypeError,
    /^skinVertices: out\.tangents: the mesh has no tangents/,
  );
  bad(
    "a palette of fewer matrices than the joints used",
    ({ mesh, out }, arena) => {
      const short = arena.matrices(2);
      return () => skinVertices(short, mesh, out);
    },
    RangeError,
    /^skinVertices: palette: has 2 matrices, needs at least 3/,
  );
  for (const stream of ["positions", "normals", "tangents"] as const) {
    bad(
      `out.${stream} of fewer vertices`,
      ({ palette, mesh, out }, arena) => {
        const short = arena.vertices(2);
        return () => skinVertices(palette, mesh, { ...out, [stream]: short });
      },
      RangeError,
      new RegExp(
        `^skinVertices: out\\.${stream}: has 2 vertices, needs at least 3`,
      ),
    );
  }
  for (const cap of [0, -2, 2.5, NaN]) {
    bad(
      `maxInfluences ${cap}`,
      ({ palette, mesh, out }) => () => skinVertices(palette, mesh, out, { maxInfluences: cap }),
      RangeError,
      new RegExp(
        `^skinVertices: options\\.maxInfluences: expected a whole number >= 1, got ${cap}`,
      ),
    );
  }

  // Non-finite palette matrices.
  bad(
    "NaN in a palette matrix",
    ({ palette, mesh, out }) => {
      palette.array[2 * 12 + 1] = NaN;
      return () => skinVertices(palette, mesh, out);
    },
    RangeError,
    /^skinVertices: palette: matrix 2 element 1 is NaN/,
  );
  bad(
    "Infinity in the first palette matrix",
    ({ palette, mesh, out }) => {
      palette.array[3] = Infinity;
      return () => skinVertices(palette, mesh, { positions: out.positions });
    },
    RangeError,
    /^skinVertices: palette: matrix 0 element 3 is Infinity/,
  );

  // Other cores, freed buffers.
  bad(
    "a mesh of another core",
    ({ palette, out }, _, foreign) => {
      const mesh = foreign.mesh(f);
      return () => skinVertices(palette, mesh, out);
    },
    TypeError,
    /^skinVertices: mesh: belongs to another core than the other arguments/,
  );
  bad(
    "out.tangents of another core",
    ({ palette, mesh, out }, _, foreign) => {
      const tangents = foreign.vertices(3);
      return () => skinVertices(palette, mesh, { ...out, tangents });
    },
    TypeError,
    /^skinVertices: (out\.)?tangents: belongs to another core than the other arguments/,
  );
  bad(
    "a freed mesh",
    ({ palette, mesh, out }) => {
      mesh.free();
      return () => skinVertices(palette, mesh, out);
    },
    TypeError,
    /^skinVertices: mesh: the buffer was freed/,
  );
  bad(
    "a freed out.normals",
    ({ palette, mesh, out }) => {
      out.normals.free();
      return () => skinVertices(palette, mesh, out);
    },
    TypeError,
    /^skinVertices: (out\.)?normals: the buffer was freed/,
  );
}

Deno.test("SkinMesh: sizes, streams and joints used", () => {
  const core = coreFor("scalar");
  const mesh = new SkinMesh({ ...FIXTURE, tangents: undefined }, core);
  try {
    assertEquals(mesh.vertexCount, 3);
    assertEquals(mesh.partCount, 2);
    assertEquals(mesh.jointCount, 3);
    assertEquals(mesh.maxInfluences, 2);
    assertEquals(mesh.hasNormals, true);
    assertEquals(mesh.hasTangents, false);
  } finally {
    mesh.free();
  }
});
