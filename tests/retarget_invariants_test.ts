/**
 * Retargeting invariants on the freely licensed models' clips (every model
 * whose joints have names; unnamed joints map nothing):
 *
 * - a clip retargeted onto its own skeleton is the clip: every joint
 *   within the compact tolerance (1e-5 of the skeleton's size) at every
 *   key time and at random times;
 * - a clip retargeted onto the skeleton's variant (`tests/_retarget.ts`:
 *   local axes turned at random, names prefixed `rig:`, 1.3 times the size,
 *   turned 0.7 rad about +y) puts every joint where the original is,
 *   scaled and turned: rest frames that differ, the prefix rule, the hips
 *   found and their height ratio, the offset rule (asked for every joint
 *   but the hips) for animated translations and the facing (given, and
 *   measured from the feet where the model has legs) all at once;
 * - the retargeted clip compacts and samples like any clip.
 */

import "../scalar.ts";
import { assert } from "@std/assert";
import { DEFAULT_CLIP_TOLERANCE } from "../clips.ts";
import { compactClip } from "../clips.ts";
import { SkeletonAsset, type SkeletonDefinition } from "../mod.ts";
import { Core } from "../kernels.ts";
import { retargetClip, type RetargetJointOverride } from "../retarget.ts";
import { random } from "./_scene.ts";
import {
  compareTimes,
  jointPositions,
  largestDistance,
  modelSkeletons,
  rotated,
  skeletonSize,
  variant,
  yaw,
} from "./_retarget.ts";

/** Free models with named joints, and whether they stand on legs the facing is measured from. */
const MODELS: readonly [string, boolean][] = [
  ["CesiumMan.glb", true],
  ["RiggedFigure.glb", true],
  ["RobotExpressive.glb", true],
  ["Fox.glb", true],
  ["RiggedSimple.glb", false],
];

for (const [model] of MODELS) {
  Deno.test(`retarget: ${model}'s clips retargeted onto their own skeleton are the clips`, async () => {
    const next = random(31);
    for (const { skeleton, clips } of await modelSkeletons(model)) {
      const tolerance = DEFAULT_CLIP_TOLERANCE * skeletonSize(skeleton);
      for (const clip of clips) {
        const same = retargetClip(clip, { source: skeleton, target: skeleton });
        for (const time of compareTimes(clip, next)) {
          const { worst, at } = largestDistance(
            jointPositions(skeleton, same, time),
            jointPositions(skeleton, clip, time),
          );
          assert(
            worst <= tolerance,
            `${clip.name} at ${time}: joint ${skeleton.names[at]} ${worst} off (> ${tolerance})`,
          );
        }
      }
    }
  });
}

const SCALE = 1.3, ANGLE = 0.7;

/**
 * The `"offset"` translation rule for every joint but the hips (picked as
 * `retargetClip` picks them: a name with hip or pelvis in it, else the
 * first joint with two children or more, else the root).
 */
function offsets(skeleton: SkeletonDefinition): Record<string, RetargetJointOverride> {
  const { names, parents } = skeleton;
  let hips = names.findIndex((name) => /hip|pelvis/i.test(name));
  if (hips < 0) {
    hips = Math.max(
      0,
      names.findIndex((_, j) => parents.filter((p) => p === j).length >= 2),
    );
  }
  return Object.fromEntries(
    names.flatMap((name, j) => j === hips ? [] : [[name, { translation: "offset" as const }]]),
  );
}

for (const [model, legs] of MODELS) {
  const facings = legs ? ["given", "measured"] : ["given"];
  Deno.test(`retarget: ${model} onto its turned, scaled, re-axed variant (facing ${facings.join(", ")})`, async () => {
    const next = random(7);
    for (const { skeleton, clips } of await modelSkeletons(model)) {
      const other = variant(skeleton, SCALE, ANGLE, next);
      const size = skeletonSize(skeleton) * SCALE;
      const turn = yaw(ANGLE);
      for (const facing of facings) {
        for (const clip of clips) {
          const moved = retargetClip(clip, {
            source: skeleton,
            target: other,
            ...(facing === "given"
              ? {
                facing: {
                  source: [0, 0, 1],
                  target: rotated(turn, [0, 0, 1]) as [number, number, number],
                },
              }
              : {}),
            // A skeleton whose hips rest at the ground has no height ratio.
            ...(legs ? {} : { rootScale: SCALE }),
            // The variant's bones differ: their animated offsets are kept when asked.
            overrides: offsets(other),
          });
          for (const time of compareTimes(clip, next)) {
            const original = jointPositions(skeleton, clip, time);
            const expected = new Float64Array(original.length);
            for (let j = 0; j < original.length; j += 3) {
              const p = rotated(turn, [original[j], original[j + 1], original[j + 2]]);
              for (let c = 0; c < 3; c++) expected[j + c] = p[c] * SCALE;
            }
            const { worst, at } = largestDistance(jointPositions(other, moved, time), expected);
            assert(
              worst <= 1e-5 * size,
              `${clip.name} (${facing}) at ${time}: ${
                skeleton.names[at]
              } ${worst} off (size ${size})`,
            );
          }
        }
      }
    }
  });
}

Deno.test("retarget: a retargeted clip compacts within its tolerance and plays as any clip", async () => {
  const [{ skeleton, clips }] = await modelSkeletons("CesiumMan.glb");
  const other = variant(skeleton, SCALE, ANGLE, random(3));
  using asset = new SkeletonAsset(other, Core.create("scalar"));
  const moved = retargetClip(clips[0], { source: skeleton, target: asset });
  const compact = compactClip(moved, asset);
  assert(compact.maxError <= compact.tolerance, `${compact.maxError} > ${compact.tolerance}`);
  assert(compact.keyCount > 0 && compact.duration === clips[0].duration);
});
