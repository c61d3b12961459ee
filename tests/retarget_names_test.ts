/**
 * Retargeting's joint map where names repeat: glTF node names need not be
 * unique, and RobotExpressive names its bones and the meshes hung on them
 * alike (both are joints once attached meshes are imported). Joints that
 * share a name map in joint order where source and target have as many of
 * it, all to the one source joint where the source has one, else nothing.
 */

import { assertAlmostEquals } from "@std/assert";
import { type Clip, createClip, type SkeletonDefinition } from "../mod.ts";
import { sampleClip } from "../clips.ts";
import { PoseField, poseFloats, poseIndex } from "../kernels.ts";
import { retargetClip } from "../retarget.ts";

/** A chain of joints 0.2 apart along +y, at rest without turns. */
function chain(names: string[]): SkeletonDefinition {
  const n = names.length;
  const restPose = new Float32Array(poseFloats(n));
  for (let j = 0; j < n; j++) {
    restPose[poseIndex(j, PoseField.QW)] = 1;
    for (const f of [PoseField.SX, PoseField.SY, PoseField.SZ]) restPose[poseIndex(j, f)] = 1;
    restPose[poseIndex(j, PoseField.TY)] = j === 0 ? 1 : 0.2;
  }
  const parents = Int16Array.from(names, (_, j) => j - 1);
  return { names, parents, restPose, inverseBind: new Float32Array(n * 12) };
}

/** Joint `j` of `joints` turned about z by `angles[j]` radians over one second. */
function turns(angles: readonly number[]): Clip {
  return createClip({
    name: "turns",
    channels: angles.map((angle, joint) => ({
      joint,
      path: "rotation" as const,
      interpolation: "LINEAR" as const,
      times: Float32Array.of(0, 1),
      values: Float32Array.of(0, 0, 0, 1, 0, 0, Math.sin(angle / 2), Math.cos(angle / 2)),
    })),
  });
}

/** The angle about z of each joint of a chain in model space at the end of `clip`. */
function anglesAtEnd(clip: Clip, skeleton: SkeletonDefinition): number[] {
  const pose = skeleton.restPose.slice();
  sampleClip(clip, 1, pose);
  let angle = 0;
  return skeleton.names.map((_, j) =>
    angle += 2 * Math.atan2(pose[poseIndex(j, PoseField.QZ)], pose[poseIndex(j, PoseField.QW)])
  );
}

/** Running sums: a chain's model-space angles from its local ones. */
function model(local: readonly number[]): number[] {
  let angle = 0;
  return local.map((a) => angle += a);
}

const ANGLES = [0.1, 0.4, -0.7, 0.9];

Deno.test("retarget: joints that share a name map in order where both skeletons have as many", () => {
  const source = chain(["Hips", "Arm", "Arm", "Hand"]);
  const target = chain(["rig:Hips", "rig:Arm", "rig:Arm", "rig:Hand"]);
  const expected = model(ANGLES);
  const got = anglesAtEnd(retargetClip(turns(ANGLES), { source, target }), target);
  got.forEach((angle, j) => assertAlmostEquals(angle, expected[j], 1e-6, `joint ${j}`));
  // The explicit table pairs them the same way.
  const mapped = retargetClip(turns(ANGLES), {
    source,
    target,
    jointMap: { "rig:Arm": "Arm" },
  });
  anglesAtEnd(mapped, target).forEach((angle, j) =>
    assertAlmostEquals(angle, expected[j], 1e-6, `joint ${j}, explicit`)
  );
});

Deno.test("retarget: a shared name maps to the source's one joint of it, or nothing when counts differ", () => {
  const one = chain(["Hips", "Arm", "Elbow", "Hand"]);
  const two = chain(["Hips", "Arm", "Arm", "Hand"]);
  const three = chain(["Hips", "Arm", "Arm", "Arm"]);
  // One source "Arm": both target "Arm"s turn as it does in model space (the second then not
  // at all from its parent), and the hand as the source's hand.
  const fromOne = anglesAtEnd(retargetClip(turns(ANGLES), { source: one, target: two }), two);
  const [hips, arm, , hand] = model(ANGLES);
  [hips, arm, arm, hand].forEach((angle, j) => assertAlmostEquals(fromOne[j], angle, 1e-6));
  // Two source "Arm"s, three target ones: none is mapped, they keep their rest pose.
  const fromTwo = anglesAtEnd(retargetClip(turns(ANGLES), { source: two, target: three }), three);
  [hips, hips, hips, hips].forEach((angle, j) => assertAlmostEquals(fromTwo[j], angle, 1e-6));
});
