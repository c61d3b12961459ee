/**
 * `matToQuat` on bad input: the right error, and nothing written; matrices
 * past `count` are not read. A new `MatrixBuffer` holds identity matrices.
 */

import "../scalar.ts";
import fc from "fast-check";
import { assertEquals } from "@std/assert";
import { MatrixBuffer, matToQuat, PoseBuffer, poseFloats } from "../kernels.ts";
import * as ref from "../simd/scalar/mod.ts";
import {
  Arena,
  assertClose,
  assertSameRotation,
  BUILDS,
  coreFor,
  EPSILON,
  poseArray,
  readJoint,
  rejections,
  sampleOne,
  wrong,
} from "./_arbitrary.ts";
import { matricesOf, signedTrs } from "./_mat_to_quat.ts";

function setUp(arena: Arena) {
  const joints = sampleOne(
    fc.array(signedTrs, { minLength: 6, maxLength: 6 }),
    11,
  );
  const matrices = arena.matrices(matricesOf(joints));
  const pose = arena.pose(
    new Float32Array(poseFloats(6)).map((_, i) => Math.cos(i)),
    6,
  );
  return { matrices, pose };
}

for (const build of BUILDS) {
  const core = coreFor(build);
  const other = coreFor(build === "scalar" ? "simd" : "scalar");
  const bad = rejections("matToQuat", core, other, setUp);

  bad(
    "a PoseBuffer as the matrices",
    ({ pose }) => () => matToQuat(wrong(pose), pose),
    TypeError,
    /^matToQuat: matrices: expected a MatrixBuffer, got PoseBuffer/,
  );
  bad(
    "a MatrixBuffer as the pose",
    ({ matrices }) => () => matToQuat(matrices, wrong(matrices)),
    TypeError,
    /^matToQuat: pose: expected a PoseBuffer, got MatrixBuffer/,
  );
  bad(
    "an array as the matrices",
    ({ pose }) => () => matToQuat(wrong([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0]), pose, 1),
    TypeError,
    /^matToQuat: matrices: expected a (MatrixBuffer|buffer of a Marrow core), got Array/,
  );
  bad(
    "a missing pose",
    ({ matrices }) => () => matToQuat(matrices, wrong(undefined)),
    TypeError,
    /^matToQuat: pose: expected a PoseBuffer, got undefined/,
  );
  for (const count of [-1, 7, 0.5, NaN]) {
    bad(
      `count ${count}`,
      ({ matrices, pose }) => () => matToQuat(matrices, pose, count),
      RangeError,
      new RegExp(
        `^matToQuat: count: expected a whole number 0\\.\\.6, got ${count}`,
      ),
    );
  }
  bad(
    "a pose shorter than the matrices",
    ({ matrices }, arena) => {
      const short = arena.own(new PoseBuffer(5, arena.core));
      return () => matToQuat(matrices, short);
    },
    RangeError,
    /^matToQuat: count: expected a whole number 0\.\.5, got 6/,
  );
  for (
    const [matrix, element, value] of [
      [0, 0, NaN],
      [2, 7, NaN],
      [5, 11, Infinity],
      [4, 10, -Infinity],
    ] as const
  ) {
    bad(
      `${value} in matrix ${matrix} element ${element}`,
      ({ matrices, pose }) => {
        matrices.array[matrix * 12 + element] = value;
        return () => matToQuat(matrices, pose);
      },
      RangeError,
      new RegExp(
        `^matToQuat: matrices: matrix ${matrix} element ${element} is ${value}`,
      ),
    );
  }
  bad(
    "a pose of another core",
    ({ matrices }, _, foreign) => {
      const pose = foreign.own(new PoseBuffer(6, foreign.core));
      return () => matToQuat(matrices, pose);
    },
    TypeError,
    /^matToQuat: pose: belongs to another core than the other arguments/,
  );
  bad(
    "freed matrices",
    ({ matrices, pose }) => {
      matrices.free();
      return () => matToQuat(matrices, pose);
    },
    TypeError,
    /^matToQuat: matrices: the buffer was freed/,
  );
  bad(
    "a freed pose",
    ({ matrices, pose }) => {
      pose.free();
      return () => matToQuat(matrices, pose);
    },
    TypeError,
    /^matToQuat: pose: the buffer was freed/,
  );

  Deno.test(`matToQuat (${build}) does not read matrices past count`, () => {
    const arena = new Arena(core);
    try {
      const joints = sampleOne(
        fc.array(signedTrs, { minLength: 3, maxLength: 3 }),
        3,
      );
      const data = matricesOf(joints, 2);
      const pose = arena.own(new PoseBuffer(5, core));
      matToQuat(arena.matrices(data), pose, 3);
      // Joint 3 (the group's padding lane) gets the identity, joint 4
      // keeps the identity PoseBuffer starts with.
      const expected = pose.array.slice().fill(NaN);
      ref.matToQuat(data, expected, 3);
      expected.set(
        poseArray([{ t: [0, 0, 0], q: [0, 0, 0, 1], s: [1, 1, 1] }]).subarray(
          0,
          40,
        ),
        40,
      );
      for (let j = 0; j < 5; j++) {
        const a = readJoint(pose.array, j), e = readJoint(expected, j);
        assertEquals(a.t, e.t);
        assertClose(a.s, e.s, EPSILON * 4, `joint ${j} scale`);
        assertSameRotation(a.q, e.q, EPSILON, `joint ${j}`);
      }
    } finally {
      arena.free();
    }
  });
}

Deno.test("MatrixBuffer: a new buffer holds identity matrices", () => {
  const m = new MatrixBuffer(2, coreFor("scalar"));
  try {
    assertEquals(Array.from(m.array), [
      1,
      0,
      0,
      0,
      0,
      1,
      0,
      0,
      0,
      0,
      1,
      0,
      1,
      0,
      0,
      0,
      0,
      1,
      0,
      0,
      0,
      0,
      1,
      0,
    ]);
  } finally {
    m.free();
  }
});
