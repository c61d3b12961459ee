/**
 * `multiplyMatrices`: `out[i] = a[i] * b[i]` (model × inverse bind).
 *
 * 1. Every build equals the scalar reference on random affine matrices,
 *    with `out` aliasing `a` or `b`, longer buffers and any `count`;
 *    matrices past `count` are not written.
 * 2. The reference equals gl-matrix's `mat4.multiply`.
 * 3. Known values: identities, products worked by hand, model × inverse
 *    bind = identity.
 * 4. Bad input: the right error, nothing written.
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
import { MATRIX_FLOATS, multiplyMatrices } from "../kernels.ts";
import * as ref from "../simd/scalar/mod.ts";
import {
  acrossBuilds,
  affineArb,
  Arena,
  assertBitwise,
  assertClose,
  BUILDS,
  coreFor,
  fcParams,
  fromColumnMajor,
  inMatrices,
  matricesArb,
  productMagnitude,
  rejections,
  sampleOne,
  SIMD_BUILDS,
  toColumnMajor,
  tolerance,
  wrong,
} from "./_arbitrary.ts";

/** Fills matrices the kernel must not write. */
const SENTINEL = 12345.5;

type Alias = "none" | "a" | "b";

interface Case {
  a: Float32Array;
  b: Float32Array;
  /** `out` before the call (ignored when aliased). */
  out: Float32Array;
  count: number;
  alias: Alias;
}

function reference(c: Case): Float32Array {
  const a = c.a.slice(), b = c.b.slice();
  const out = c.alias === "a" ? a : c.alias === "b" ? b : c.out.slice();
  ref.multiplyMatrices(a, b, out, c.count);
  return out;
}

function checkAgainstReference(c: Case): void {
  const expected = reference(c);
  const results = acrossBuilds((arena) => {
    const a = arena.matrices(c.a), b = arena.matrices(c.b);
    const out = c.alias === "a" ? a : c.alias === "b" ? b : arena.matrices(c.out);
    arena.writesOnly([out], () => multiplyMatrices(a, b, out, c.count));
    return out.array.slice();
  });
  assertBitwise(results.scalar, expected, "scalar build", inMatrices);
  const bounds = new Float64Array(expected.length);
  for (let i = 0; i < c.count; i++) {
    bounds.set(
      productMagnitude(c.a, i, c.b, i).map(tolerance),
      i * MATRIX_FLOATS,
    );
  }
  for (const build of SIMD_BUILDS) {
    assertClose(results[build], expected, bounds, `${build} build`, inMatrices);
  }
}

const caseArb: fc.Arbitrary<Case> = fc.record({
  count: fc.nat(9),
  extra: fc.tuple(fc.nat(3), fc.nat(3), fc.nat(3)),
  alias: fc.constantFrom<Alias>("none", "none", "a", "b"),
}).chain(({ count, extra, alias }) =>
  fc.record({
    a: matricesArb(affineArb(), count + extra[0], count + extra[0]),
    b: matricesArb(affineArb(), count + extra[1], count + extra[1]),
    out: fc.constant(
      new Float32Array((count + extra[2]) * MATRIX_FLOATS).fill(SENTINEL),
    ),
    count: fc.constant(count),
    alias: fc.constant(alias),
  })
);

Deno.test("multiplyMatrices: every build equals the reference on random matrices", () => {
  fc.assert(fc.property(caseArb, checkAgainstReference), fcParams());
});

Deno.test("multiplyMatrices: every build equals the reference at explicit sizes", () => {
  for (const size of [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 1023]) {
    const a = sampleOne(matricesArb(affineArb(), size + 2, size + 2), size);
    const b = sampleOne(matricesArb(affineArb(), size + 1, size + 1), size + 1);
    const out = new Float32Array((size + 3) * MATRIX_FLOATS).fill(SENTINEL);
    for (const alias of ["none", "a", "b"] as const) {
      checkAgainstReference({ a, b, out, count: size, alias });
    }
  }
});

Deno.test("multiplyMatrices: the reference equals gl-matrix mat4.multiply", () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 1, max: 6 }).chain((n) =>
        fc.tuple(matricesArb(affineArb(), n, n), matricesArb(affineArb(), n, n))
      ),
      ([a, b]) => {
        const n = a.length / MATRIX_FLOATS;
        const actual = new Float32Array(a.length);
        ref.multiplyMatrices(a, b, actual, n);
        for (let i = 0; i < n; i++) {
          const expected = fromColumnMajor(
            mat4.multiply(
              new Float64Array(16) as unknown as mat4,
              toColumnMajor(a, i) as unknown as mat4,
              toColumnMajor(b, i) as unknown as mat4,
            ),
          );
          assertClose(
            actual.subarray(i * 12, i * 12 + 12),
            expected,
            productMagnitude(a, i, b, i).map(tolerance),
            `matrix ${i}`,
            inMatrices,
          );
        }
      },
    ),
    fcParams(),
  );
});

// ----------------------------------------------------------- known values

const I = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0];
/** T(1, 2, 3). */
const T = [1, 0, 0, 1, 0, 1, 0, 2, 0, 0, 1, 3];
/** Rz(90°). */
const RZ = [0, -1, 0, 0, 1, 0, 0, 0, 0, 0, 1, 0];
/** S(2). */
const S2 = [2, 0, 0, 0, 0, 2, 0, 0, 0, 0, 2, 0];
/** T(1, 0, 0). */
const TX = [1, 0, 0, 1, 0, 1, 0, 0, 0, 0, 1, 0];
/** [Rz90 | (1, 2, 0)] and its inverse [Rz-90 | -Rz-90 (1, 2, 0)]. */
const M = [0, -1, 0, 1, 1, 0, 0, 2, 0, 0, 1, 0];
const M_INV = [0, 1, 0, -2, -1, 0, 0, 1, 0, 0, 1, 0];

for (const build of BUILDS) {
  Deno.test(`multiplyMatrices (${build}): products worked by hand`, () => {
    const pairs: [number[], number[], number[]][] = [
      [I, M, M],
      [M, I, M],
      // T * Rz: rotation Rz, translation (1, 2, 3).
      [T, RZ, [0, -1, 0, 1, 1, 0, 0, 2, 0, 0, 1, 3]],
      // Rz * T: translation Rz (1, 2, 3) = (-2, 1, 3).
      [RZ, T, [0, -1, 0, -2, 1, 0, 0, 1, 0, 0, 1, 3]],
      // S2 * T(1, 0, 0): translation (2, 0, 0).
      [S2, TX, [2, 0, 0, 2, 0, 2, 0, 0, 0, 0, 2, 0]],
      // model × inverse bind, bind = model: identity.
      [M, M_INV, I],
      [M_INV, M, I],
    ];
    const arena = new Arena(coreFor(build));
    try {
      const a = arena.matrices(pairs.flatMap(([x]) => x));
      const b = arena.matrices(pairs.flatMap(([, y]) => y));
      const out = arena.matrices(pairs.length);
      multiplyMatrices(a, b, out);
      // Small integers: exact in f32, fused or not.
      assertEquals(Array.from(out.array), pairs.flatMap(([, , z]) => z));
    } finally {
      arena.free();
    }
  });

  Deno.test(`multiplyMatrices (${build}): count 0 writes nothing`, () => {
    const arena = new Arena(coreFor(build));
    try {
      const out = arena.matrices(new Array(24).fill(SENTINEL));
      multiplyMatrices(arena.matrices(2), arena.matrices(2), out, 0);
      assertEquals(Array.from(out.array), new Array(24).fill(SENTINEL));
    } finally {
      arena.free();
    }
  });
}

// --------------------------------------------------------------- bad input

function setUp(arena: Arena) {
  return {
    a: arena.matrices(sampleOne(matricesArb(affineArb(), 5, 5), 41)),
    b: arena.matrices(sampleOne(matricesArb(affineArb(), 5, 5), 42)),
    out: arena.matrices(new Array(60).fill(SENTINEL)),
  };
}

for (const build of BUILDS) {
  const core = coreFor(build);
  const other = coreFor(build === "scalar" ? "simd" : "scalar");
  const bad = rejections("multiplyMatrices", core, other, setUp);

  bad(
    "a Float32Array as b",
    ({ a, out }) => () => multiplyMatrices(a, wrong(new Float32Array(60)), out),
    TypeError,
    /^multiplyMatrices: b: expected a (MatrixBuffer|buffer of a Marrow core), got Float32Array/,
  );
  bad(
    "a VertexBuffer as out",
    ({ a, b }, arena) => {
      const v = arena.vertices(15);
      return () => multiplyMatrices(a, b, wrong(v), 5);
    },
    TypeError,
    /^multiplyMatrices: out: expected a MatrixBuffer, got VertexBuffer/,
  );
  bad(
    "a number as a",
    ({ b, out }) => () => multiplyMatrices(wrong(16), b, out),
    TypeError,
    /^multiplyMatrices: a: expected a (MatrixBuffer|buffer of a Marrow core), got number/,
  );
  for (const count of [-1, 6, 1.25, NaN]) {
    bad(
      `count ${count}`,
      ({ a, b, out }) => () => multiplyMatrices(a, b, out, count),
      RangeError,
      new RegExp(
        `^multiplyMatrices: count: expected a whole number 0\\.\\.5, got ${count}`,
      ),
    );
  }
  bad(
    "a shorter than out",
    ({ b, out }, arena) => {
      const short = arena.matrices(4);
      return () => multiplyMatrices(short, b, out);
    },
    RangeError,
    /^multiplyMatrices: count: expected a whole number 0\.\.4, got 5/,
  );
  bad(
    "b shorter than count",
    ({ a, out }, arena) => {
      const short = arena.matrices(2);
      return () => multiplyMatrices(a, short, out, 3);
    },
    RangeError,
    /^multiplyMatrices: count: expected a whole number 0\.\.2, got 3/,
  );
  bad(
    "NaN in a",
    ({ a, b, out }) => {
      a.array[4 * 12 + 11] = NaN;
      return () => multiplyMatrices(a, b, out);
    },
    RangeError,
    /^multiplyMatrices: a: matrix 4 element 11 is NaN/,
  );
  bad(
    "Infinity in b",
    ({ a, b, out }) => {
      b.array[0 * 12 + 6] = Infinity;
      return () => multiplyMatrices(a, b, out);
    },
    RangeError,
    /^multiplyMatrices: b: matrix 0 element 6 is Infinity/,
  );
  bad(
    "out of another core",
    ({ a, b }, _, foreign) => {
      const out = foreign.matrices(5);
      return () => multiplyMatrices(a, b, out);
    },
    TypeError,
    /^multiplyMatrices: out: belongs to another core than the other arguments/,
  );
  bad(
    "a of another core",
    ({ b, out }, _, foreign) => {
      const a = foreign.matrices(5);
      return () => multiplyMatrices(a, b, out);
    },
    TypeError,
    /^multiplyMatrices: b: belongs to another core than the other arguments/,
  );
  bad(
    "a freed b",
    ({ a, b, out }) => {
      b.free();
      return () => multiplyMatrices(a, b, out);
    },
    TypeError,
    /^multiplyMatrices: b: the buffer was freed/,
  );

  Deno.test(`multiplyMatrices (${build}) ignores NaN past count and in out`, () => {
    const arena = new Arena(core);
    try {
      const { a, b, out } = setUp(arena);
      a.array[4 * 12] = NaN;
      out.array.fill(NaN);
      const before = {
        a: a.array.slice(),
        b: b.array.slice(),
        out: out.array.slice(),
      };
      multiplyMatrices(a, b, out, 4);
      ref.multiplyMatrices(before.a, before.b, before.out, 4);
      assertClose(
        out.array.subarray(0, 48),
        before.out.subarray(0, 48),
        1e-3,
        build,
        inMatrices,
      );
      assertBitwise(out.array.slice(48), before.out.slice(48), build);
    } finally {
      arena.free();
    }
  });
}
