import { assertLess } from "@std/assert";
import { getPose, matToQuatSystem, quatToMatSystem, setJointPose } from "../mod.ts";
import { type PoseField, poseIndex } from "../kernels.ts";
import { BUILDS, createScene, random, randomQuaternion } from "./_scene.ts";

for (const build of BUILDS) {
  Deno.test(`matToQuatSystem (${build}) recovers every entity's pose from its local matrices`, () => {
    const { world, skeleton, entities } = createScene(build, 3, {
      joints: 9,
      segments: 3,
      rings: 3,
    });
    const next = random(5);
    const poses = new Map<number, number[][]>();
    for (const eid of entities) {
      const joints: number[][] = [];
      for (let j = 0; j < skeleton.jointCount; j++) {
        const t = [next() * 2 - 1, next() * 2 - 1, next() * 2 - 1];
        const q = randomQuaternion(next);
        const s = [0.5 + next(), 0.5 + next(), 0.5 + next()];
        setJointPose(world, eid, j, t, q, s);
        joints.push([...t, ...q, ...s]);
      }
      poses.set(eid, joints);
    }
    quatToMatSystem(world);
    // Scribble over the poses so the system must rebuild them from the matrices.
    for (const eid of entities) getPose(world, eid).fill(7);
    matToQuatSystem(world);
    for (const eid of entities) {
      const pose = getPose(world, eid);
      poses.get(eid)!.forEach((expected, j) => {
        const actual = Array.from({ length: 10 }, (_, f) => pose[poseIndex(j, f as PoseField)]);
        // q and -q are the same rotation.
        const sign = Math.sign(
          actual[6] * expected[6] + actual[3] * expected[3] + actual[4] * expected[4] +
            actual[5] * expected[5],
        );
        for (let f = 0; f < 10; f++) {
          const e = f >= 3 && f <= 6 ? expected[f] * sign : expected[f];
          assertLess(Math.abs(actual[f] - e), 2e-5, `entity ${eid} joint ${j} field ${f}`);
        }
      });
    }
  });
}
