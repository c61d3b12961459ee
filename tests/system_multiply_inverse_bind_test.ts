import { assertLess } from "@std/assert";
import {
  getModelMatrices,
  getSkinningPalette,
  multiplyInverseBindSystem,
  quatToMatSystem,
  setJointPose,
  transformSkeletonSystem,
} from "../mod.ts";
import * as ref from "../simd/scalar/mod.ts";
import { BUILDS, createScene, maxDifference, random, randomQuaternion } from "./_scene.ts";

for (const build of BUILDS) {
  Deno.test(`multiplyInverseBindSystem (${build}) computes every entity's palette`, () => {
    const { world, skeleton, entities } = createScene(build, 3);
    const next = random(3);
    for (const eid of entities) {
      for (let j = 0; j < skeleton.jointCount; j++) {
        setJointPose(world, eid, j, [next(), next(), next()], randomQuaternion(next));
      }
    }
    quatToMatSystem(world);
    transformSkeletonSystem(world);
    multiplyInverseBindSystem(world);
    const n = skeleton.jointCount;
    for (const eid of entities) {
      const expected = new Float32Array(n * 12);
      ref.multiplyMatrices(getModelMatrices(world, eid), skeleton.inverseBind, expected, n);
      assertLess(maxDifference(getSkinningPalette(world, eid), expected), 1e-5);
    }
  });

  Deno.test(`the rest pose gives an identity palette (${build})`, () => {
    const { world, skeleton, entities } = createScene(build, 1);
    quatToMatSystem(world);
    transformSkeletonSystem(world);
    multiplyInverseBindSystem(world);
    const identity = new Float32Array(skeleton.jointCount * 12);
    for (let j = 0; j < skeleton.jointCount; j++) {
      identity.set([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0], j * 12);
    }
    assertLess(maxDifference(getSkinningPalette(world, entities[0]), identity), 1e-5);
  });
}
