/**
 * `modelToLocal`: `local[i] = inverse(model[parents[i]]) * model[i]` over
 * joints `last` down to `first`, roots copying `model[i]`.
 *
 * 1. Every build equals the scalar reference on random hierarchies of
 *    general affine matrices (scale, shear, reflections), partial ranges,
 *    in place (`local === model`) and with longer buffers; roots are copied
 *    bit for bit and matrices outside `first..last` are not written.
 * 2. The reference equals gl-matrix's `mat4.invert` and `mat4.multiply`.
 * 3. Known values: a chain worked by hand, the rigid inverse
 *    `[R^T | -R^T t]`, local→model→local round trips, singular parents.
 * 4. Bad input: `model_to_local_bad_input_test.ts`.
 *
 * The scalar build runs the reference's own functions, so its bitwise check
 * in 1 finds only bugs of its wrapper (arguments, offsets, counts, what it
 * writes); the arithmetic it shares with the reference is checked by 2,
 * against an independent implementation.
 */

import "../scalar.ts";
import fc from "fast-check";
import { mat4 } from "gl-matrix";
import { assert, assertEquals } from "@std/assert";
import { localToModel, MATRIX_FLOATS, modelToLocal } from "../kernels.ts";
import * as ref from "../simd/scalar/mod.ts";
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
  fromColumnMajor,
  inMatrices,
  matricesArb,
  parentsArb,
  sampleOne,
  SIMD_BUILDS,
  toColumnMajor,
  tolerance,
  trsArb,
  trsMatrix,
} from "./_arbitrary.ts";

/** Fills matrices the kernel must not write. */
const SENTINEL = 12345.5;

interface Case {
  parents: number[];
  /** Model matrices (at least `parents.length`). */
  model: Float32Array;
  /** Local matrices before the call. */
  local: Float32Array;
  first: number;
  last: number;
  inPlace: boolean;
}

/**
 * Error bound of `inverse(A) * B` per element: the magnitudes of
 * `|inverse(A.rot)| * (|B| + |[0 | A.t]|)`, the inverse taken in double.
 */
function inverseProductBound(
  model: ArrayLike<number>,
  parent: number,
  child: number,
): Float64Array {
  const a = toColumnMajor(model, parent);
  const inv = mat4.invert(
    new Float64Array(16) as unknown as mat4,
    a as unknown as mat4,
  );
  assert(inv, "singular parent in a random case");
  const r = fromColumnMajor(inv);
  const P = parent * MATRIX_FLOATS, C = child * MATRIX_FLOATS;
  const out = new Float64Array(MATRIX_FLOATS);
  for (let row = 0; row < 3; row++) {
    for (let col = 0; col < 4; col++) {
      let sum = 0;
      for (let k = 0; k < 3; k++) {
        const b = Math.abs(model[C + k * 4 + col]) +
          (col === 3 ? Math.abs(model[P + k * 4 + 3]) : 0);
        sum += Math.abs(r[row * 4 + k]) * b;
      }
      out[row * 4 + col] = tolerance(sum);
    }
  }
  return out;
}

function reference(c: Case): Float32Array {
  const parents = Int16Array.from(c.parents);
  if (c.inPlace) {
    const both = c.model.slice();
    ref.modelToLocal(both, both, parents, c.first, c.last);
    return both;
  }
  const local = c.local.slice();
  ref.modelToLocal(c.model, local, parents, c.first, c.last);
  return local;
}

function checkAgainstReference(c: Case): void {
  const expected = reference(c);
  const results = acrossBuilds((arena) => {
    const parents = arena.parents(c.parents);
    const model = arena.matrices(c.model);
    const local = c.inPlace ? model : arena.matrices(c.local);
    arena.writesOnly(
      [local],
      () => modelToLocal(model, local, parents, c.first, c.last),
    );
    return local.array.slice();
  });
  assertBitwise(results.scalar, expected, "scalar build", inMatrices);
  const bounds = new Float64Array(expected.length);
  for (let i = c.first; i <= c.last; i++) {
    const p = c.parents[i];
    if (p >= 0) {
      bounds.set(inverseProductBound(c.model, p, i), i * MATRIX_FLOATS);
    }
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

function caseArb(maxJoints: number): fc.Arbitrary<Case> {
  return parentsArb(0, maxJoints).chain((parents) => {
    const n = parents.length;
    return fc.record({
      parents: fc.constant(parents),
      model: matricesArb(affineArb(), n, n + 3),
      extraLocal: fc.nat(3),
      range: fc.tuple(fc.nat(n), fc.nat(n)),
      partial: fc.boolean(),
      inPlace: fc.integer({ min: 0, max: 4 }).map((k) => k === 0),
    });
  }).map(({ parents, model, extraLocal, range, partial, inPlace }) => {
    const n = parents.length;
    let first = 0, last = n - 1;
    if (partial && n > 0) {
      first = Math.min(range[0], range[1]);
      last = Math.max(range[0], range[1]) - 1;
    }
    const local = new Float32Array((n + extraLocal) * MATRIX_FLOATS).fill(
      SENTINEL,
    );
    return { parents, model, local, first, last, inPlace };
  });
}

Deno.test("modelToLocal: every build equals the reference on random hierarchies", () => {
  fc.assert(fc.property(caseArb(12), checkAgainstReference), fcParams());
});

Deno.test("modelToLocal: every build equals the reference at explicit sizes", () => {
  for (const size of [0, 1, 2, 3, 4, 5, 7, 8, 9, 1023]) {
    const parents = sampleOne(parentsArb(size, size), size);
    const model = sampleOne(matricesArb(affineArb(), size, size), size + 1);
    const local = new Float32Array(size * MATRIX_FLOATS).fill(SENTINEL);
    checkAgainstReference({
      parents,
      model,
      local,
      first: 0,
      last: size - 1,
      inPlace: false,
    });
    checkAgainstReference({
      parents,
      model,
      local,
      first: 0,
      last: size - 1,
      inPlace: true,
    });
    if (size >= 2) {
      const longer = new Float32Array((size + 3) * MATRIX_FLOATS).fill(
        SENTINEL,
      );
      checkAgainstReference({
        parents,
        model,
        local: longer,
        first: size >> 1,
        last: size - 2,
        inPlace: false,
      });
    }
  }
});

Deno.test("modelToLocal: the reference equals gl-matrix invert and multiply", () => {
  fc.assert(
    fc.property(
      parentsArb(1, 10).chain((parents) =>
        fc.tuple(
          fc.constant(parents),
          matricesArb(affineArb(), parents.length, parents.length),
        )
      ),
      ([parents, model]) => {
        const n = parents.length;
        const actual = new Float32Array(n * MATRIX_FLOATS);
        ref.modelToLocal(model, actual, Int16Array.from(parents), 0, n - 1);
        for (let i = 0; i < n; i++) {
          const p = parents[i];
          const m = toColumnMajor(model, i) as unknown as mat4;
          let expected = fromColumnMajor(m);
          if (p >= 0) {
            const inv = mat4.invert(
              new Float64Array(16) as unknown as mat4,
              toColumnMajor(model, p) as unknown as mat4,
            );
            assert(inv, "singular parent in a random case");
            expected = fromColumnMajor(
              mat4.multiply(new Float64Array(16) as unknown as mat4, inv, m),
            );
          }
          const bound = p < 0 ? new Float64Array(12) : inverseProductBound(model, p, i);
          assertClose(
            actual.subarray(i * 12, i * 12 + 12),
            expected,
            (e) => bound[e],
            `joint ${i}`,
            inMatrices,
          );
        }
      },
    ),
    fcParams(),
  );
});

// ----------------------------------------------------------- known values

for (const build of BUILDS) {
  const run = (
    parents: number[],
    model: number[],
    first?: number,
    last?: number,
  ) => {
    const arena = new Arena(coreFor(build));
    try {
      const m = arena.matrices(model);
      const l = arena.matrices(new Array(model.length).fill(SENTINEL));
      modelToLocal(m, l, arena.parents(parents), first, last);
      return Array.from(l.array);
    } finally {
      arena.free();
    }
  };

  Deno.test(`modelToLocal (${build}): a three-joint chain worked by hand`, () => {
    // The model matrices of localToModel's chain: T(1,0,0); then
    // Rz90 with translation (1, 2, 0); then 2 * Rz90 with (1, 5, 0).
    const local = run([-1, 0, 1], [
      ...[1, 0, 0, 1, 0, 1, 0, 0, 0, 0, 1, 0],
      ...[0, -1, 0, 1, 1, 0, 0, 2, 0, 0, 1, 0],
      ...[0, -2, 0, 1, 2, 0, 0, 5, 0, 0, 2, 0],
    ]);
    // inverse(model1) = [Rz-90 | -Rz-90 (1, 2, 0)] = [Rz-90 | (-2, 1, 0)];
    // local2 = Rz-90 * 2Rz90 = 2I, translation Rz-90 (1, 5, 0) + (-2, 1, 0)
    // = (5, -1, 0) + (-2, 1, 0) = (3, 0, 0).
    assertClose(
      local,
      [
        ...[1, 0, 0, 1, 0, 1, 0, 0, 0, 0, 1, 0],
        ...[0, -1, 0, 0, 1, 0, 0, 2, 0, 0, 1, 0],
        ...[2, 0, 0, 3, 0, 2, 0, 0, 0, 0, 2, 0],
      ],
      EPSILON,
      "chain",
      inMatrices,
    );
  });

  Deno.test(`modelToLocal (${build}): a rigid parent inverts as [R^T | -R^T t]`, () => {
    fc.assert(
      fc.property(
        trsArb({ minScale: 1, maxScale: 1 }),
        affineArb(),
        (parent, child) => {
          const a = trsMatrix(parent);
          const local = run([-1, 0], [...a, ...child]).slice(12);
          // [R^T | -R^T t] * child, written out.
          const expected: number[] = [];
          for (let r = 0; r < 3; r++) {
            for (let c = 0; c < 4; c++) {
              let sum = 0;
              for (let k = 0; k < 3; k++) {
                sum += a[k * 4 + r] *
                  (child[k * 4 + c] - (c === 3 ? a[k * 4 + 3] : 0));
              }
              expected.push(sum);
            }
          }
          assertClose(
            local,
            expected,
            inverseProductBound([...a, ...child], 0, 1),
            "rigid",
            inMatrices,
          );
        },
      ),
      fcParams(100),
    );
  });

  Deno.test(`modelToLocal (${build}): local→model→local round trip`, () => {
    fc.assert(
      fc.property(
        parentsArb(1, 8).chain((parents) =>
          fc.tuple(
            fc.constant(parents),
            // Mild scales: the round trip's error grows with the
            // conditioning of the model matrices, a product down the chain.
            matricesArb(
              affineArb({ translation: 2, minScale: 0.8, maxScale: 1.25 }),
              parents.length,
              parents.length,
            ),
          )
        ),
        ([parents, local]) => {
          const arena = new Arena(coreFor(build));
          try {
            const p = arena.parents(parents);
            const l = arena.matrices(local);
            const m = arena.matrices(parents.length);
            localToModel(l, m, p);
            const magnitude = Math.max(...m.array.map(Math.abs));
            modelToLocal(m, m, p);
            assertClose(
              m.array,
              local,
              tolerance(magnitude) * parents.length,
              "round trip",
              inMatrices,
            );
          } finally {
            arena.free();
          }
        },
      ),
      fcParams(200),
    );
  });

  Deno.test(`modelToLocal (${build}): a singular parent gives non-finite children only`, () => {
    const zero = new Array(12).fill(0);
    const identity = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0];
    const local = run([-1, 0, -1], [...zero, ...identity, ...identity]);
    assertEquals(local.slice(0, 12), zero);
    assert(
      local.slice(12, 24).some((x) => !Number.isFinite(x)),
      `child: ${local.slice(12, 24)}`,
    );
    assertEquals(local.slice(24), identity);
  });

  Deno.test(`modelToLocal (${build}): an empty range writes nothing`, () => {
    const identity = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0];
    assertEquals(
      run([-1, 0], [...identity, ...identity], 1, 0),
      new Array(24).fill(SENTINEL),
    );
  });
}
