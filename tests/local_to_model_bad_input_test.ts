/**
 * `localToModel` on bad input, `ParentIndices` included: the right error,
 * and nothing written; NaN where the kernel does not read is ignored.
 * Valid parent lists are kept.
 */

import "../scalar.ts";
import { assertEquals } from "@std/assert";
import { localToModel, ParentIndices } from "../kernels.ts";
import * as ref from "../simd/scalar/mod.ts";
import {
  affineArb,
  Arena,
  assertBitwise,
  assertClose,
  BUILDS,
  coreFor,
  inMatrices,
  matricesArb,
  rejections,
  sampleOne,
  wrong,
} from "./_arbitrary.ts";

function setUp(arena: Arena) {
  const local = arena.matrices(sampleOne(matricesArb(affineArb(), 6, 6), 21));
  const model = arena.matrices(sampleOne(matricesArb(affineArb(), 6, 6), 22));
  const parents = arena.parents([-1, 0, 1, 1, -1, 4]);
  return { local, model, parents };
}

for (const build of BUILDS) {
  const core = coreFor(build);
  const other = coreFor(build === "scalar" ? "simd" : "scalar");
  const bad = rejections("localToModel", core, other, setUp);

  // ParentIndices: parents before children, in range, whole numbers.
  for (
    const [parents, pattern] of [
      [
        [-1, 1],
        /^parents\[1\]: expected -1 \(root\) or a joint before 1, got 1 \(parents must come before their children\)/,
      ],
      [
        [-1, 0, 5, 1],
        /^parents\[2\]: expected -1 \(root\) or a joint before 2, got 5 \(parents must come before their children\)/,
      ],
      [[0], /^parents\[0\]: expected -1 \(root\) or a joint before 0, got 0/],
      [
        [-1, -2],
        /^parents\[1\]: expected -1 \(root\) or a joint before 1, got -2/,
      ],
      [
        [-1, 0.5],
        /^parents\[1\]: expected -1 \(root\) or a joint before 1, got 0\.5/,
      ],
      [
        [-1, NaN],
        /^parents\[1\]: expected -1 \(root\) or a joint before 1, got NaN/,
      ],
      [
        [-1, 0, 1, 2, 3, 4, 5, 7],
        /^parents\[7\]: .* got 7 \(parents must come before their children\)/,
      ],
      [new Array(32768).fill(-1), /^parents: at most 32767 joints, got 32768/],
    ] as const
  ) {
    bad(
      `ParentIndices ${
        parents.length > 10 ? `of ${parents.length} joints` : JSON.stringify(parents)
      }`,
      (_, arena) => () => arena.parents(parents),
      RangeError,
      pattern,
    );
  }

  // Wrong argument types.
  bad(
    "an Int16Array as the parents",
    ({ local, model }) => () =>
      localToModel(local, model, wrong(Int16Array.of(-1, 0, 1, 1, -1, 4))),
    TypeError,
    /^localToModel: parents: expected a (ParentIndices|buffer of a Marrow core), got Int16Array/,
  );
  bad(
    "a MatrixBuffer as the parents",
    ({ local, model }) => () => localToModel(local, model, wrong(local), 0, 5),
    TypeError,
    /^localToModel: parents: expected a ParentIndices, got MatrixBuffer/,
  );
  bad(
    "ParentIndices as the local matrices",
    ({ model, parents }) => () => localToModel(wrong(parents), model, parents),
    TypeError,
    /^localToModel: local: expected a MatrixBuffer, got ParentIndices/,
  );
  bad(
    "a missing model",
    ({ local, parents }) => () => localToModel(local, wrong(undefined), parents),
    TypeError,
    /^localToModel: model: expected a MatrixBuffer, got undefined/,
  );
  bad(
    "null parents",
    ({ local, model }) => () => localToModel(local, model, wrong(null)),
    TypeError,
    /^localToModel: parents\b/,
  );

  // Ranges and short buffers.
  for (
    const [first, last, pattern] of [
      [-1, 5, /^localToModel: first: expected a whole number >= 0, got -1/],
      [0.5, 5, /^localToModel: first: expected a whole number >= 0, got 0\.5/],
      [NaN, 5, /^localToModel: first: expected a whole number >= 0, got NaN/],
      [0, 6, /^localToModel: last: expected a joint index below 6, got 6/],
      [0, -2, /^localToModel: last: expected a joint index below 6, got -2/],
      [0, 2.5, /^localToModel: last: expected a joint index below 6, got 2\.5/],
    ] as const
  ) {
    bad(
      `first ${first}, last ${last}`,
      ({ local, model, parents }) => () => localToModel(local, model, parents, first, last),
      RangeError,
      pattern,
    );
  }
  bad(
    "local matrices shorter than the parents",
    ({ model, parents }, arena) => {
      const short = arena.matrices(5);
      return () => localToModel(short, model, parents);
    },
    RangeError,
    /^localToModel: last: expected a joint index below 5, got 5/,
  );
  bad(
    "model matrices shorter than the parents",
    ({ local, parents }, arena) => {
      const short = arena.matrices(4);
      return () => localToModel(local, short, parents);
    },
    RangeError,
    /^localToModel: last: expected a joint index below 4, got 5/,
  );

  // Non-finite input.
  bad(
    "NaN in a local matrix",
    ({ local, model, parents }) => {
      local.array[3 * 12 + 5] = NaN;
      return () => localToModel(local, model, parents);
    },
    RangeError,
    /^localToModel: local: matrix 3 element 5 is NaN/,
  );
  bad(
    "Infinity in the last local matrix of a range",
    ({ local, model, parents }) => {
      local.array[4 * 12 + 11] = Infinity;
      return () => localToModel(local, model, parents, 2, 4);
    },
    RangeError,
    /^localToModel: local: matrix 4 element 11 is Infinity/,
  );
  bad(
    "NaN in a model matrix below first",
    ({ local, model, parents }) => {
      model.array[1 * 12 + 2] = NaN;
      return () => localToModel(local, model, parents, 2);
    },
    RangeError,
    /^localToModel: model: matrix 1 element 2 is NaN/,
  );
  bad(
    "NaN below first when local is the model (in place)",
    ({ local, parents }) => {
      local.array[1 * 12 + 0] = NaN;
      return () => localToModel(local, local, parents, 2);
    },
    RangeError,
    /^localToModel: (local|model): matrix 1 element 0 is NaN/,
  );

  // Other cores, freed buffers.
  bad(
    "parents of another core",
    ({ local, model }, _, foreign) => {
      const parents = foreign.parents([-1, 0, 1, 1, -1, 4]);
      return () => localToModel(local, model, parents);
    },
    TypeError,
    /^localToModel: parents: belongs to another core than the other arguments/,
  );
  bad(
    "a model of another core",
    ({ local, parents }, _, foreign) => {
      const model = foreign.matrices(6);
      return () => localToModel(local, model, parents);
    },
    TypeError,
    /^localToModel: model: belongs to another core than the other arguments/,
  );
  bad(
    "freed parents",
    ({ local, model, parents }) => {
      parents.free();
      return () => localToModel(local, model, parents);
    },
    TypeError,
    /^localToModel: parents: the buffer was freed/,
  );
  bad(
    "a freed local buffer",
    ({ local, model, parents }) => {
      local.free();
      return () => localToModel(local, model, parents);
    },
    TypeError,
    /^localToModel: local: the buffer was freed/,
  );

  Deno.test(`localToModel (${build}) ignores NaN outside the range it reads`, () => {
    const arena = new Arena(core);
    try {
      const { local, model, parents } = setUp(arena);
      // local[5] is past last, model[4..5] are written before being read.
      local.array[5 * 12 + 3] = NaN;
      model.array.fill(NaN, 4 * 12);
      const before = { local: local.array.slice(), model: model.array.slice() };
      localToModel(local, model, parents, 0, 4);
      const expected = before.model.slice();
      ref.localToModel(before.local, expected, parents.toArray(), 0, 4);
      assertClose(
        model.array.subarray(0, 60),
        expected.subarray(0, 60),
        1e-3,
        build,
        inMatrices,
      );
      assertBitwise(model.array.slice(60), expected.slice(60), build);
    } finally {
      arena.free();
    }
  });
}

Deno.test("ParentIndices: valid lists are kept", () => {
  const core = coreFor("scalar");
  const parents = new ParentIndices([-1, 0, 1, 0, -1, 4, 2], core);
  try {
    assertEquals(Array.from(parents.toArray()), [-1, 0, 1, 0, -1, 4, 2]);
    assertEquals(parents.at(6), 2);
    assertEquals(parents.jointCount, 7);
  } finally {
    parents.free();
  }
});
