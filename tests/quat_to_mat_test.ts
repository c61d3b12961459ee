/**
 * `quatToMat`: joint poses (SoA×4 TRS) to 3x4 joint matrices, `T * R * S`.
 *
 * 1. Every build equals the scalar reference (`simd/scalar/mod.ts`) on random
 *    poses, the translation column bit for bit, and writes exactly `count`
 *    matrices (the padding lanes and the joints past `count` hold NaN).
 * 2. The reference equals gl-matrix's `mat4.fromRotationTranslationScale`.
 * 3. Known values worked by hand.
 * 4. Bad input: `quat_to_mat_bad_input_test.ts`.
 *
 * The scalar build runs the reference's own functions, so its bitwise check
 * in 1 finds only bugs of its wrapper (arguments, offsets, counts, what it
 * writes); the arithmetic it shares with the reference is checked by 2,
 * against an independent implementation.
 */

import "../scalar.ts";
import fc from "fast-check";
import { mat4 } from "gl-matrix";
import { assertEquals, assertStrictEquals } from "@std/assert";
import { type CoreBuild, PoseBuffer, quatToMat } from "../kernels.ts";
import * as ref from "../simd/scalar/mod.ts";
import {
  acrossBuilds,
  Arena,
  assertBitwise,
  assertClose,
  BUILDS,
  coreFor,
  fcParams,
  fromColumnMajor,
  inMatrices,
  poseArray,
  readJoint,
  sampleOne,
  SIMD_BUILDS,
  tolerance,
  type Trs,
  trsArb,
} from "./_arbitrary.ts";

/** Fills matrices the kernel must not write. */
const SENTINEL = 12345.5;

/**
 * Runs `quatToMat(pose, matrices, count)` on every build (pose of
 * `jointCount` joints, `matrixCount` matrices filled with the sentinel) and
 * checks each against the reference.
 */
function checkAgainstReference(
  joints: readonly Trs[],
  jointCount: number,
  matrixCount: number,
): void {
  const count = joints.length;
  const pose = poseArray(joints, jointCount, NaN);
  const initial = new Float32Array(matrixCount * 12).fill(SENTINEL);
  const expected = initial.slice();
  ref.quatToMat(pose, expected, count);

  const results = acrossBuilds((arena) => {
    const matrices = arena.matrices(initial);
    const input = arena.pose(pose, jointCount);
    arena.writesOnly([matrices], () => quatToMat(input, matrices, count));
    return matrices.array.slice();
  });
  assertBitwise(results.scalar, expected, "scalar build", inMatrices);
  // Rotation and scale within the bound, scaled by the column's scale;
  // translation copied exactly; nothing written past `count`.
  const bound = (i: number) => {
    const joint = Math.floor(i / 12), column = i % 4;
    if (joint >= count || column === 3) return 0;
    return tolerance(Math.abs(readJoint(pose, joint).s[column]));
  };
  for (const build of SIMD_BUILDS) {
    assertClose(results[build], expected, bound, `${build} build`, inMatrices);
  }
}

const posesArb = (maxJoints: number) =>
  fc.array(trsArb({ negativeScale: true }), { maxLength: maxJoints });

Deno.test("quatToMat: every build equals the reference on random poses", () => {
  fc.assert(
    fc.property(
      posesArb(9),
      fc.nat(5),
      fc.nat(5),
      (joints, extraJoints, extraMatrices) => {
        checkAgainstReference(
          joints,
          joints.length + extraJoints,
          joints.length + extraMatrices,
        );
      },
    ),
    fcParams(),
  );
});

Deno.test("quatToMat: every build equals the reference at explicit sizes", () => {
  for (const size of [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 1023]) {
    const joints = sampleOne(
      fc.array(trsArb({ negativeScale: true }), {
        minLength: size,
        maxLength: size,
      }),
      size,
    );
    checkAgainstReference(joints, size, size);
    // Unaligned tails: a pose and matrices longer than `count`.
    checkAgainstReference(joints, size + 3, size + 2);
  }
});

Deno.test("quatToMat: the reference equals gl-matrix fromRotationTranslationScale", () => {
  fc.assert(
    fc.property(
      fc.array(trsArb({ negativeScale: true }), {
        minLength: 1,
        maxLength: 6,
      }),
      (joints) => {
        const pose = poseArray(joints);
        const actual = new Float32Array(joints.length * 12);
        ref.quatToMat(pose, actual, joints.length);
        joints.forEach((_, j) => {
          // The f32 values the kernel saw, in double precision.
          const { t, q, s } = readJoint(pose, j);
          const expected = fromColumnMajor(
            mat4.fromRotationTranslationScale(
              new Float64Array(16) as unknown as mat4,
              q,
              t,
              s,
            ),
          );
          assertClose(
            actual.subarray(j * 12, j * 12 + 12),
            expected,
            (i) => tolerance(Math.abs(s[i % 4] ?? 1)),
            `joint ${j}`,
            inMatrices,
          );
        });
      },
    ),
    fcParams(),
  );
});

// ----------------------------------------------------------- known values

const H = Math.SQRT1_2;

/** Each case: translation, rotation, scale and the matrix worked by hand. */
const KNOWN: { name: string; trs: Trs; matrix: number[] }[] = [
  {
    name: "identity",
    trs: { t: [0, 0, 0], q: [0, 0, 0, 1], s: [1, 1, 1] },
    matrix: [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0],
  },
  {
    name: "identity with w = -1",
    trs: { t: [0, 0, 0], q: [0, 0, 0, -1], s: [1, 1, 1] },
    matrix: [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0],
  },
  {
    // y -> z, z -> -y
    name: "90° about x",
    trs: { t: [0, 0, 0], q: [H, 0, 0, H], s: [1, 1, 1] },
    matrix: [1, 0, 0, 0, 0, 0, -1, 0, 0, 1, 0, 0],
  },
  {
    // z -> x, x -> -z
    name: "90° about y",
    trs: { t: [0, 0, 0], q: [0, H, 0, H], s: [1, 1, 1] },
    matrix: [0, 0, 1, 0, 0, 1, 0, 0, -1, 0, 0, 0],
  },
  {
    // x -> y, y -> -x
    name: "90° about z",
    trs: { t: [0, 0, 0], q: [0, 0, H, H], s: [1, 1, 1] },
    matrix: [0, -1, 0, 0, 1, 0, 0, 0, 0, 0, 1, 0],
  },
  {
    name: "-90° about z",
    trs: { t: [0, 0, 0], q: [0, 0, -H, H], s: [1, 1, 1] },
    matrix: [0, 1, 0, 0, -1, 0, 0, 0, 0, 0, 1, 0],
  },
  {
    name: "180° about x",
    trs: { t: [0, 0, 0], q: [1, 0, 0, 0], s: [1, 1, 1] },
    matrix: [1, 0, 0, 0, 0, -1, 0, 0, 0, 0, -1, 0],
  },
  {
    // 120° about (1, 1, 1): x -> y -> z -> x
    name: "120° about (1, 1, 1)",
    trs: { t: [0, 0, 0], q: [0.5, 0.5, 0.5, 0.5], s: [1, 1, 1] },
    matrix: [0, 0, 1, 0, 1, 0, 0, 0, 0, 1, 0, 0],
  },
  {
    name: "translation (1, 2, 3), 90° about x, scale (2, 3, 4)",
    trs: { t: [1, 2, 3], q: [H, 0, 0, H], s: [2, 3, 4] },
    matrix: [2, 0, 0, 1, 0, 0, -4, 2, 0, 3, 0, 3],
  },
  {
    name: "translation (1, 2, 3), 90° about y, scale (2, 3, 4)",
    trs: { t: [1, 2, 3], q: [0, H, 0, H], s: [2, 3, 4] },
    matrix: [0, 0, 4, 1, 0, 3, 0, 2, -2, 0, 0, 3],
  },
  {
    name: "translation (1, 2, 3), 90° about z, scale (2, 3, 4)",
    trs: { t: [1, 2, 3], q: [0, 0, H, H], s: [2, 3, 4] },
    matrix: [0, -3, 0, 1, 2, 0, 0, 2, 0, 0, 4, 3],
  },
  {
    name: "mirror: scale (-1, 1, 1)",
    trs: { t: [-5, 0, 0.5], q: [0, 0, 0, 1], s: [-1, 1, 1] },
    matrix: [-1, 0, 0, -5, 0, 1, 0, 0, 0, 0, 1, 0.5],
  },
];

for (const build of BUILDS) {
  Deno.test(`quatToMat (${build}): known values`, () => {
    withKnown(build, (actual, index) => {
      const { name, matrix, trs } = KNOWN[index];
      assertClose(
        actual,
        matrix,
        (i) => tolerance(Math.abs(trs.s[i % 4] ?? 1)),
        name,
        inMatrices,
      );
    });
  });

  Deno.test(`quatToMat (${build}): a new pose gives identity matrices`, () => {
    const arena = new Arena(coreFor(build));
    try {
      const pose = arena.own(new PoseBuffer(6, arena.core));
      const matrices = arena.matrices(new Float32Array(72).fill(SENTINEL));
      quatToMat(pose, matrices);
      const identity = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0];
      assertEquals(
        Array.from(matrices.array),
        Array.from({ length: 6 }, () => identity).flat(),
      );
    } finally {
      arena.free();
    }
  });

  Deno.test(`quatToMat (${build}): count 0 writes nothing`, () => {
    const arena = new Arena(coreFor(build));
    try {
      const pose = arena.pose(poseArray([], 4, NaN), 4);
      const matrices = arena.matrices(new Float32Array(48).fill(SENTINEL));
      quatToMat(pose, matrices, 0);
      assertEquals(Array.from(matrices.array), new Array(48).fill(SENTINEL));
    } finally {
      arena.free();
    }
  });

  Deno.test(`quatToMat (${build}): joint 1 of setJoint lands in matrix 1`, () => {
    const arena = new Arena(coreFor(build));
    try {
      const pose = arena.own(new PoseBuffer(3, arena.core));
      pose.setJoint(1, [0, 1, 0], [0, 0, 0, 1], [1, 1, 1]);
      const matrices = arena.matrices(3);
      quatToMat(pose, matrices);
      assertStrictEquals(matrices.array[12 + 7], 1);
      assertStrictEquals(matrices.array[7], 0);
      assertStrictEquals(matrices.array[24 + 7], 0);
    } finally {
      arena.free();
    }
  });
}

/** Runs every known case (as one pose) on `build`. */
function withKnown(
  build: CoreBuild,
  check: (actual: Float32Array, index: number) => void,
): void {
  const arena = new Arena(coreFor(build));
  try {
    const pose = arena.pose(
      poseArray(KNOWN.map((k) => k.trs)),
      KNOWN.length,
    );
    const matrices = arena.matrices(KNOWN.length);
    quatToMat(pose, matrices);
    const all = matrices.array.slice();
    KNOWN.forEach((_, i) => check(all.subarray(i * 12, i * 12 + 12), i));
  } finally {
    arena.free();
  }
}
