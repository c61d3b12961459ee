/**
 * Override layers on the real characters' animated poses, on every build,
 * with `addLayer`'s default mode: a masked override at weight 1 gives the
 * override clip's pose inside the mask and the base's outside it (within
 * 1e-6, rotations sign included); at 0.5, and with a falloff mask, the
 * per-joint lerp / shortest-arc nlerp between them; on top of a
 * cross-fade, the same with the cross-fade's pose as the base. The poses
 * compared against are each clip played alone on its own entity in the
 * same world.
 */
import { assertLess } from "@std/assert";
import { addEntity } from "bitecs";
import {
  addJointQuat,
  addSkeleton,
  crossFadeTo,
  getPose,
  playClip,
  removeClipPlayer,
  sampleClipsSystem,
} from "../mod.ts";
import { importGltf } from "../gltf/mod.ts";
import { addLayer, getLayers, jointMask } from "../layers.ts";
import { BUILDS, random } from "./_scene.ts";
import { assetUrl, testOnModels } from "./_three_gltf.ts";
import { characterWorld, halfSubtree, overrideError, overrideWeights } from "./_layers.ts";

const TOLERANCE = 1e-6;

for (const file of ["Fox.glb", "RobotExpressive.glb", "Soldier.glb", "Xbot.glb"]) {
  testOnModels(
    [file],
    `${file}: an override layer replaces the masked joints by its weight`,
    async () => {
      const imported = await importGltf(assetUrl(file));
      const character = imported.skeletons.find((s) => s.clips.length >= 3)!;
      const [c0, c1, c2] = character.clips;
      const n = character.skeleton.parents.length;
      const subtree = halfSubtree(character.skeleton.parents);
      const next = random(28);
      for (const build of BUILDS) {
        const { world, skeleton, mask } = characterWorld(build, character, subtree);
        const falloff = jointMask(skeleton, { subtree, falloff: 3 });
        const [base, over, layered] = [0, 1, 2].map(() => {
          const eid = addEntity(world);
          addSkeleton(world, eid, skeleton);
          addJointQuat(world, eid);
          return eid;
        });
        const cases = [
          { name: "weight 1", weight: 1, mask, signed: true },
          { name: "weight 0.5", weight: 0.5, mask, signed: false },
          { name: "weight 0.8, a falloff mask", weight: 0.8, mask: falloff, signed: false },
        ];
        for (let round = 0; round < 3; round++) {
          const time = next() * Math.min(c0.duration, c1.duration);
          for (const c of cases) {
            const what = `${file} (${build}) at ${time.toFixed(3)} s, ${c.name}`;
            playClip(world, base, c0, { time });
            playClip(world, over, c1, { time });
            playClip(world, layered, c0, { time });
            addLayer(world, layered, c1, { time, weight: c.weight, mask: c.mask });
            sampleClipsSystem(world, 0);
            const weights = overrideWeights(c1, n, c.weight, c.mask);
            const error = overrideError(
              getPose(world, layered),
              getPose(world, base),
              getPose(world, over),
              weights,
              n,
              c.signed,
            );
            assertLess(error, TOLERANCE, `${what}: error ${error}`);
            // On a cross-fade: the override applies to the cross-fade's pose.
            crossFadeTo(world, base, c2, 1);
            crossFadeTo(world, layered, c2, 1);
            sampleClipsSystem(world, 0.25 + 0.5 * next());
            const faded = overrideError(
              getPose(world, layered),
              getPose(world, base),
              getPose(world, over),
              weights,
              n,
              c.signed,
            );
            assertLess(faded, TOLERANCE, `${what}, over a cross-fade: error ${faded}`);
            assertLess(0, getLayers(world, layered).length);
            for (const eid of [base, over, layered]) removeClipPlayer(world, eid);
          }
        }
      }
    },
  );
}
