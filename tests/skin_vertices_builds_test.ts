/**
 * `skinVertices`: every build equals the scalar reference on random meshes
 * (parts of 1..6 influences, empty parts, any stream selection, cap and
 * renormalize flag); w components exact; nothing written past the mesh or
 * outside the requested outputs.
 *
 * The scalar build runs the reference's own functions, so its bitwise check
 * here finds only bugs of its wrapper (arguments, offsets, counts, what it
 * writes); the arithmetic it shares with the reference is checked against
 * independent implementations in `skin_vertices_independent_test.ts`.
 */

import fc from "fast-check";
import {
  MATRIX_FLOATS,
  SkinFlags,
  type SkinOutput,
  skinVertices,
  type SkinVerticesOptions,
  VERTEX_FLOATS,
  type VertexBuffer,
} from "../kernels.ts";
import {
  acrossBuilds,
  affineArb,
  assertBitwise,
  assertClose,
  fcParams,
  inVertices,
  layoutMeshArb,
  matricesArb,
  meshArb,
  sampleOne,
  SIMD_BUILDS,
} from "./_arbitrary.ts";
import {
  bounds,
  type Case,
  flagsOf,
  reference,
  SENTINEL,
  vertexCountOf,
} from "./_skin_vertices.ts";

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
