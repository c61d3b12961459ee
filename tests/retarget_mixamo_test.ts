/**
 * Retargeting between Soldier and Xbot (test-only models: skipped when
 * `../shared/assets/gltf/` lacks them), two Mixamo rigs of different
 * proportions whose joints' local axes differ and which face opposite ways
 * in their scenes (Soldier −Z, Xbot +Z), with the default options:
 *
 * - each clip retargeted onto its own skeleton is the clip (compact
 *   tolerance);
 * - every clip of each retargeted onto the other keeps the target's bone
 *   lengths, bends the knees forward where the source's do (a wrong facing
 *   bends them back), and where the source's toes are on the ground
 *   (within 0.5 % of its height of their rest height) the target's are
 *   within 3 % of its height of theirs, 0.5 % with the feet planted;
 * - the facings measured from hips and feet are the scenes' (giving them
 *   as options changes nothing).
 */

import { assert } from "@std/assert";
import type { Clip, SkeletonDefinition } from "../mod.ts";
import { DEFAULT_CLIP_TOLERANCE } from "../clips.ts";
import { retargetClip, type RetargetOptions } from "../retarget.ts";
import { testOnModels } from "./_three_gltf.ts";
import { random } from "./_scene.ts";
import {
  compareTimes,
  jointPositions,
  largestDistance,
  modelSkeletons,
  skeletonSize,
} from "./_retarget.ts";

const MODELS = ["Soldier.glb", "Xbot.glb"];

interface Rig {
  readonly skeleton: SkeletonDefinition;
  readonly clips: readonly Clip[];
  /** Highest rest joint above y = 0. */
  readonly height: number;
}

async function rig(name: string): Promise<Rig> {
  const [{ skeleton, clips }] = await modelSkeletons(name);
  const rest = jointPositions(skeleton, null);
  let height = 0;
  for (let j = 1; j < rest.length; j += 3) height = Math.max(height, rest[j]);
  return { skeleton, clips, height };
}

const joint = (rig: Rig, name: string) => rig.skeleton.names.indexOf(`mixamorig:${name}`);

/** The horizontal direction the toes point from the feet, summed over both feet. */
function toesFacing(rig: Rig, positions: Float64Array): [number, number] {
  let x = 0, z = 0;
  for (const side of ["Left", "Right"]) {
    const toe = joint(rig, `${side}ToeBase`), foot = joint(rig, `${side}Foot`);
    x += positions[toe * 3] - positions[foot * 3];
    z += positions[toe * 3 + 2] - positions[foot * 3 + 2];
  }
  return [x, z];
}

/**
 * How far forward the knees bend, the least of both legs, as a fraction
 * of the height: the knee's horizontal offset from the middle of hip and
 * ankle, along the direction the pelvis faces (square to the line between
 * the hips, on the side where the toes point at rest).
 */
function kneeBend(rig: Rig, p: Float64Array, rest: Float64Array): number {
  const across = (q: Float64Array) => {
    const l = joint(rig, "LeftUpLeg"), r = joint(rig, "RightUpLeg");
    return [q[r * 3 + 2] - q[l * 3 + 2], q[l * 3] - q[r * 3]];
  };
  const [fx, fz] = toesFacing(rig, rest), [rx, rz] = across(rest);
  const sign = Math.sign(rx * fx + rz * fz);
  const [x, z] = across(p), length = Math.hypot(x, z);
  let least = Infinity;
  for (const side of ["Left", "Right"]) {
    const hip = joint(rig, `${side}UpLeg`), knee = joint(rig, `${side}Leg`);
    const ankle = joint(rig, `${side}Foot`);
    const dx = p[knee * 3] - (p[hip * 3] + p[ankle * 3]) / 2;
    const dz = p[knee * 3 + 2] - (p[hip * 3 + 2] + p[ankle * 3 + 2]) / 2;
    least = Math.min(least, sign * (dx * x + dz * z) / length / rig.height);
  }
  return least;
}

testOnModels(
  MODELS,
  "retarget: Soldier's and Xbot's clips retargeted onto their own skeleton are the clips",
  async () => {
    const next = random(5);
    for (const name of MODELS) {
      const { skeleton, clips } = await rig(name);
      const tolerance = DEFAULT_CLIP_TOLERANCE * skeletonSize(skeleton);
      for (const clip of clips) {
        const same = retargetClip(clip, { source: skeleton, target: skeleton });
        for (const time of compareTimes(clip, next, 10)) {
          const { worst, at } = largestDistance(
            jointPositions(skeleton, same, time),
            jointPositions(skeleton, clip, time),
          );
          assert(
            worst <= tolerance,
            `${name} ${clip.name} at ${time}: ${skeleton.names[at]} ${worst} off`,
          );
        }
      }
    }
  },
);

const PAIRS = [["Soldier.glb", "Xbot.glb"], ["Xbot.glb", "Soldier.glb"]];
for (
  const [[from, to], plantFeet] of PAIRS.flatMap((pair) => [[pair, false], [pair, true]] as const)
) {
  // Rotation transfer alone leaves the toes up to 3 % of the height off; planted, 0.5 %.
  const bound = plantFeet ? 0.005 : 0.03;
  testOnModels(
    MODELS,
    `retarget: ${from} → ${to} keeps bone lengths, facing and feet on the ground${
      plantFeet ? ", feet planted" : ""
    }`,
    async () => {
      const source = await rig(from), target = await rig(to);
      const hips = joint(target, "Hips");
      const rest = jointPositions(target.skeleton, null);
      const sourceRest = jointPositions(source.skeleton, null);
      const next = random(11);
      let contacts = 0, worstFoot = 0, airborne = 0;
      for (const clip of source.clips) {
        const moved = retargetClip(clip, {
          source: source.skeleton,
          target: target.skeleton,
          plantFeet,
        });
        const plain = plantFeet
          ? retargetClip(clip, { source: source.skeleton, target: target.skeleton })
          : undefined;
        for (const time of compareTimes(clip, next, 30)) {
          const p = jointPositions(target.skeleton, moved, time);
          for (let j = hips + 1; j < target.skeleton.parents.length; j++) {
            const parent = target.skeleton.parents[j];
            const length = Math.hypot(...[0, 1, 2].map((c) => p[j * 3 + c] - p[parent * 3 + c]));
            const restLength = Math.hypot(
              ...[0, 1, 2].map((c) => rest[j * 3 + c] - rest[parent * 3 + c]),
            );
            assert(
              Math.abs(length - restLength) <= 1e-5 * target.height,
              `${clip.name} at ${time}: ${
                target.skeleton.names[j]
              } bone ${length} vs ${restLength}`,
            );
          }
          const s = jointPositions(source.skeleton, clip, time);
          // Knees bend forward where the source's do: a wrong facing bends them backwards.
          if (kneeBend(source, s, sourceRest) > 0) {
            const bend = kneeBend(target, p, rest);
            assert(bend > -0.01, `${clip.name} at ${time}: the knees bend back (${bend})`);
          }
          // Feet in the air are left alone.
          const lifts = ["LeftToeBase", "RightToeBase"].map((side) =>
            s[joint(source, side) * 3 + 1] - sourceRest[joint(source, side) * 3 + 1]
          );
          if (plantFeet && Math.min(...lifts) > 0.05 * source.height) {
            const unplanted = jointPositions(target.skeleton, plain!, time);
            const { worst } = largestDistance(p, unplanted);
            assert(
              worst <= 1e-5 * target.height,
              `${clip.name} at ${time}: moved ${worst} in the air`,
            );
            airborne++;
          }
          for (const side of ["LeftToeBase", "RightToeBase"]) {
            const sourceToe = joint(source, side), targetToe = joint(target, side);
            const lift = s[sourceToe * 3 + 1] - sourceRest[sourceToe * 3 + 1];
            if (Math.abs(lift) > 0.005 * source.height) continue;
            contacts++;
            const off = Math.abs(p[targetToe * 3 + 1] - rest[targetToe * 3 + 1]) / target.height;
            worstFoot = Math.max(worstFoot, off);
            assert(
              off <= bound,
              `${clip.name} at ${time}: ${side} ${(off * 100).toFixed(2)} % of height off`,
            );
          }
        }
      }
      assert(contacts > 50, `only ${contacts} contacts`);
      assert(!plantFeet || airborne > 5, `only ${airborne} times with both feet in the air`);
      console.log(
        `${from} → ${to}${plantFeet ? " planted" : ""}: ${contacts} toe contacts, the worst ${
          (worstFoot * 100).toFixed(2)
        } % of height off`,
      );
    },
  );
}

testOnModels(
  MODELS,
  "retarget: Soldier faces −Z and Xbot +Z, measured from hips and feet",
  async () => {
    const soldier = await rig("Soldier.glb"), xbot = await rig("Xbot.glb");
    const size = skeletonSize(xbot.skeleton);
    for (const clip of soldier.clips) {
      const options: RetargetOptions = { source: soldier.skeleton, target: xbot.skeleton };
      const measured = retargetClip(clip, options);
      const given = retargetClip(clip, {
        ...options,
        facing: { source: [0, 0, -1], target: [0, 0, 1] },
      });
      const turned = retargetClip(clip, {
        ...options,
        facing: { source: [0, 0, 1], target: [0, 0, 1] },
      });
      const at = clip.duration / 2;
      const p = jointPositions(xbot.skeleton, measured, at);
      const { worst } = largestDistance(p, jointPositions(xbot.skeleton, given, at));
      assert(worst <= 0.01 * size, `${clip.name}: measured and given facings ${worst} apart`);
      // The facing matters: without the turn, Xbot plays the clip facing the other way.
      const wrong = largestDistance(p, jointPositions(xbot.skeleton, turned, at)).worst;
      // The facing matters where the pose is not the rest pose: unturned, Xbot walks backwards.
      if (clip.name !== "TPose") {
        assert(wrong > 0.1 * size, `${clip.name}: turning changed ${wrong}`);
      }
    }
  },
);
