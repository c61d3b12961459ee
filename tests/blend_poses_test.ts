import "../scalar.ts";
import {
  assertAlmostEquals,
  assertEquals,
  assertGreater,
  assertLess,
  assertThrows,
} from "@std/assert";
import { quat } from "gl-matrix";
import { blendPoses, Core, PoseBuffer, PoseField, poseIndex } from "../kernels.ts";
import * as ref from "../simd/scalar/mod.ts";
import { BUILDS, maxDifference, random, randomQuaternion } from "./_scene.ts";

const get = (pose: Float32Array, j: number) =>
  Array.from({ length: 10 }, (_, f) => pose[poseIndex(j, f as PoseField)]);
const axisAngle = (angle: number) => Array.from(quat.setAxisAngle(quat.create(), [0, 0, 1], angle));

function closeTo(actual: number[], expected: number[], tolerance: number, what: string): void {
  assertLess(maxDifference(actual, expected), tolerance, `${what}: ${actual} vs ${expected}`);
}

for (const build of BUILDS) {
  Deno.test(`blendPoses (${build}): lerp translation and scale, shortest-arc nlerp rotation`, () => {
    const core = Core.create(build);
    const n = 6;
    const a = new PoseBuffer(n, core), b = new PoseBuffer(n, core), out = new PoseBuffer(n, core);
    for (let j = 0; j < n; j++) {
      a.setJoint(j, [j, 0, 1], axisAngle(0.2 * j), [1, 1, 1]);
      // Joint 2's rotation is stored with the opposite sign: the same rotation.
      const q = axisAngle(0.2 * j + 1).map((v) => (j === 2 ? -v : v));
      b.setJoint(j, [0, j, 3], q, [2, 1, 0.5]);
    }
    blendPoses(a, b, out, 0);
    for (let j = 0; j < n; j++) {
      closeTo(get(out.array, j), get(a.array, j), 1e-6, `weight 0, joint ${j}`);
    }
    blendPoses(a, b, out, 0.5);
    for (let j = 0; j < n; j++) {
      const got = get(out.array, j);
      closeTo(got.slice(0, 3), [j / 2, j / 2, 2], 1e-6, "translation");
      closeTo(got.slice(7), [1.5, 1, 0.75], 1e-6, "scale");
      // nlerp is exact at the midpoint of two unit quaternions, and keeps a's hemisphere.
      const expected = axisAngle(0.2 * j + 0.5);
      assertGreater(quat.dot(expected as quat, got.slice(3, 7) as quat), 0);
      closeTo(got.slice(3, 7), expected, 1e-6, `rotation of joint ${j}`);
    }
    // In place, at weight 1: b, up to the sign of its quaternion.
    const want = b.array.slice();
    blendPoses(a, b, a, 1);
    for (let j = 0; j < n; j++) {
      const got = get(a.array, j), expected = get(want, j);
      closeTo(
        [...got.slice(0, 3), ...got.slice(7)],
        [...expected.slice(0, 3), ...expected.slice(7)],
        1e-6,
        "t/s",
      );
      const dot = got.slice(3, 7).reduce((s, x, i) => s + x * expected[3 + i], 0);
      assertAlmostEquals(Math.abs(dot), 1, 1e-6);
    }
  });

  Deno.test(`blendPoses (${build}) equals the reference on random poses`, () => {
    const core = Core.create(build);
    const next = random(7);
    for (const n of [1, 3, 4, 5, 7, 64, 1023]) {
      const a = new PoseBuffer(n, core), b = new PoseBuffer(n, core), out = new PoseBuffer(n, core);
      for (let j = 0; j < n; j++) {
        const q = randomQuaternion(next);
        a.setJoint(j, [next(), next(), next()], q, [next(), next(), next()]);
        // Every fourth joint: exactly opposite rotations, whose blend at 0.5 is zero.
        b.setJoint(
          j,
          [next(), next(), next()],
          j % 4 === 3 ? q.map((v) => -v) : randomQuaternion(next),
          [1, 2, 3],
        );
      }
      for (const weight of [0, 0.5, next(), 1]) {
        const expected = new Float32Array(out.array.length);
        ref.blendPoses(a.array, b.array, expected, n, weight);
        blendPoses(a, b, out, weight);
        assertLess(maxDifference(out.array, expected), 2e-6, `${n} joints, weight ${weight}`);
      }
    }
  });
}

Deno.test("blendPoses rejects bad input and writes nothing", () => {
  const core = Core.create("scalar");
  const a = new PoseBuffer(5, core), b = new PoseBuffer(5, core), out = new PoseBuffer(5, core);
  const before = out.array.slice();
  assertThrows(
    () => blendPoses(a, b, out, 1.5),
    RangeError,
    "blendPoses: weight: expected a number in [0, 1], got 1.5",
  );
  assertThrows(
    () => blendPoses(a, new PoseBuffer(4, core), out, 0.5),
    RangeError,
    "same joint count",
  );
  b.array[poseIndex(4, PoseField.SY)] = NaN;
  assertThrows(() => blendPoses(a, b, out, 0.5), RangeError, "blendPoses: b: joint 4 sy is NaN");
  assertThrows(
    () => blendPoses(a, new PoseBuffer(5, Core.create("scalar")), out, 0.5),
    TypeError,
    "another core",
  );
  assertEquals(out.array, before);
});
