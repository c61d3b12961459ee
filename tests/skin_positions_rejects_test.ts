/**
 * `skinPositions` and the `WeightedBases` it reads, on bad input: the right
 * error, nothing written; and what a `WeightedBases` reports (counts,
 * joints used, sizes).
 */

import "../scalar.ts";
import { assertEquals } from "@std/assert";
import { type InfluenceLists, skinPositions, WeightedBases } from "../kernels.ts";
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
import { I, SENTINEL, T, withArenaOf } from "./_skin_positions.ts";

// --------------------------------------------------------------- bad input

const FIXTURE = {
  positions: [0, 0, 0, 1, 1, 0, 0, 1, 0, 1, 0, 1],
  inverseBind: [...I, ...T(0, -1, 0), ...T(0, -2, 0)],
  influences: {
    counts: [1, 2, 3],
    joints: [0, 0, 1, 2, 1, 0],
    weights: [1, 0.75, 0.25, 0.5, 0.3, 0.2],
  },
};

function setUp(arena: Arena) {
  const f = FIXTURE;
  return {
    model: arena.matrices(sampleOne(matricesArb(affineArb(), 3, 3), 51)),
    bases: arena.bases(f.positions, f.inverseBind, f.influences),
    out: arena.vertices(new Array(12).fill(SENTINEL)),
  };
}

for (const build of BUILDS) {
  const core = coreFor(build);
  const other = coreFor(build === "scalar" ? "simd" : "scalar");
  const bad = rejections("skinPositions", core, other, setUp);

  // WeightedBases: influences, positions and inverse bind matrices.
  const f = FIXTURE;
  const withInfluences = (change: Partial<InfluenceLists>) => ({
    ...f.influences,
    ...change,
  });
  for (
    const [name, positions, inverseBind, influences, pattern] of [
      [
        "a joint past the inverse bind matrices",
        f.positions,
        f.inverseBind,
        withInfluences({ joints: [0, 0, 1, 2, 3, 0] }),
        /^joints\[4\]: expected a joint index 0\.\.2, got 3/,
      ],
      [
        "a negative joint",
        f.positions,
        f.inverseBind,
        withInfluences({ joints: [0, -1, 1, 2, 1, 0] }),
        /^joints\[1\]: expected a joint index 0\.\.2, got -1/,
      ],
      [
        "a fractional joint",
        f.positions,
        f.inverseBind,
        withInfluences({ joints: [0.5, 0, 1, 2, 1, 0] }),
        /^joints\[0\]: expected a joint index 0\.\.2, got 0\.5/,
      ],
      [
        "a vertex without influences",
        f.positions,
        f.inverseBind,
        withInfluences({ counts: [1, 0, 3] }),
        /^counts\[1\]: influences per vertex must be 1\.\.255, got 0/,
      ],
      [
        "256 influences",
        f.positions,
        f.inverseBind,
        withInfluences({ counts: [1, 2, 256] }),
        /^counts\[2\]: influences per vertex must be 1\.\.255, got 256/,
      ],
      [
        "a NaN weight",
        f.positions,
        f.inverseBind,
        withInfluences({ weights: [1, 0.75, NaN, 0.5, 0.3, 0.2] }),
        /^weights\[2\]: expected a finite weight >= 0, got NaN/,
      ],
      [
        "a negative weight",
        f.positions,
        f.inverseBind,
        withInfluences({ weights: [1, 0.75, 0.25, 0.5, 0.3, -0.2] }),
        /^weights\[5\]: expected a finite weight >= 0, got -0\.2/,
      ],
      [
        "too few joints",
        f.positions,
        f.inverseBind,
        withInfluences({ joints: [0, 0, 1, 2, 1] }),
        /^joints: expected at least 6 values, got 5/,
      ],
      [
        "too few weights",
        f.positions,
        f.inverseBind,
        withInfluences({ weights: [1] }),
        /^weights: expected at least 6 values, got 1/,
      ],
      [
        "a NaN position",
        [0, 0, 0, 1, 1, NaN, 0, 1, 0, 1, 0, 1],
        f.inverseBind,
        f.influences,
        /^positions\[5\] \(element 1, component 1\) is NaN/,
      ],
      [
        "too few positions",
        f.positions.slice(0, 11),
        f.inverseBind,
        f.influences,
        /^positions: expected at least 12 values, got 11/,
      ],
      [
        "an infinite inverse bind matrix",
        f.positions,
        [...I, ...T(0, -1, Infinity), ...I],
        f.influences,
        /^inverseBind\[23\] \(element 1, component 11\) is Infinity/,
      ],
    ] as const
  ) {
    bad(
      `WeightedBases with ${name}`,
      (_, arena) => () => arena.bases(positions, inverseBind, influences),
      RangeError,
      pattern,
    );
  }

  // Argument types.
  bad(
    "a MatrixBuffer as the bases",
    ({ model, out }) => () => skinPositions(model, wrong(model), out),
    TypeError,
    /^skinPositions: bases: expected a WeightedBases, got MatrixBuffer/,
  );
  bad(
    "a VertexBuffer as the model",
    ({ bases, out }) => () => skinPositions(wrong(out), bases, out),
    TypeError,
    /^skinPositions: model: expected a MatrixBuffer, got VertexBuffer/,
  );
  bad(
    "a Float32Array as out",
    ({ model, bases }) => () => skinPositions(model, bases, wrong(new Float32Array(12))),
    TypeError,
    /^skinPositions: out: expected a (VertexBuffer|buffer of a Marrow core), got Float32Array/,
  );
  bad(
    "null options",
    ({ model, bases, out }) => () => skinPositions(model, bases, out, wrong(null)),
    TypeError,
    /^skinPositions: options\b/,
  );

  // Sizes and ranges.
  bad(
    "a model of fewer matrices than the joints used",
    ({ bases, out }, arena) => {
      const short = arena.matrices(2);
      return () => skinPositions(short, bases, out);
    },
    RangeError,
    /^skinPositions: model: has 2 matrices, needs at least 3/,
  );
  bad(
    "an output of fewer vertices",
    ({ model, bases }, arena) => {
      const short = arena.vertices(2);
      return () => skinPositions(model, bases, short);
    },
    RangeError,
    /^skinPositions: out: has 2 vertices, needs at least 3/,
  );
  for (const cap of [0, -1, 1.5, NaN]) {
    bad(
      `maxInfluences ${cap}`,
      ({ model, bases, out }) => () => skinPositions(model, bases, out, { maxInfluences: cap }),
      RangeError,
      new RegExp(
        `^skinPositions: options\\.maxInfluences: expected a whole number >= 1, got ${cap}`,
      ),
    );
  }

  // Non-finite model matrices.
  bad(
    "NaN in a model matrix",
    ({ model, bases, out }) => {
      model.array[1 * 12 + 4] = NaN;
      return () => skinPositions(model, bases, out);
    },
    RangeError,
    /^skinPositions: model: matrix 1 element 4 is NaN/,
  );
  bad(
    "-Infinity in the last model matrix used",
    ({ model, bases, out }) => {
      model.array[2 * 12 + 11] = -Infinity;
      return () => skinPositions(model, bases, out);
    },
    RangeError,
    /^skinPositions: model: matrix 2 element 11 is -Infinity/,
  );

  // Other cores, freed buffers.
  bad(
    "bases of another core",
    ({ model, out }, _, foreign) => {
      const bases = foreign.bases(f.positions, f.inverseBind, f.influences);
      return () => skinPositions(model, bases, out);
    },
    TypeError,
    /^skinPositions: bases: belongs to another core than the other arguments/,
  );
  bad(
    "freed bases",
    ({ model, bases, out }) => {
      bases.free();
      return () => skinPositions(model, bases, out);
    },
    TypeError,
    /^skinPositions: bases: the buffer was freed/,
  );
  bad(
    "a freed output",
    ({ model, bases, out }) => {
      out.free();
      return () => skinPositions(model, bases, out);
    },
    TypeError,
    /^skinPositions: out: the buffer was freed/,
  );

  Deno.test(`skinPositions (${build}) ignores NaN in model matrices no influence uses`, () => {
    withArenaOf(build, (arena) => {
      const model = arena.matrices([
        ...T(1, 0, 0),
        ...T(0, 1, 0),
        ...new Array(12).fill(NaN),
      ]);
      const bases = arena.bases([0, 0, 0, 1], [...I, ...I], {
        counts: [2],
        joints: [0, 1],
        weights: [0.5, 0.5],
      });
      const out = arena.vertices(1);
      skinPositions(model, bases, out);
      assertEquals(Array.from(out.array), [0.5, 0.5, 0, 1]);
    });
  });
}

Deno.test("WeightedBases: counts, joints used and sizes", () => {
  const core = coreFor("scalar");
  const f = FIXTURE;
  const bases = new WeightedBases(
    f.positions,
    f.inverseBind,
    f.influences,
    core,
  );
  try {
    assertEquals(bases.vertexCount, 3);
    assertEquals(bases.influenceCount, 6);
    assertEquals(bases.jointCount, 3);
  } finally {
    bases.free();
  }
});
