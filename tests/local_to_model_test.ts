/**
 * `localToModel`: `model[i] = model[parents[i]] * local[i]` over joints
 * `first..last`, roots copying `local[i]`.
 *
 * 1. Every build equals the scalar reference on random hierarchies, partial
 *    ranges (parents below `first` read from `model`), in place
 *    (`local === model`) and with longer buffers; roots are copied bit for
 *    bit and matrices outside `first..last` are not written.
 * 2. The reference equals gl-matrix's `mat4.multiply` down the hierarchy.
 * 3. A three-joint chain worked by hand (exact in `f32`), siblings, forests.
 * 4. Bad input, `ParentIndices` included: `local_to_model_bad_input_test.ts`.
 *
 * The scalar build runs the reference's own functions, so its bitwise check
 * in 1 finds only bugs of its wrapper (arguments, offsets, counts, what it
 * writes); the arithmetic it shares with the reference is checked by 2,
 * against an independent implementation.
 */

import "../scalar.ts";
import fc from "fast-check";
import { mat4 } from "gl-matrix";
import { assertEquals } from "@std/assert";
import { localToModel, MATRIX_FLOATS } from "../kernels.ts";
import * as ref from "../simd/scalar/mod.ts";
import {
  acrossBuilds,
  affineArb,
  Arena,
  assertBitwise,
  assertClose,
  BUILDS,
  concatMatrices,
  coreFor,
  fcParams,
  fromColumnMajor,
  inMatrices,
  matricesArb,
  parentsArb,
  productMagnitude,
  sampleOne,
  SIMD_BUILDS,
  toColumnMajor,
  tolerance,
  trsArb,
  trsMatrix,
} from "./_arbitrary.ts";

/** Fills matrices the kernel must not write (past `last`). */
const SENTINEL = 12345.5;

/** One input of the kernel. */
interface Case {
  parents: number[];
  /** Local matrices (at least `parents.length`). */
  local: Float32Array;
  /** Model matrices before the call: valid below `first`. */
  model: Float32Array;
  first: number;
  last: number;
  /** Run with `local` as the model buffer too. */
  inPlace: boolean;
}

/**
 * Model matrices before the call: `prior` below `first`, NaN in
 * `first..last` (the kernel must write them before reading them), the
 * sentinel after.
 */
function initialModel(
  count: number,
  prior: Float32Array,
  first: number,
  last: number,
): Float32Array {
  const model = new Float32Array(count * MATRIX_FLOATS).fill(SENTINEL);
  model.set(prior.subarray(0, first * MATRIX_FLOATS));
  model.fill(NaN, first * MATRIX_FLOATS, (last + 1) * MATRIX_FLOATS);
  return model;
}

function reference(c: Case): Float32Array {
  const parents = Int16Array.from(c.parents);
  if (c.inPlace) {
    const both = c.local.slice();
    ref.localToModel(both, both, parents, c.first, c.last);
    return both;
  }
  const model = c.model.slice();
  ref.localToModel(c.local, model, parents, c.first, c.last);
  return model;
}

function checkAgainstReference(c: Case): void {
  const expected = reference(c);
  const results = acrossBuilds((arena) => {
    const parents = arena.parents(c.parents);
    const local = arena.matrices(c.local);
    const model = c.inPlace ? local : arena.matrices(c.model);
    arena.writesOnly(
      [model],
      () => localToModel(local, model, parents, c.first, c.last),
    );
    return model.array.slice();
  });
  assertBitwise(results.scalar, expected, "scalar build", inMatrices);
  // Per joint in range, the magnitude of the terms of its one product;
  // roots and joints out of range exactly.
  const bounds = new Float64Array(expected.length);
  for (let i = c.first; i <= c.last; i++) {
    const p = c.parents[i];
    if (p < 0) continue;
    bounds.set(
      productMagnitude(expected, p, c.local, i).map(tolerance),
      i * MATRIX_FLOATS,
    );
  }
  for (const build of SIMD_BUILDS) {
    assertClose(
      results[build],
      expected,
      (i) => bounds[i],
      `${build} build`,
      inMatrices,
    );
  }
}

/** Random cases: hierarchies of up to `maxJoints` joints. */
function caseArb(maxJoints: number): fc.Arbitrary<Case> {
  return parentsArb(0, maxJoints).chain((parents) => {
    const n = parents.length;
    return fc.record({
      parents: fc.constant(parents),
      local: matricesArb(affineArb(), n + 0, n + 3),
      prior: matricesArb(affineArb(), n, n),
      extraModel: fc.nat(3),
      range: fc.tuple(fc.nat(n), fc.nat(n)),
      partial: fc.boolean(),
      inPlace: fc.integer({ min: 0, max: 4 }).map((k) => k === 0),
    });
  }).map(({ parents, local, prior, extraModel, range, partial, inPlace }) => {
    const n = parents.length;
    // Whole hierarchy, or first..last with first <= last + 1.
    let first = 0, last = n - 1;
    if (partial && n > 0) {
      first = Math.min(range[0], range[1]);
      last = Math.max(range[0], range[1]) - 1;
    }
    const count = Math.max(n + extraModel, local.length / MATRIX_FLOATS);
    const model = initialModel(count, prior, first, last);
    if (inPlace) {
      // One buffer: model values below first, the local ones from first.
      const both = local.slice();
      both.set(prior.subarray(0, first * MATRIX_FLOATS));
      return { parents, local: both, model: both, first, last, inPlace };
    }
    return { parents, local, model, first, last, inPlace };
  });
}

Deno.test("localToModel: every build equals the reference on random hierarchies", () => {
  fc.assert(fc.property(caseArb(12), checkAgainstReference), fcParams());
});

/** Rigid transforms (unit scale, short translations) for long chains. */
const rigid = trsArb({ translation: 1, minScale: 1, maxScale: 1 }).map(
  trsMatrix,
);

Deno.test("localToModel: every build equals the reference at explicit sizes", () => {
  for (const size of [0, 1, 2, 3, 4, 5, 7, 8, 9, 1023]) {
    const parents = sampleOne(parentsArb(size, size), size);
    // Chains of up to ~400 joints: rigid locals keep the magnitudes sane.
    const local = sampleOne(matricesArb(rigid, size, size), size + 1);
    const model = initialModel(size, new Float32Array(0), 0, size - 1);
    checkAgainstReference({
      parents,
      local,
      model,
      first: 0,
      last: size - 1,
      inPlace: false,
    });
    // Unaligned tail: longer buffers, a range ending before the last joint.
    if (size >= 2) {
      const prior = sampleOne(matricesArb(affineArb(), size, size), size + 2);
      const longer = new Float32Array(local.length + 36);
      longer.set(local);
      const first = size >> 1, last = size - 2;
      checkAgainstReference({
        parents,
        local: longer,
        model: initialModel(size + 3, prior, first, last),
        first,
        last,
        inPlace: false,
      });
    }
  }
  // A bushy tree (parents anywhere before) with scaled locals.
  const parents = Array.from(
    { length: 1023 },
    (_, i) => i === 0 ? -1 : Math.floor((i - 1) / 2),
  );
  const local = sampleOne(
    matricesArb(affineArb({ minScale: 0.8, maxScale: 1.25 }), 1023, 1023),
    77,
  );
  checkAgainstReference({
    parents,
    local,
    model: initialModel(1023, new Float32Array(0), 0, 1022),
    first: 0,
    last: 1022,
    inPlace: false,
  });
});

Deno.test("localToModel: the reference equals gl-matrix mat4.multiply", () => {
  fc.assert(
    fc.property(
      parentsArb(1, 10).chain((parents) =>
        fc.tuple(
          fc.constant(parents),
          matricesArb(affineArb(), parents.length, parents.length),
        )
      ),
      ([parents, local]) => {
        const n = parents.length;
        const actual = new Float32Array(n * MATRIX_FLOATS);
        ref.localToModel(local, actual, Int16Array.from(parents), 0, n - 1);
        // gl-matrix in double, 4x4 column-major.
        const model: Float64Array[] = [];
        for (let i = 0; i < n; i++) {
          const l = toColumnMajor(local, i);
          const p = parents[i];
          model.push(
            p < 0 ? l : mat4.multiply(
              new Float64Array(16) as unknown as mat4,
              model[p] as unknown as mat4,
              l as unknown as mat4,
            ) as unknown as Float64Array,
          );
          const expected = fromColumnMajor(model[i]);
          const bound = p < 0 ? new Float64Array(12) : productMagnitude(
            concatMatrices([fromColumnMajor(model[p])]),
            0,
            local,
            i,
          ).map(tolerance);
          assertClose(
            actual.subarray(i * 12, i * 12 + 12),
            expected,
            (e) => bound[e] * Math.max(1, depth(parents, i)),
            `joint ${i}`,
            inMatrices,
          );
        }
      },
    ),
    fcParams(),
  );
});

/** Number of ancestors of `joint`. */
function depth(parents: readonly number[], joint: number): number {
  let d = 0;
  for (let p = parents[joint]; p >= 0; p = parents[p]) d++;
  return d;
}

// ----------------------------------------------------------- known values

/** T(1, 0, 0). */
const L0 = [1, 0, 0, 1, 0, 1, 0, 0, 0, 0, 1, 0];
/** T(0, 2, 0) * Rz(90°). */
const L1 = [0, -1, 0, 0, 1, 0, 0, 2, 0, 0, 1, 0];
/** T(3, 0, 0) * S(2). */
const L2 = [2, 0, 0, 3, 0, 2, 0, 0, 0, 0, 2, 0];

for (const build of BUILDS) {
  const run = (
    parents: number[],
    local: number[],
    model: number[] | undefined,
    first?: number,
    last?: number,
  ) => {
    const arena = new Arena(coreFor(build));
    try {
      const l = arena.matrices(local);
      const m = arena.matrices(model ?? local.length / 12);
      localToModel(l, m, arena.parents(parents), first, last);
      return Array.from(m.array);
    } finally {
      arena.free();
    }
  };

  Deno.test(`localToModel (${build}): a three-joint chain worked by hand`, () => {
    // model1 = T(1,0,0) * T(0,2,0) * Rz90: translation (1, 2, 0).
    // model2 = model1 * T(3,0,0) * S(2): rotation Rz90 * 2, translation
    // Rz90 * (3, 0, 0) + (1, 2, 0) = (1, 5, 0).
    assertEquals(run([-1, 0, 1], [...L0, ...L1, ...L2], undefined), [
      ...[1, 0, 0, 1, 0, 1, 0, 0, 0, 0, 1, 0],
      ...[0, -1, 0, 1, 1, 0, 0, 2, 0, 0, 1, 0],
      ...[0, -2, 0, 1, 2, 0, 0, 5, 0, 0, 2, 0],
    ]);
  });

  Deno.test(`localToModel (${build}): joints 1..2 under a given model[0]`, () => {
    // model[0] = T(10, 0, 0) is read, not recomputed from local[0].
    const model0 = [1, 0, 0, 10, 0, 1, 0, 0, 0, 0, 1, 0];
    const result = run(
      [-1, 0, 1],
      [...L0, ...L1, ...L2],
      [...model0, ...new Array(24).fill(NaN)],
      1,
      2,
    );
    assertEquals(result, [
      ...model0,
      ...[0, -1, 0, 10, 1, 0, 0, 2, 0, 0, 1, 0],
      ...[0, -2, 0, 10, 2, 0, 0, 5, 0, 0, 2, 0],
    ]);
  });

  Deno.test(`localToModel (${build}): siblings and a second root`, () => {
    // Joint 2's parent is 0, not the joint before it; joint 3 is a root.
    const result = run([-1, 0, 0, -1], [...L0, ...L1, ...L2, ...L1], undefined);
    assertEquals(result, [
      ...L0,
      ...[0, -1, 0, 1, 1, 0, 0, 2, 0, 0, 1, 0],
      ...[2, 0, 0, 4, 0, 2, 0, 0, 0, 0, 2, 0],
      ...L1,
    ]);
  });

  Deno.test(`localToModel (${build}): in place`, () => {
    const arena = new Arena(coreFor(build));
    try {
      const both = arena.matrices([...L0, ...L1, ...L2]);
      localToModel(both, both, arena.parents([-1, 0, 1]));
      assertEquals(Array.from(both.array).slice(24), [
        0,
        -2,
        0,
        1,
        2,
        0,
        0,
        5,
        0,
        0,
        2,
        0,
      ]);
    } finally {
      arena.free();
    }
  });

  Deno.test(`localToModel (${build}): an empty range writes nothing`, () => {
    const initial = new Array(36).fill(SENTINEL);
    assertEquals(
      run([-1, 0, 1], [...L0, ...L1, ...L2], initial, 2, 1),
      initial,
    );
    assertEquals(run([], [], [], undefined, undefined), []);
  });
}
