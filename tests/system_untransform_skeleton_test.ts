import { assertEquals, assertLess } from "@std/assert";
import {
  getModelMatrices,
  getSkinningPalette,
  quatToMatSystem,
  setJointPose,
  transformSkeletonSystem,
  untransformSkeletonSystem,
} from "../mod.ts";
import { BUILDS, createScene, maxDifference, random, randomQuaternion } from "./_scene.ts";

for (const build of BUILDS) {
  Deno.test(`untransformSkeletonSystem (${build}) undoes transformSkeletonSystem`, () => {
    const { world, skeleton, entities } = createScene(build, 3, {
      joints: 11,
      segments: 3,
      rings: 3,
    });
    const next = random(6);
    for (const eid of entities) {
      for (let j = 0; j < skeleton.jointCount; j++) {
        setJointPose(world, eid, j, [next(), next(), next()], randomQuaternion(next), [
          0.8 + next() * 0.4,
          1,
          1.2,
        ]);
      }
    }
    quatToMatSystem(world);
    const locals = entities.map((eid) => getSkinningPalette(world, eid).slice());
    transformSkeletonSystem(world);
    getSkinningPalette(world, entities[0]).fill(0);
    const models = entities.map((eid) => getModelMatrices(world, eid).slice());
    untransformSkeletonSystem(world);
    entities.forEach((eid, i) => {
      assertLess(maxDifference(getSkinningPalette(world, eid), locals[i]), 1e-4);
      assertEquals(getModelMatrices(world, eid), models[i]);
    });
  });
}
