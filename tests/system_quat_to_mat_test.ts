import { assertEquals, assertInstanceOf, assertLess, assertThrows } from "@std/assert";
import {
  createAnimation,
  getPose,
  getSkinningPalette,
  PoseError,
  quatToMatSystem,
  setJointPose,
} from "../mod.ts";
import { PoseField, poseIndex } from "../kernels.ts";
import * as ref from "../simd/scalar/mod.ts";
import { BUILDS, createScene, maxDifference, random, randomQuaternion } from "./_scene.ts";

for (const build of BUILDS) {
  Deno.test(`quatToMatSystem (${build}) turns every entity's pose into local matrices`, () => {
    const { world, skeleton, entities } = createScene(build, 3);
    const next = random(1);
    for (const eid of entities) {
      for (let j = 0; j < skeleton.jointCount; j++) {
        setJointPose(
          world,
          eid,
          j,
          [next() * 4 - 2, next() * 4 - 2, next() * 4 - 2],
          randomQuaternion(next),
          [
            0.5 + next(),
            0.5 + next(),
            0.5 + next(),
          ],
        );
      }
    }
    quatToMatSystem(world);
    for (const eid of entities) {
      const expected = new Float32Array(skeleton.jointCount * 12);
      ref.quatToMat(getPose(world, eid), expected, skeleton.jointCount);
      assertLess(maxDifference(getSkinningPalette(world, eid), expected), 1e-5);
    }
  });

  Deno.test(`quatToMatSystem (${build}) rejects a non-finite pose and writes nothing ("throw" fault mode)`, () => {
    const { world, entities } = createScene(build, 3);
    createAnimation(world, { faults: "throw" });
    quatToMatSystem(world);
    const before = entities.map((eid) => getSkinningPalette(world, eid).slice());
    setJointPose(world, entities[0], 2, [1, 2, 3], [0, 0, 0, 1]);
    getPose(world, entities[1])[poseIndex(3, PoseField.QY)] = NaN;
    const error = assertThrows(
      () => quatToMatSystem(world),
      PoseError,
      `entity ${entities[1]}: JointQuat joint 3 qy is NaN`,
    );
    assertInstanceOf(error, RangeError);
    assertEquals([error.entity, error.joint, error.field], [entities[1], 3, "qy"]);
    entities.forEach((eid, i) => assertEquals(getSkinningPalette(world, eid), before[i]));
  });
}
