/**
 * Foot IK on 100 Xbots (two legs each, 200 two-bone chains, default
 * options) playing their walk clip, each foot's target 5 cm above and 5 cm
 * ahead of where the clip put it: the IK system (job rows, one core call,
 * reached flags and distances read back), and the kernel alone on the same
 * job table, per core build, scalar as the baseline. Divide by 200 for the
 * time per chain.
 *
 * Xbot is read from `../shared/assets/gltf/` (licensed for testing only);
 * without it the bench registers nothing and says so.
 *
 * `deno bench --import-map=import_map.dev.json --allow-read --allow-env bench/ik_bench.ts`
 */
import "../scalar.ts";
import { addEntity, createWorld } from "bitecs";
import {
  addCharacter,
  createAnimation,
  createAnimationPipeline,
  ikSystem,
  playClip,
} from "../mod.ts";
import { createCharacterAssets, importGltf } from "../gltf/mod.ts";
import { Core, type CoreBuild } from "../kernels.ts";
import { stateOf } from "../components/_lifecycle.ts";
import { findModel } from "../tests/_assets.ts";
import { addFootIK } from "./_foot_ik.ts";

const CHARACTERS = 100;
const BUILDS: CoreBuild[] = ["scalar", "simd", "relaxed-simd"];

const url = findModel("Xbot.glb");
if (!url) {
  console.log("ik_bench: Xbot.glb is not in ../shared/assets/gltf/: nothing to measure");
} else {
  const gltfSkeleton = (await importGltf(url)).skeletons[0];
  const clip = gltfSkeleton.clips.find((c) => /walk/i.test(c.name))!;
  for (const build of BUILDS) {
    const core = Core.create(build);
    const { skeleton, skin } = createCharacterAssets(gltfSkeleton, core);
    const world = createWorld();
    createAnimation(world, { core });
    const animate = createAnimationPipeline();
    const entities = Array.from({ length: CHARACTERS }, (_, i) => {
      const eid = addEntity(world);
      addCharacter(world, eid, skeleton, skin);
      playClip(world, eid, clip, { time: (clip.duration * i) / CHARACTERS });
      return eid;
    });
    animate(world, 0);
    for (const eid of entities) addFootIK(world, eid, skeleton);
    animate(world, 0);
    const group = `ik (${CHARACTERS} Xbots × 2 legs = ${CHARACTERS * 2} chains)`;
    Deno.bench({
      name: `ikSystem ${build}`,
      group: `${group}: system`,
      baseline: build === "scalar",
      fn: () => ikSystem(world),
    });
    const state = stateOf(world, "ik_bench");
    const table = state.jobs("ik");
    Deno.bench({
      name: `solveIKBatch ${build}`,
      group: `${group}: kernel`,
      baseline: build === "scalar",
      fn: () => state.kernels.solveIKBatch(table.ptr, CHARACTERS * 2),
    });
  }
}
