/**
 * `modelToLocal` on bad input: the right error, and nothing written.
 */

import "../scalar.ts";
import { modelToLocal } from "../kernels.ts";
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

function setUp(arena: Arena) {
  const model = arena.matrices(sampleOne(matricesArb(affineArb(), 6, 6), 31));
  const local = arena.matrices(sampleOne(matricesArb(affineArb(), 6, 6), 32));
  const parents = arena.parents([-1, 0, 1, 1, -1, 4]);
  return { model, local, parents };
}

for (const build of BUILDS) {
  const core = coreFor(build);
  const other = coreFor(build === "scalar" ? "simd" : "scalar");
  const bad = rejections("modelToLocal", core, other, setUp);

  bad(
    "an array as the parents",
    ({ model, local }) => () => modelToLocal(model, local, wrong([-1, 0, 1, 1, -1, 4])),
    TypeError,
    /^modelToLocal: parents: expected a (ParentIndices|buffer of a Marrow core), got Array/,
  );
  bad(
    "a PoseBuffer as the model",
    ({ local, parents }, arena) => {
      const pose = arena.pose(new Float32Array(80), 6);
      return () => modelToLocal(wrong(pose), local, parents);
    },
    TypeError,
    /^modelToLocal: model: expected a MatrixBuffer, got PoseBuffer/,
  );
  bad(
    "a missing local buffer",
    ({ model, parents }) => () => modelToLocal(model, wrong(undefined), parents),
    TypeError,
    /^modelToLocal: local: expected a MatrixBuffer, got undefined/,
  );
  for (
    const [first, last, pattern] of [
      [-1, 5, /^modelToLocal: first: expected a whole number >= 0, got -1/],
      [1.5, 5, /^modelToLocal: first: expected a whole number >= 0, got 1\.5/],
      [0, 6, /^modelToLocal: last: expected a joint index below 6, got 6/],
      [0, -3, /^modelToLocal: last: expected a joint index below 6, got -3/],
      [0, NaN, /^modelToLocal: last: expected a joint index below 6, got NaN/],
    ] as const
  ) {
    bad(
      `first ${first}, last ${last}`,
      ({ model, local, parents }) => () => modelToLocal(model, local, parents, first, last),
      RangeError,
      pattern,
    );
  }
  bad(
    "a local buffer shorter than the parents",
    ({ model, parents }, arena) => {
      const short = arena.matrices(3);
      return () => modelToLocal(model, short, parents);
    },
    RangeError,
    /^modelToLocal: last: expected a joint index below 3, got 5/,
  );
  bad(
    "NaN in a model matrix",
    ({ model, local, parents }) => {
      model.array[2 * 12 + 9] = NaN;
      return () => modelToLocal(model, local, parents);
    },
    RangeError,
    /^modelToLocal: model: matrix 2 element 9 is NaN/,
  );
  bad(
    "-Infinity in a parent below first",
    ({ model, local, parents }) => {
      model.array[1 * 12 + 3] = -Infinity;
      return () => modelToLocal(model, local, parents, 3, 5);
    },
    RangeError,
    /^modelToLocal: model: matrix 1 element 3 is -Infinity/,
  );
  bad(
    "NaN in place",
    ({ model, parents }) => {
      model.array[5 * 12] = NaN;
      return () => modelToLocal(model, model, parents);
    },
    RangeError,
    /^modelToLocal: model: matrix 5 element 0 is NaN/,
  );
  bad(
    "a local buffer of another core",
    ({ model, parents }, _, foreign) => {
      const local = foreign.matrices(6);
      return () => modelToLocal(model, local, parents);
    },
    TypeError,
    /^modelToLocal: local: belongs to another core than the other arguments/,
  );
  bad(
    "freed parents",
    ({ model, local, parents }) => {
      parents.free();
      return () => modelToLocal(model, local, parents);
    },
    TypeError,
    /^modelToLocal: parents: the buffer was freed/,
  );
  bad(
    "a freed model",
    ({ model, local, parents }) => {
      model.free();
      return () => modelToLocal(model, local, parents);
    },
    TypeError,
    /^modelToLocal: model: the buffer was freed/,
  );
}
