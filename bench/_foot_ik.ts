/**
 * Foot IK as the benches set it up: both legs of a Mixamo skeleton (Xbot,
 * Soldier) as two-bone chains, each foot's target 5 cm above and 5 cm ahead
 * of where the current model matrices put it.
 *
 * @module
 */
import { getModelMatrices, type SkeletonAsset } from "../mod.ts";
import { addTwoBoneIK, setIKTarget } from "../ik.ts";

const LEGS = ["Left", "Right"].map((side) =>
  [`mixamorig:${side}UpLeg`, `mixamorig:${side}Leg`, `mixamorig:${side}Foot`] as const
);

/**
 * Adds the two leg chains to `eid`, targets from its model matrices (run
 * the frame once before, so that they hold the animated pose).
 */
export function addFootIK(world: object, eid: number, skeleton: SkeletonAsset): void {
  const model = getModelMatrices(world, eid);
  for (const [hip, knee, foot] of LEGS) {
    const f = skeleton.jointIndex(foot) * 12;
    const chain = addTwoBoneIK(world, eid, { start: hip, mid: knee, end: foot });
    // The scene is in centimetres under a 0.01 root scale: targets in model space (metres).
    setIKTarget(world, eid, chain, [model[f + 3], model[f + 7] + 0.05, model[f + 11] + 0.05]);
  }
}
