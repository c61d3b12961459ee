/**
 * `skinVertices` and the `SkinMesh` it reads, on bad input: the right error,
 * nothing written; and what a `SkinMesh` reports (sizes, streams, joints
 * used).
 */

import "../scalar.ts";
import { assertEquals } from "@std/assert";
import { SkinMesh, skinVertices } from "../kernels.ts";
import {
  affineArb,
  type Arena,
  BUILDS,
  coreFor,
  matricesArb,
  rejections,
  sampleOne,
  wrong,
} from "./_arbitrary.ts";
import { type Known, SENTINEL } from "./_skin_vertices.ts";

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
