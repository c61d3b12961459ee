/**
 * `skinPositions` (and the `WeightedBases` it reads): positions-only
 * skinning from weighted base vectors, `p' = sum model[j] * b` with
 * `b = (w * inverseBind[j] * p, w)`, over the first `maxInfluences`
 * influences (renormalized when the cap drops some).
 *
 * 1. Every build equals the scalar reference on random skins (1..6
 *    influences per vertex, any cap), including the bases the constructor
 *    builds; w is exactly 1 and vertices past the skin are not written.
 * 2. The reference equals three.js `SkinnedMesh.applyBoneTransform` (same
 *    bones, inverse bind matrices and weights, identity bind matrix), caps
 *    included (weights renormalized on the three.js side).
 * 3. Known values worked by hand, caps 1 and 2, bind pose = rest.
 * 4. Bad input (WeightedBases included): the right error, nothing written.
 *
 * The scalar build runs the reference's own functions, so its bitwise check
 * in 1 finds only bugs of its wrapper (arguments, offsets, counts, what it
 * writes); the arithmetic it shares with the reference is checked by 2,
 * against an independent implementation.
 */

import { coreMemory } from "../simd/_instance.ts";
import fc from "fast-check";
import * as THREE from "three";
import { assertEquals } from "@std/assert";
import {
  type InfluenceLists,
  MATRIX_FLOATS,
  skinPositions,
  VERTEX_FLOATS,
  WeightedBases,
} from "../kernels.ts";
import * as ref from "../simd/reference.ts";
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
  flattenInfluences,
  fromColumnMajor,
  type Influences,
  inVertices,
  matricesArb,
  positionsArb,
  rejections,
  sampleOne,
  SIMD_BUILDS,
  toColumnMajor,
  tolerance,
  vertexInfluencesArb,
  wrong,
} from "./_arbitrary.ts";

/** Fills vertices the kernel must not write. */
const SENTINEL = 12345.5;

interface Case {
  /** Model matrices (at least the joints used). */
  model: Float32Array;
  /** Inverse bind matrices, one per joint. */
  inverseBind: Float32Array;
  positions: Float32Array;
  influences: Influences;
  /** `options.maxInfluences`, or undefined for all. */
  cap: number | undefined;
  /** Extra vertices of the output buffer. */
  extraOut: number;
}

/** The reference's bases and skinned positions. */
function reference(c: Case): { bases: Float32Array; out: Float32Array } {
  const { counts, joints, weights } = c.influences;
  const vertexCount = counts.length;
  const bases = new Float32Array(joints.length * 4);
  const j16 = Uint16Array.from(joints), n8 = Uint8Array.from(counts);
  ref.weightedBases(
    c.positions,
    c.inverseBind,
    j16,
    weights,
    n8,
    vertexCount,
    bases,
  );
  const out = new Float32Array((vertexCount + c.extraOut) * VERTEX_FLOATS).fill(
    SENTINEL,
  );
  ref.skinPositions(c.model, bases, j16, n8, out, vertexCount, c.cap ?? 255);
  return { bases, out };
}

/**
 * Per output float, the bound: the magnitude of the terms summed,
 * `sum_k sum_c |model[j_k][r][c]| |b_k[c]|`, over the used weight sum
 * when capped; 0 (exact) for w and the vertices past the skin.
 */
function bounds(c: Case, bases: Float32Array, length: number): Float64Array {
  const { counts, joints } = c.influences;
  const out = new Float64Array(length);
  let k = 0;
  counts.forEach((n, v) => {
    const used = Math.min(n, c.cap ?? 255);
    let wsum = 0;
    for (let r = 0; r < 3; r++) {
      let sum = 0;
      for (let i = 0; i < used; i++) {
        const m = joints[k + i] * MATRIX_FLOATS + r * 4;
        for (let e = 0; e < 4; e++) {
          sum += Math.abs(c.model[m + e]) * Math.abs(bases[(k + i) * 4 + e]);
        }
        if (r === 0) wsum += bases[(k + i) * 4 + 3];
      }
      out[v * 4 + r] = tolerance(used < n ? sum / wsum : sum);
    }
    k += n;
  });
  return out;
}

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

// ------------------------------------------------------------- three.js

/** three.js skinning of every vertex (at most 4 influences each). */
function threeSkin(
  model: Float32Array,
  inverseBind: Float32Array,
  positions: Float32Array,
  influences: readonly { joints: number[]; weights: number[] }[],
): Float64Array {
  const jointCount = inverseBind.length / MATRIX_FLOATS;
  const bones = Array.from({ length: jointCount }, (_, j) => {
    const bone = new THREE.Bone();
    bone.matrixWorld.fromArray(toColumnMajor(model, j));
    return bone;
  });
  const boneInverses = Array.from(
    { length: jointCount },
    (_, j) => new THREE.Matrix4().fromArray(toColumnMajor(inverseBind, j)),
  );
  const skeleton = new THREE.Skeleton(bones, boneInverses);
  const n = influences.length;
  const geometry = new THREE.BufferGeometry();
  const xyz = new Float32Array(n * 3),
    index = new Uint16Array(n * 4),
    weight = new Float32Array(n * 4);
  influences.forEach(({ joints, weights }, v) => {
    xyz.set(positions.subarray(v * 4, v * 4 + 3), v * 3);
    index.set(joints, v * 4);
    weight.set(weights, v * 4);
  });
  geometry.setAttribute("position", new THREE.BufferAttribute(xyz, 3));
  geometry.setAttribute("skinIndex", new THREE.Uint16BufferAttribute(index, 4));
  geometry.setAttribute(
    "skinWeight",
    new THREE.Float32BufferAttribute(weight, 4),
  );
  const mesh = new THREE.SkinnedMesh(geometry);
  mesh.bind(skeleton, new THREE.Matrix4());
  const out = new Float64Array(n * 4);
  const p = new THREE.Vector3();
  for (let v = 0; v < n; v++) {
    p.fromBufferAttribute(
      geometry.getAttribute("position") as THREE.BufferAttribute,
      v,
    );
    mesh.applyBoneTransform(v, p);
    out.set([p.x, p.y, p.z, 1], v * 4);
  }
  return out;
}

Deno.test("skinPositions: the reference equals three.js applyBoneTransform", () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 1, max: 8 }).chain((jointCount) =>
        fc.integer({ min: 1, max: 6 }).chain((vertexCount) =>
          fc.record({
            model: matricesArb(affineArb(), jointCount, jointCount),
            inverseBind: matricesArb(affineArb(), jointCount, jointCount),
            positions: positionsArb(vertexCount),
            influences: fc.array(vertexInfluencesArb(jointCount, 4), {
              minLength: vertexCount,
              maxLength: vertexCount,
            }),
            cap: fc.integer({ min: 1, max: 4 }),
          })
        )
      ),
      ({ model, inverseBind, positions, influences, cap }) => {
        const c: Case = {
          model,
          inverseBind,
          positions,
          influences: flattenInfluences(influences),
          cap,
          extraOut: 0,
        };
        const { out, bases } = reference(c);
        // three.js takes the weights as given: cap and renormalize them.
        const capped = influences.map(({ joints, weights }) => {
          const used = weights.slice(0, cap);
          const sum = used.reduce((a, b) => a + b, 0);
          return {
            joints: joints.slice(0, cap),
            weights: used.length < weights.length ? used.map((w) => w / sum) : used,
          };
        });
        const expected = threeSkin(model, inverseBind, positions, capped);
        assertClose(
          out,
          expected,
          bounds(c, bases, out.length),
          "three.js",
          inVertices,
        );
      },
    ),
    fcParams(),
  );
});

// ----------------------------------------------------------- known values

/** T(x, y, z). */
const T = (
  x: number,
  y: number,
  z: number,
) => [1, 0, 0, x, 0, 1, 0, y, 0, 0, 1, z];
const I = T(0, 0, 0);

for (const build of BUILDS) {
  const run = (
    model: number[],
    inverseBind: number[],
    positions: number[],
    influences: InfluenceLists,
    maxInfluences?: number,
  ) =>
    withArenaOf(build, (arena) => {
      const out = arena.vertices(
        new Array(positions.length + 4).fill(SENTINEL),
      );
      skinPositions(
        arena.matrices(model),
        arena.bases(positions, inverseBind, influences),
        out,
        { maxInfluences },
      );
      return Array.from(out.array);
    });

  Deno.test(`skinPositions (${build}): known values`, () => {
    // One influence of weight 1: p + (1, 2, 3); w is 1; the extra vertex
    // is untouched.
    assertEquals(
      run(T(1, 2, 3), I, [1, 1, 1, 1], {
        counts: [1],
        joints: [0],
        weights: [1],
      }),
      [2, 3, 4, 1, SENTINEL, SENTINEL, SENTINEL, SENTINEL],
    );
    // Halfway between T(2, 0, 0) and T(0, 4, 0): p + (1, 2, 0).
    const two = { counts: [2], joints: [0, 1], weights: [0.5, 0.5] };
    const model2 = [...T(2, 0, 0), ...T(0, 4, 0)];
    assertEquals(run(model2, [...I, ...I], [1, 1, 1, 1], two).slice(0, 4), [
      2,
      3,
      1,
      1,
    ]);
    // Cap 1: the first influence with weight 1: p + (2, 0, 0).
    assertEquals(run(model2, [...I, ...I], [1, 1, 1, 1], two, 1).slice(0, 4), [
      3,
      1,
      1,
      1,
    ]);
    // The inverse bind matrix applies first: inverseBind = T(-1, 0, 0)
    // then model T(0, 0, 5): p + (-1, 0, 5).
    assertEquals(
      run(T(0, 0, 5), T(-1, 0, 0), [1, 1, 1, 1], {
        counts: [1],
        joints: [0],
        weights: [1],
      }).slice(0, 4),
      [0, 1, 6, 1],
    );
  });

  Deno.test(`skinPositions (${build}): cap 2 renormalizes the first two weights`, () => {
    const model = [...T(4, 0, 0), ...T(0, 4, 0), ...T(0, 0, 4)];
    const three = {
      counts: [3],
      joints: [0, 1, 2],
      weights: [0.5, 0.25, 0.25],
    };
    const ib = [...I, ...I, ...I];
    // All: 0.5 (4,0,0) + 0.25 (0,4,0) + 0.25 (0,0,4) = (2, 1, 1).
    assertClose(
      run(model, ib, [0, 0, 0, 1], three).slice(0, 4),
      [2, 1, 1, 1],
      EPSILON,
      "all",
    );
    // Cap 2: ((2, 0, 0) + (0, 1, 0)) / 0.75 = (8/3, 4/3, 0).
    assertClose(
      run(model, ib, [0, 0, 0, 1], three, 2).slice(0, 4),
      [8 / 3, 4 / 3, 0, 1],
      EPSILON,
      "cap 2",
    );
    // Cap 1: the heaviest joint alone: (4, 0, 0).
    assertClose(
      run(model, ib, [0, 0, 0, 1], three, 1).slice(0, 4),
      [4, 0, 0, 1],
      EPSILON,
      "cap 1",
    );
    // A cap at or above the count changes nothing.
    assertClose(
      run(model, ib, [0, 0, 0, 1], three, 3).slice(0, 4),
      [2, 1, 1, 1],
      EPSILON,
      "cap 3",
    );
  });

  Deno.test(`skinPositions (${build}): the bind pose gives back the bind positions`, () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 6 }).chain((jointCount) =>
          fc.record({
            bind: matricesArb(affineArb(), jointCount, jointCount),
            positions: positionsArb(4),
            influences: fc.array(vertexInfluencesArb(jointCount, 6), {
              minLength: 4,
              maxLength: 4,
            }),
          })
        ),
        ({ bind, positions, influences }) => {
          // inverseBind[j] = inverse(bind[j]) (three.js, rounded to f32);
          // model = bind.
          const inverseBind = new Float32Array(bind.length);
          for (let j = 0; j < bind.length / 12; j++) {
            const inverse = new THREE.Matrix4().fromArray(
              toColumnMajor(bind, j),
            ).invert();
            inverseBind.set(fromColumnMajor(inverse.elements), j * 12);
          }
          const out = run(
            Array.from(bind),
            Array.from(inverseBind),
            Array.from(positions),
            flattenInfluences(influences),
          );
          // Positions in [-2, 2] through matrices of condition <= 4.
          assertClose(
            out.slice(0, 16),
            positions,
            1e-4,
            "bind pose",
            inVertices,
          );
        },
      ),
      fcParams(100),
    );
  });
}

function withArenaOf<T>(
  build: (typeof BUILDS)[number],
  run: (arena: Arena) => T,
): T {
  const arena = new Arena(coreFor(build));
  try {
    return run(arena);
  } finally {
    arena.free();
  }
}

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
