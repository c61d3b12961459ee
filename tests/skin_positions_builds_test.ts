/**
 * `skinPositions`: every build equals the scalar reference on random skins
 * (1..6 influences per vertex, any cap), including the bases the
 * `WeightedBases` constructor builds; w is exactly 1 and vertices past the
 * skin are not written.
 *
 * The scalar build runs the reference's own functions, so its bitwise check
 * here finds only bugs of its wrapper (arguments, offsets, counts, what it
 * writes); the arithmetic it shares with the reference is checked against
 * three.js in `skin_positions_three_test.ts`.
 */

import { coreMemory } from "../simd/memory/_instance.ts";
import fc from "fast-check";
import { skinPositions, VERTEX_FLOATS } from "../kernels.ts";
import {
  acrossBuilds,
  affineArb,
  assertBitwise,
  assertClose,
  BUILDS,
  fcParams,
  flattenInfluences,
  inVertices,
  matricesArb,
  positionsArb,
  sampleOne,
  SIMD_BUILDS,
  vertexInfluencesArb,
} from "./_arbitrary.ts";
import { bounds, type Case, reference, SENTINEL } from "./_skin_positions.ts";

function checkAgainstReference(c: Case): void {
  const expected = reference(c);
  const vertexCount = c.influences.counts.length;
  const initial = new Float32Array((vertexCount + c.extraOut) * VERTEX_FLOATS)
    .fill(SENTINEL);
  const results = acrossBuilds((arena) => {
    const bases = arena.bases(c.positions, c.inverseBind, c.influences);
    const out = arena.vertices(initial);
    const model = arena.matrices(c.model);
    const options = c.cap === undefined ? undefined : { maxInfluences: c.cap };
    arena.writesOnly([out], () => skinPositions(model, bases, out, options));
    const f32 = coreMemory(arena.core).views().f32;
    const b = bases.byteOffset >> 2;
    return {
      out: out.array.slice(),
      bases: f32.slice(b, b + c.influences.joints.length * 4),
    };
  });
  const limits = bounds(c, expected.bases, expected.out.length);
  for (const build of BUILDS) {
    // The constructor computes the bases in TypeScript for every build.
    assertBitwise(
      results[build].bases,
      expected.bases,
      `${build} build: bases`,
    );
  }
  assertBitwise(results.scalar.out, expected.out, "scalar build", inVertices);
  for (const build of SIMD_BUILDS) {
    assertClose(
      results[build].out,
      expected.out,
      limits,
      `${build} build`,
      inVertices,
    );
  }
}

function caseArb(options: {
  minJoints?: number;
  maxJoints: number;
  minVertices?: number;
  maxVertices: number;
  maxPer: number;
}): fc.Arbitrary<Case> {
  return fc.record({
    jointCount: fc.integer({
      min: options.minJoints ?? 1,
      max: options.maxJoints,
    }),
    vertexCount: fc.integer({
      min: options.minVertices ?? 0,
      max: options.maxVertices,
    }),
    extraModel: fc.nat(2),
    extraOut: fc.nat(2),
    cap: fc.option(fc.integer({ min: 1, max: 6 }), { nil: undefined }),
  }).chain(({ jointCount, vertexCount, extraModel, extraOut, cap }) =>
    fc.record({
      model: matricesArb(
        affineArb(),
        jointCount + extraModel,
        jointCount + extraModel,
      ),
      inverseBind: matricesArb(affineArb(), jointCount, jointCount),
      positions: positionsArb(vertexCount),
      influences: fc.array(vertexInfluencesArb(jointCount, options.maxPer), {
        minLength: vertexCount,
        maxLength: vertexCount,
      }).map(flattenInfluences),
      cap: fc.constant(cap),
      extraOut: fc.constant(extraOut),
    })
  );
}

Deno.test("skinPositions: every build equals the reference on random skins", () => {
  fc.assert(
    fc.property(
      caseArb({ maxJoints: 8, maxVertices: 9, maxPer: 6 }),
      checkAgainstReference,
    ),
    fcParams(),
  );
});

Deno.test("skinPositions: every build equals the reference at explicit sizes", () => {
  for (const size of [0, 1, 2, 3, 4, 5, 7, 8, 1023]) {
    for (const maxPer of [1, 2, 3, 4, 8]) {
      const c = sampleOne(
        caseArb({
          maxJoints: 40,
          minVertices: size,
          maxVertices: size,
          maxPer,
        }),
        size * 16 + maxPer,
      );
      for (const cap of [undefined, 1, 2, 3, 4]) {
        checkAgainstReference({ ...c, cap, extraOut: 3 });
      }
    }
  }
});

Deno.test("skinPositions: every build equals the reference with joints past 255", () => {
  // Joint indices use both bytes of their u16.
  for (const size of [5, 1023]) {
    for (const maxPer of [1, 2, 3, 4, 6]) {
      const c = sampleOne(
        caseArb({
          minJoints: 1500,
          maxJoints: 1500,
          minVertices: size,
          maxVertices: size,
          maxPer,
        }),
        size + maxPer,
      );
      for (const cap of [undefined, 2]) {
        checkAgainstReference({ ...c, cap, extraOut: 0 });
      }
    }
  }
});
