/**
 * `quatToMat` on bad input: the right error, and nothing written; NaN where
 * the kernel does not read is ignored. `PoseBuffer` and `MatrixBuffer`
 * reject bad sizes and joints.
 */

import "../scalar.ts";
import fc from "fast-check";
import { MatrixBuffer, PoseBuffer, quatToMat } from "../kernels.ts";
import * as ref from "../simd/scalar/mod.ts";
import {
  Arena,
  assertClose,
  assertRejected,
  BUILDS,
  coreFor,
  EPSILON,
  inMatrices,
  poseArray,
  rejections,
  sampleOne,
  trsArb,
  wrong,
} from "./_arbitrary.ts";

/** Fills matrices the kernel must not write. */
const SENTINEL = 12345.5;

/** A pose of 6 random joints and 8 random matrices in `build`'s core. */
function setUp(arena: Arena) {
  const joints = sampleOne(
    fc.array(trsArb(), { minLength: 6, maxLength: 6 }),
    7,
  );
  const pose = arena.pose(poseArray(joints, 6, 0), 6);
  const matrices = arena.matrices(
    new Float32Array(96).map((_, i) => Math.sin(i) * 3),
  );
  return { pose, matrices };
}

for (const build of BUILDS) {
  const core = coreFor(build);
  const other = coreFor(build === "scalar" ? "simd" : "scalar");
  /**
   * `prepare` may write and allocate (in `arena`, or in `foreign` of
   * another core); the call it returns must throw and write nothing.
   */
  const bad = rejections("quatToMat", core, other, setUp);

  // Wrong argument types.
  bad(
    "a MatrixBuffer as the pose",
    ({ matrices }) => () => quatToMat(wrong(matrices), matrices),
    TypeError,
    /^quatToMat: pose: expected a PoseBuffer, got MatrixBuffer/,
  );
  bad(
    "a PoseBuffer as the matrices",
    ({ pose }) => () => quatToMat(pose, wrong(pose)),
    TypeError,
    /^quatToMat: matrices: expected a MatrixBuffer, got PoseBuffer/,
  );
  bad(
    "a Float32Array as the pose",
    ({ matrices }) => () => quatToMat(wrong(new Float32Array(40)), matrices, 1),
    TypeError,
    /^quatToMat: pose: expected a (PoseBuffer|buffer of a Marrow core), got Float32Array/,
  );
  bad(
    "a forged pose object",
    ({ matrices }) => () =>
      quatToMat(
        wrong({ core, byteOffset: 16, byteLength: 160, jointCount: 4 }),
        matrices,
        1,
      ),
    TypeError,
    /^quatToMat: pose: expected a PoseBuffer, got Object/,
  );
  bad(
    "a missing matrices argument",
    ({ pose }) => () => quatToMat(pose, wrong(undefined)),
    TypeError,
    /^quatToMat: matrices: expected a MatrixBuffer, got undefined/,
  );
  bad(
    "a null pose",
    ({ matrices }) => () => quatToMat(wrong(null), matrices),
    TypeError,
    /^quatToMat: pose\b/,
  );
  bad(
    "a string count",
    ({ pose, matrices }) => () => quatToMat(pose, matrices, wrong("3")),
    RangeError,
    /^quatToMat: count: expected a whole number 0\.\.6, got 3/,
  );

  // Count out of range, short buffers.
  for (const count of [-1, 7, 2.5, NaN, Infinity]) {
    bad(
      `count ${count}`,
      ({ pose, matrices }) => () => quatToMat(pose, matrices, count),
      RangeError,
      new RegExp(
        `^quatToMat: count: expected a whole number 0\\.\\.6, got ${count}`,
      ),
    );
  }
  bad(
    "matrices shorter than the pose",
    ({ pose }, arena) => {
      const short = arena.matrices(5);
      return () => quatToMat(pose, short);
    },
    RangeError,
    /^quatToMat: count: expected a whole number 0\.\.5, got 6/,
  );
  bad(
    "a count past a short pose",
    ({ matrices }, arena) => {
      const short = arena.pose(poseArray([], 2, 0), 2);
      return () => quatToMat(short, matrices, 3);
    },
    RangeError,
    /^quatToMat: count: expected a whole number 0\.\.2, got 3/,
  );

  // Non-finite pose values, in full groups and in the partial last group.
  const fields = ["tx", "ty", "tz", "qx", "qy", "qz", "qw", "sx", "sy", "sz"];
  for (
    const [joint, field, value] of [
      [0, 0, NaN],
      [1, 4, NaN],
      [3, 9, Infinity],
      [2, 6, -Infinity],
      [4, 3, NaN],
      [5, 8, NaN],
      [5, 2, Infinity],
    ] as const
  ) {
    bad(
      `${value} in joint ${joint} ${fields[field]}`,
      ({ pose, matrices }) => {
        pose.array[(joint >> 2) * 40 + field * 4 + (joint & 3)] = value;
        return () => quatToMat(pose, matrices);
      },
      RangeError,
      new RegExp(
        `^quatToMat: pose: joint ${joint} ${fields[field]} is ${value}`,
      ),
    );
  }

  // Buffers from another core, freed buffers.
  bad(
    "matrices of another core",
    ({ pose }, _, foreign) => {
      const matrices = foreign.matrices(6);
      return () => quatToMat(pose, matrices);
    },
    TypeError,
    /^quatToMat: matrices: belongs to another core than the other arguments/,
  );
  bad(
    "a pose of another core",
    ({ matrices }, _, foreign) => {
      const pose = foreign.pose(poseArray([], 6, 0), 6);
      return () => quatToMat(pose, matrices);
    },
    TypeError,
    /^quatToMat: matrices: belongs to another core than the other arguments/,
  );
  bad(
    "a freed pose",
    ({ pose, matrices }) => {
      pose.free();
      return () => quatToMat(pose, matrices);
    },
    TypeError,
    /^quatToMat: pose: the buffer was freed/,
  );
  bad(
    "freed matrices",
    ({ pose, matrices }) => {
      matrices.free();
      return () => quatToMat(pose, matrices);
    },
    TypeError,
    /^quatToMat: matrices: the buffer was freed/,
  );

  Deno.test(`quatToMat (${build}) ignores NaN past count and in padding lanes`, () => {
    const arena = new Arena(core);
    try {
      const joints = sampleOne(
        fc.array(trsArb(), { minLength: 5, maxLength: 5 }),
        5,
      );
      // Joints 5..7 (the last group's other lanes) are NaN.
      const data = poseArray(joints, 8, NaN);
      const pose = arena.pose(data, 8);
      const matrices = arena.matrices(new Float32Array(96).fill(SENTINEL));
      quatToMat(pose, matrices, 5);
      const expected = new Float32Array(96).fill(SENTINEL);
      ref.quatToMat(data, expected, 5);
      assertClose(matrices.array, expected, EPSILON * 4, build, inMatrices);
    } finally {
      arena.free();
    }
  });
}

Deno.test("PoseBuffer and MatrixBuffer reject bad sizes and joints", () => {
  const core = coreFor("scalar");
  for (const n of [-1, 1.5, NaN]) {
    assertRejected(
      core,
      () => new PoseBuffer(n, core),
      RangeError,
      new RegExp(`^jointCount: expected a whole number >= 0, got ${n}`),
    );
    assertRejected(
      core,
      () => new MatrixBuffer(n, core),
      RangeError,
      new RegExp(`^count: expected a whole number >= 0, got ${n}`),
    );
  }
  const pose = new PoseBuffer(3, core);
  try {
    assertRejected(
      core,
      () => pose.setJoint(1, [0, NaN, 0], [0, 0, 0, 1]),
      RangeError,
      /^setJoint: joint 1 ty is NaN/,
    );
    assertRejected(
      core,
      () => pose.setJoint(2, [0, 0, 0], [0, 0, 0, 1], [1, Infinity, 1]),
      RangeError,
      /^setJoint: joint 2 sy is Infinity/,
    );
    assertRejected(
      core,
      () => pose.setJoint(3, [0, 0, 0], [0, 0, 0, 1]),
      RangeError,
      /^joint: expected 0\.\.2, got 3/,
    );
    assertRejected(
      core,
      () => pose.setJoint(0, [0, 0], [0, 0, 0, 1]),
      RangeError,
      /^setJoint: joint 0: translation: expected 3 values, got 2/,
    );
  } finally {
    pose.free();
  }
});
