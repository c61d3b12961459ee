import { assertLess } from "@std/assert";
import {
  getModelMatrices,
  getPose,
  quatToMatSystem,
  setJointPose,
  transformSkeletonSystem,
} from "../mod.ts";
import * as ref from "../simd/scalar/mod.ts";
import { BUILDS, createScene, maxDifference, random, randomQuaternion } from "./_scene.ts";

for (const build of BUILDS) {
  Deno.test(`transformSkeletonSystem (${build}) computes model space for every entity`, () => {
    const { world, skeleton, entities } = createScene(build, 4, {
      joints: 13,
      segments: 3,
      rings: 4,
    });
    const next = random(2);
    for (const eid of entities) {
      for (let j = 0; j < skeleton.jointCount; j++) {
        setJointPose(world, eid, j, [next(), next(), next()], randomQuaternion(next));
      }
    }
    quatToMatSystem(world);
    transformSkeletonSystem(world);
    const n = skeleton.jointCount;
    for (const eid of entities) {
      const local = new Float32Array(n * 12), model = new Float32Array(n * 12);
      ref.quatToMat(getPose(world, eid), local, n);
      ref.localToModel(local, model, skeleton.parentIndices, 0, n - 1);
      assertLess(maxDifference(getModelMatrices(world, eid), model), 1e-5);
    }
  });
}
