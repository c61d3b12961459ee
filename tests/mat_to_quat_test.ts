/**
 * `matToQuat`: 3x4 joint matrices to joint poses (translation, Shoemake's
 * quaternion, scale from the column lengths).
 *
 * 1. Every build equals the scalar reference on random TRS matrices
 *    (negative scales included): translation bit for bit, scale within the
 *    bound, quaternions up to sign; the last group's other lanes get the
 *    identity exactly and later groups are not written.
 * 2. The reference equals gl-matrix (`getTranslation`, `getScaling`,
 *    `getRotation`) for positive scales and three.js (`Matrix4.decompose`)
 *    for negative ones.
 * 3. Known values, mat→quat→mat and pose→mat→pose round trips.
 * 4. Bad input: `mat_to_quat_bad_input_test.ts`.
 *
 * The scalar build runs the reference's own functions, so its bitwise check
 * in 1 finds only bugs of its wrapper (arguments, offsets, counts, what it
 * writes); the arithmetic it shares with the reference is checked by 2,
 * against an independent implementation.
 */

import "../scalar.ts";
import fc from "fast-check";
import { mat4 } from "gl-matrix";
import * as THREE from "three";
import { assertEquals } from "@std/assert";
import { matToQuat, PoseBuffer, poseFloats, quatToMat } from "../kernels.ts";
import * as ref from "../simd/scalar/mod.ts";
import {
  acrossBuilds,
  Arena,
  assertBitwise,
  assertClose,
  assertSameRotation,
  BUILDS,
  coreFor,
  EPSILON,
  fcParams,
  inMatrices,
  inPose,
  poseArray,
  readJoint,
  sampleOne,
  SIMD_BUILDS,
  toColumnMajor,
  tolerance,
  type Trs,
  trsArb,
  trsMatrix,
} from "./_arbitrary.ts";
import { matricesOf, signedTrs } from "./_mat_to_quat.ts";

/** Fills pose groups the kernel must not write. */
const SENTINEL = 12345.5;

/**
 * Runs `matToQuat(matrices, pose, count)` on every build, `count` being the
 * number of `matrices` that are finite (the rest are NaN and must not be
 * read), and checks each build against the reference.
 */
function checkAgainstReference(
  matrices: Float32Array,
  count: number,
  jointCount: number,
): void {
  const initial = new Float32Array(poseFloats(jointCount)).fill(SENTINEL);
  const expected = initial.slice();
  ref.matToQuat(matrices, expected, count);
  // The wrapper leaves joints from `count` on alone; the kernel (and the
  // reference) set the whole last group, so only its padding lanes change.
  for (let j = count; j < Math.min(jointCount, Math.ceil(count / 4) * 4); j++) {
    for (let f = 0; f < 10; f++) {
      const i = (j >> 2) * 40 + f * 4 + (j & 3);
      expected[i] = initial[i];
    }
  }

  const results = acrossBuilds((arena) => {
    const pose = arena.pose(initial, jointCount);
    const input = arena.matrices(matrices);
    arena.writesOnly([pose], () => matToQuat(input, pose, count));
    return pose.array.slice();
  });
  assertBitwise(results.scalar, expected, "scalar build", inPose);
  for (const build of SIMD_BUILDS) {
    const actual = results[build];
    const what = `${build} build`;
    for (let j = 0; j < count; j++) {
      const a = readJoint(actual, j), e = readJoint(expected, j);
      assertEquals(a.t, e.t, `${what}: joint ${j} translation`);
      assertClose(
        a.s,
        e.s,
        (i) => tolerance(Math.abs(e.s[i])),
        `${what}: joint ${j} scale`,
      );
      assertSameRotation(a.q, e.q, EPSILON, `${what}: joint ${j}`);
    }
    // Lanes past `count`: untouched joints, identity in the padding lanes
    // of the last written group, both exactly.
    const written = Math.ceil(count / 4) * 4;
    const rest = (i: number) => {
      const joint = Math.floor(i / 40) * 4 + (i % 4);
      return joint < count ? Infinity : 0;
    };
    assertClose(actual, expected, rest, what, inPose);
    if (written > count && written > jointCount) {
      assertEquals(
        readJoint(actual, written - 1),
        { t: [0, 0, 0], q: [0, 0, 0, 1], s: [1, 1, 1] },
        `${what}: padding lane`,
      );
    }
  }
}

Deno.test("matToQuat: every build equals the reference on random matrices", () => {
  fc.assert(
    fc.property(
      fc.array(signedTrs, { maxLength: 9 }),
      fc.nat(3),
      fc.nat(6),
      (joints, extraMatrices, extraJoints) => {
        checkAgainstReference(
          matricesOf(joints, extraMatrices),
          joints.length,
          joints.length + extraJoints,
        );
      },
    ),
    fcParams(),
  );
});

Deno.test("matToQuat: every build equals the reference at explicit sizes", () => {
  for (const size of [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 1023]) {
    const joints = sampleOne(
      fc.array(signedTrs, { minLength: size, maxLength: size }),
      size,
    );
    checkAgainstReference(matricesOf(joints), size, size);
    checkAgainstReference(matricesOf(joints, 2), size, size + 5);
  }
});

Deno.test("matToQuat: every build equals the reference on zero scales", () => {
  // A zero scale column stays zero; the reference's case order decides.
  const cases: Trs[] = [
    { t: [1, 2, 3], q: [0, 0, 0, 1], s: [0, 0, 0] },
    { t: [1, 2, 3], q: [0, 0, 0, 1], s: [0, 1, 1] },
    { t: [0, 0, 0], q: [0.5, 0.5, 0.5, 0.5], s: [2, 0, 3] },
    { t: [0, 0, 0], q: [0, 0, Math.SQRT1_2, Math.SQRT1_2], s: [1, 1, 0] },
    { t: [4, 0, 0], q: [1, 0, 0, 0], s: [0, 0, 5] },
  ];
  checkAgainstReference(matricesOf(cases), cases.length, cases.length);
});

Deno.test("matToQuat: the reference equals gl-matrix for positive scales", () => {
  fc.assert(
    fc.property(trsArb(), (trs) => {
      const m = trsMatrix(trs);
      const pose = new Float32Array(40);
      ref.matToQuat(m, pose, 1);
      const actual = readJoint(pose, 0);
      const m4 = toColumnMajor(m) as unknown as mat4;
      const out3 = new Float64Array(3) as unknown as [number, number, number];
      assertEquals(
        actual.t,
        Array.from(mat4.getTranslation(out3, m4)),
        "translation",
      );
      const scale = Array.from(mat4.getScaling(out3, m4));
      assertClose(actual.s, scale, (i) => tolerance(scale[i]), "scale");
      // gl-matrix 3.4.4's getRotation divides by the wrong axis' scale
      // under non-uniform scale (toji/gl-matrix#501, fixed after 3.4.4):
      // take the scale out with mat4.scale first.
      const unscaled = mat4.scale(
        new Float64Array(16) as unknown as mat4,
        m4,
        scale.map((x) => 1 / x) as [number, number, number],
      );
      const q = new Float64Array(4) as unknown as [
        number,
        number,
        number,
        number,
      ];
      assertSameRotation(
        actual.q,
        Array.from(mat4.getRotation(q, unscaled)),
        EPSILON,
        "rotation",
      );
    }),
    fcParams(),
  );
});

Deno.test("matToQuat: the reference equals three.js decompose for any scale sign", () => {
  const position = new THREE.Vector3();
  const rotation = new THREE.Quaternion();
  const scale = new THREE.Vector3();
  fc.assert(
    fc.property(signedTrs, (trs) => {
      const m = trsMatrix(trs);
      const pose = new Float32Array(40);
      ref.matToQuat(m, pose, 1);
      const actual = readJoint(pose, 0);
      new THREE.Matrix4().fromArray(toColumnMajor(m)).decompose(
        position,
        rotation,
        scale,
      );
      assertEquals(actual.t, position.toArray(), "translation");
      const s = scale.toArray();
      assertClose(actual.s, s, (i) => tolerance(Math.abs(s[i])), "scale");
      assertSameRotation(actual.q, rotation.toArray(), EPSILON, "rotation");
    }),
    fcParams(),
  );
});

// ----------------------------------------------------------- known values

const H = Math.SQRT1_2;

/** Matrices worked by hand and their poses. */
const KNOWN: { name: string; matrix: number[]; pose: Trs }[] = [
  {
    name: "identity",
    matrix: [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0],
    pose: { t: [0, 0, 0], q: [0, 0, 0, 1], s: [1, 1, 1] },
  },
  {
    name: "90° about x",
    matrix: [1, 0, 0, 0, 0, 0, -1, 0, 0, 1, 0, 0],
    pose: { t: [0, 0, 0], q: [H, 0, 0, H], s: [1, 1, 1] },
  },
  {
    name: "90° about y",
    matrix: [0, 0, 1, 0, 0, 1, 0, 0, -1, 0, 0, 0],
    pose: { t: [0, 0, 0], q: [0, H, 0, H], s: [1, 1, 1] },
  },
  {
    name: "90° about z",
    matrix: [0, -1, 0, 0, 1, 0, 0, 0, 0, 0, 1, 0],
    pose: { t: [0, 0, 0], q: [0, 0, H, H], s: [1, 1, 1] },
  },
  {
    // trace -1: the m0-largest case
    name: "180° about x",
    matrix: [1, 0, 0, 0, 0, -1, 0, 0, 0, 0, -1, 0],
    pose: { t: [0, 0, 0], q: [1, 0, 0, 0], s: [1, 1, 1] },
  },
  {
    name: "180° about y",
    matrix: [-1, 0, 0, 0, 0, 1, 0, 0, 0, 0, -1, 0],
    pose: { t: [0, 0, 0], q: [0, 1, 0, 0], s: [1, 1, 1] },
  },
  {
    name: "180° about z",
    matrix: [-1, 0, 0, 0, 0, -1, 0, 0, 0, 0, 1, 0],
    pose: { t: [0, 0, 0], q: [0, 0, 1, 0], s: [1, 1, 1] },
  },
  {
    name: "120° about (1, 1, 1)",
    matrix: [0, 0, 1, 0, 1, 0, 0, 0, 0, 1, 0, 0],
    pose: { t: [0, 0, 0], q: [0.5, 0.5, 0.5, 0.5], s: [1, 1, 1] },
  },
  {
    name: "translation (1, 2, 3), 90° about x, scale (2, 3, 4)",
    matrix: [2, 0, 0, 1, 0, 0, -4, 2, 0, 3, 0, 3],
    pose: { t: [1, 2, 3], q: [H, 0, 0, H], s: [2, 3, 4] },
  },
  {
    name: "translation (1, 2, 3), 90° about z, scale (2, 3, 4)",
    matrix: [0, -3, 0, 1, 2, 0, 0, 2, 0, 0, 4, 3],
    pose: { t: [1, 2, 3], q: [0, 0, H, H], s: [2, 3, 4] },
  },
  {
    // Negative determinant: the x scale takes the sign.
    name: "mirror in x",
    matrix: [-1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0],
    pose: { t: [0, 0, 0], q: [0, 0, 0, 1], s: [-1, 1, 1] },
  },
  {
    // diag(1, -1, 1) = diag(-1, -1, 1) * diag(-1, 1, 1): 180° about z.
    name: "mirror in y",
    matrix: [1, 0, 0, 5, 0, -1, 0, 6, 0, 0, 1, 7],
    pose: { t: [5, 6, 7], q: [0, 0, 1, 0], s: [-1, 1, 1] },
  },
  {
    name: "zero x scale",
    matrix: [0, 0, 0, 1, 0, 1, 0, 2, 0, 0, 1, 3],
    pose: { t: [1, 2, 3], q: [0, 0, 0, 1], s: [0, 1, 1] },
  },
  {
    // Trace 0 is not > 0; m0 >= m5 and m0 >= m10 picks x.
    name: "zero matrix",
    matrix: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
    pose: { t: [0, 0, 0], q: [1, 0, 0, 0], s: [0, 0, 0] },
  },
];

for (const build of BUILDS) {
  Deno.test(`matToQuat (${build}): known values`, () => {
    const arena = new Arena(coreFor(build));
    try {
      const pose = arena.own(new PoseBuffer(KNOWN.length, arena.core));
      matToQuat(arena.matrices(KNOWN.flatMap((k) => k.matrix)), pose);
      KNOWN.forEach(({ name, pose: want }, j) => {
        const got = readJoint(pose.array, j);
        assertEquals(got.t, want.t, `${name}: translation`);
        assertClose(got.s, want.s, EPSILON * 4, `${name}: scale`);
        assertSameRotation(got.q, want.q, EPSILON, name);
      });
    } finally {
      arena.free();
    }
  });

  Deno.test(`matToQuat (${build}): mat→quat→mat round trip`, () => {
    fc.assert(
      fc.property(
        fc.array(signedTrs, { minLength: 1, maxLength: 6 }),
        (joints) => {
          const matrices = matricesOf(joints);
          const arena = new Arena(coreFor(build));
          try {
            const input = arena.matrices(matrices);
            const pose = arena.own(new PoseBuffer(joints.length, arena.core));
            const output = arena.matrices(joints.length);
            matToQuat(input, pose);
            quatToMat(pose, output);
            assertClose(
              output.array,
              matrices,
              (i) => tolerance(Math.abs(joints[Math.floor(i / 12)].s[i % 4] ?? 0)),
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

  Deno.test(`matToQuat (${build}): pose→mat→pose round trip`, () => {
    fc.assert(
      fc.property(
        fc.array(trsArb(), { minLength: 1, maxLength: 6 }),
        (joints) => {
          const arena = new Arena(coreFor(build));
          try {
            const input = poseArray(joints, joints.length, 0);
            const pose = arena.pose(input, joints.length);
            const matrices = arena.matrices(joints.length);
            const back = arena.own(new PoseBuffer(joints.length, arena.core));
            quatToMat(pose, matrices);
            matToQuat(matrices, back);
            joints.forEach((_, j) => {
              const a = readJoint(back.array, j), e = readJoint(input, j);
              assertEquals(a.t, e.t, `joint ${j} translation`);
              assertClose(
                a.s,
                e.s,
                (i) => tolerance(e.s[i]),
                `joint ${j} scale`,
              );
              assertSameRotation(a.q, e.q, EPSILON, `joint ${j}`);
            });
          } finally {
            arena.free();
          }
        },
      ),
      fcParams(200),
    );
  });
}
