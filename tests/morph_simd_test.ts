/**
 * The core's morph kernel (`morphVertices`, through `MorphTargetBuffer.morph`)
 * on every build against its scalar twin (`simd/scalar/morph.ts`) on plain
 * arrays, bit for bit: the kernel multiplies then adds (no fused
 * multiply-add, even on the relaxed build), so each step rounds as the twin
 * does. Random streams of dense ranges and sparse vertex lists, zero and
 * negative weights, -0 in the fourth lane (kept as is), and values near
 * ±1e18 that hit the clamp. Then the checks a call passes before the
 * kernel runs, each of which must throw and write nothing.
 */

import "../scalar.ts";
import { assert, assertEquals, assertThrows } from "@std/assert";
import fc from "fast-check";
import { type Core, type CoreBuild, SkinMesh, VertexBuffer } from "../kernels.ts";
import { MorphTargetBuffer } from "../simd/memory/internal.ts";
import { type MorphTargetStream, morphVertices } from "../simd/scalar/morph.ts";
import { BUILDS, coreFor } from "./_arena.ts";
import { fcParams } from "./_arbitrary_numbers.ts";

/** A float of the bind streams: small, huge (near the 1e18 clamp), or a signed zero. */
const value = fc.oneof(
  { weight: 6, arbitrary: fc.float({ min: -4, max: 4, noNaN: true }) },
  {
    weight: 2,
    arbitrary: fc.float({ min: Math.fround(-9.9e17), max: Math.fround(9.9e17), noNaN: true }),
  },
  { weight: 1, arbitrary: fc.constantFrom(0, -0, 9.9e17, -9.9e17) },
);

/** A weight: often 0, small, or huge (within the kernel's ±1e18). */
const weight = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(0, -0) },
  { weight: 6, arbitrary: fc.float({ min: -2, max: 2, noNaN: true }) },
  { weight: 1, arbitrary: fc.float({ min: -1e6, max: 1e6, noNaN: true }) },
  { weight: 1, arbitrary: fc.constantFrom(1e18, -1e18, 3e-39) },
);

/** One target stream of a skin of `n` vertices: none, a range or a vertex list. */
const targetStream = (n: number, dense: { first: number; count: number }) =>
  fc.oneof(
    fc.constant(undefined),
    // The mesh's range, so that runs of targets over one range come often.
    { weight: 3, arbitrary: fc.constant({ ...dense, indices: undefined as number[] | undefined }) },
    fc.nat(n - 1).chain((first) =>
      fc.nat(n - first).map((count) => ({
        first,
        count,
        indices: undefined as number[] | undefined,
      }))
    ),
    fc.uniqueArray(fc.nat(n - 1), { maxLength: n }).map((list) => ({
      first: 0,
      count: list.length,
      indices: list.sort((a, b) => a - b) as number[] | undefined,
    })),
  ).chain((shape) =>
    shape === undefined
      ? fc.constant(undefined)
      : fc.array(value, { minLength: shape.count * 4, maxLength: shape.count * 4 }).map(
        (deltas): MorphTargetStream => ({
          first: shape.first,
          count: shape.count,
          indices: shape.indices && Uint32Array.from(shape.indices),
          deltas: Float32Array.from(deltas),
        }),
      )
  );

const morphCase = fc.integer({ min: 1, max: 24 }).chain((n) =>
  fc.record({
    targets: fc.integer({ min: 0, max: 11 }),
    first: fc.nat(n - 1),
  }).chain(({ targets, first }) =>
    fc.record({
      n: fc.constant(n),
      streams: fc.array(
        fc.array(targetStream(n, { first, count: n - first }), {
          minLength: targets,
          maxLength: targets,
        }),
        {
          minLength: 3,
          maxLength: 3,
        },
      ),
      bases: fc.array(fc.array(value, { minLength: n * 4, maxLength: n * 4 }), {
        minLength: 3,
        maxLength: 3,
      }),
      weights: fc.array(weight, { minLength: targets, maxLength: targets }),
    })
  )
);

/** A one-influence mesh of the bases (positions, normals, tangents) in `core`. */
function meshOf(core: Core, n: number, bases: number[][]): SkinMesh {
  return new SkinMesh({
    parts: [1, n],
    joints: new Uint16Array(n),
    weights: new Float32Array(n).fill(1),
    positions: Float32Array.from(bases[0]),
    normals: Float32Array.from(bases[1]),
    tangents: Float32Array.from(bases[2]),
  }, core);
}

const bitsOf = (a: Float32Array) => new Uint32Array(a.buffer, a.byteOffset, a.length);

/**
 * The longest run of active targets of `targets` over one range (the
 * kernel applies up to four such in one pass), so that a test can see the
 * runs were drawn.
 */
function longestRun(
  targets: readonly (MorphTargetStream | undefined)[],
  weights: number[],
): number {
  let longest = 0, run = 0, last: MorphTargetStream | undefined;
  targets.forEach((t, i) => {
    if (t === undefined || weights[i] === 0 || t.count === 0) return;
    const same = last !== undefined && !t.indices && !last.indices && t.first === last.first &&
      t.count === last.count;
    run = same ? run + 1 : t.indices ? 0 : 1;
    last = t;
    longest = Math.max(longest, run);
  });
  return longest;
}

for (const build of BUILDS) {
  Deno.test(`morph kernel (${build}): every stream is the scalar twin's, bit for bit`, () => {
    const core = coreFor(build);
    const runs = [0, 0, 0, 0, 0, 0];
    fc.assert(
      fc.property(morphCase, ({ n, streams, bases, weights }) => {
        const mesh = meshOf(core, n, bases);
        const targets = new MorphTargetBuffer(core, n, streams);
        const out = new VertexBuffer(n * 3, core);
        try {
          const w = Float32Array.from(weights);
          for (let s = 0; s < 3; s++) {
            // Garbage first: the kernel writes every float of its output.
            out.array.fill(NaN);
            const at = out.byteOffset + s * n * 16;
            targets.morph(s, mesh, at, out.byteOffset, w);
            const got = out.array.slice(s * n * 4, (s + 1) * n * 4);
            runs[Math.min(5, longestRun(streams[s], weights))]++;
            const expected = new Float32Array(n * 4);
            morphVertices(Float32Array.from(bases[s]), expected, n, streams[s], w);
            const i = bitsOf(got).findIndex((word, k) => word !== bitsOf(expected)[k]);
            assert(i < 0, `stream ${s} float ${i}: ${got[i]} != ${expected[i]} (n ${n})`);
            for (const v of got) assert(Math.abs(v) <= 1e18, `${v} beyond the clamp`);
          }
        } finally {
          out.free();
          targets.free();
          mesh.free();
        }
      }),
      fcParams(build === "scalar" ? 150 : 400),
    );
    // Runs of two, three, four and more than four targets over one range came.
    assert(runs.slice(2).every((count) => count > 0), `runs drawn: ${runs}`);
  });
}

Deno.test("morph kernel: the clamp is reached and the fourth lane kept on every build", () => {
  for (const build of BUILDS) {
    const core = coreFor(build);
    const base = [9e17, -9e17, 1, -0, 5, 5, 5, 0];
    const mesh = meshOf(core, 2, [base, base, base]);
    const delta = Float32Array.of(9e17, -9e17, 0, 7, 9e17, 0, 0, 7);
    const targets = new MorphTargetBuffer(core, 2, [[{ first: 0, count: 2, deltas: delta }], [
      undefined,
    ], [undefined]]);
    const out = new VertexBuffer(2, core);
    targets.morph(0, mesh, out.byteOffset, out.byteOffset, Float32Array.of(1e6));
    const got = out.array;
    assertEquals(got[0], Math.fround(1e18), build);
    assertEquals(got[1], -Math.fround(1e18), build);
    assert(Object.is(got[3], -0), `${build}: w lane ${got[3]}`);
    assertEquals(got[4], Math.fround(1e18), build);
    out.free(), targets.free(), mesh.free();
  }
});

/** A skin of 4 vertices with one dense target, its mesh, and a caller's block of one stream. */
function fixture(build: CoreBuild) {
  const core = coreFor(build);
  const base = Array.from({ length: 16 }, (_, i) => i);
  const mesh = meshOf(core, 4, [base, base, base]);
  const targets = new MorphTargetBuffer(core, 4, [
    [{ first: 0, count: 4, deltas: new Float32Array(16).fill(1) }],
    [undefined],
    [{ indices: Uint32Array.of(1, 3), first: 0, count: 2, deltas: new Float32Array(8).fill(1) }],
  ]);
  const out = new VertexBuffer(4, core);
  out.array.fill(-7);
  return { core, mesh, targets, out, weights: Float32Array.of(1) };
}

Deno.test("morph kernel: every pointer and count is checked before the call, nothing written", () => {
  for (const build of BUILDS) {
    const { core, mesh, targets, out, weights } = fixture(build);
    const other = new VertexBuffer(8, core);
    const small = new SkinMesh({
      parts: [1, 3],
      joints: new Uint16Array(3),
      weights: new Float32Array(3).fill(1),
      positions: new Float32Array(12),
    }, core);
    const foreign = meshOf(
      coreFor(build === "scalar" ? "simd" : "scalar"),
      4,
      [[], [], []].map(
        () => Array.from({ length: 16 }, () => 0),
      ),
    );
    const at = out.byteOffset, block = out.byteOffset;
    const bad: [string, () => void][] = [
      ["out past the block", () => targets.morph(0, mesh, at + 16, block, weights)],
      ["out before the block", () => targets.morph(0, mesh, at, other.byteOffset, weights)],
      ["out unaligned", () => targets.morph(0, mesh, at + 4, other.byteOffset, weights)],
      ["block not allocated", () => targets.morph(0, mesh, at, block + 16, weights)],
      [
        "block is the mesh's",
        () => targets.morph(0, mesh, mesh.byteOffset, mesh.byteOffset, weights),
      ],
      [
        "block is the targets'",
        () => targets.morph(0, mesh, targets.byteOffset, targets.byteOffset, weights),
      ],
      ["stream absent from the mesh", () => targets.morph(0, small, at, block, weights)],
      ["stream out of range", () => targets.morph(3, mesh, at, block, weights)],
      ["weights too few", () => targets.morph(0, mesh, at, block, new Float32Array(0))],
      ["weight not finite", () => targets.morph(0, mesh, at, block, Float32Array.of(Infinity))],
      ["weight NaN", () => targets.morph(0, mesh, at, block, Float32Array.of(NaN))],
      ["weight beyond 1e18", () => targets.morph(0, mesh, at, block, Float32Array.of(2e18))],
      ["mesh not a mesh", () => targets.morph(0, {} as SkinMesh, at, block, weights)],
      ["mesh of another core", () => targets.morph(0, foreign, at, block, weights)],
    ];
    for (const [what, call] of bad) {
      assertThrows(call, Error, undefined, `${build}: ${what}`);
      assert(out.array.every((v) => v === -7), `${build}: ${what} wrote`);
      assert(other.array.every((v) => v === 0), `${build}: ${what} wrote past`);
    }
    targets.morph(2, mesh, at, block, weights);
    assertEquals([...out.array.slice(4, 8)], [5, 6, 7, 7], build);
    mesh.free();
    assertThrows(() => targets.morph(0, mesh, at, block, weights), TypeError, "live SkinMesh");
    out.free(), other.free(), small.free(), targets.free(), foreign.free();
  }
});

Deno.test("morph targets: a vertex list or range beyond the skin is refused when built", () => {
  const core = coreFor("scalar");
  const deltas = new Float32Array(8);
  const cases: [string, MorphTargetStream][] = [
    ["indices[1] is 4", { indices: Uint32Array.of(0, 4), first: 0, count: 2, deltas }],
    ["indices[1] is 0", { indices: Uint32Array.of(1, 0), first: 0, count: 2, deltas }],
    ["vertices 3..4 beyond 4", { first: 3, count: 2, deltas }],
    ["deltas[1] is Infinity", { first: 0, count: 1, deltas: Float32Array.of(0, Infinity, 0, 0) }],
    ["count: expected 0..4", { first: 0, count: 5, deltas: new Float32Array(20) }],
  ];
  const before = core.allocatedBytes;
  for (const [message, target] of cases) {
    assertThrows(
      () => new MorphTargetBuffer(core, 4, [[target], [undefined], [undefined]]),
      RangeError,
      message,
    );
  }
  assertEquals(core.allocatedBytes, before);
});
