/**
 * The layered scene of issue 12: 100 Xbots (from `../shared/assets/gltf/`),
 * each with 3 layers: a base clip, an override clip masked to the upper
 * body (weight 0.7), and an additive clip (weight 0.5), plus foot IK on both
 * legs (`bench/_foot_ik.ts`). Per system, on each
 * core build (scalar as the baseline) in the same run:
 *
 * - `sampleClips layered`: the whole sample clips system (advance, sample
 *   three clips, blend the layers), against `sampleClips one clip`, the
 *   same scene with only the base clip;
 * - `blendLayers kernel`: the layer blend alone (the `blendLayersBatch`
 *   call over the jobs the system wrote), whose time divided by
 *   100 × joints × 3 layers is the ns per joint per layer the README quotes;
 * - `blendLayers kernel, upper layer override vs blend`: the same with the
 *   upper-body layer in `"blend"` mode (averaged with the base) as the
 *   baseline, per build;
 * - every other system of the frame on the layered scene (layers do not
 *   change their cost; listed so the frame's share of layering shows),
 *   `layered scene: ik` among them (200 chains).
 *
 * Run: `deno bench --import-map=import_map.dev.json --allow-read --allow-env bench/layers_bench.ts`
 */
import "../scalar.ts";
import { addEntity, createWorld } from "bitecs";
import {
  addCharacter,
  createAnimation,
  createAnimationPipeline,
  playClip,
  sampleClipsSystem,
  SkeletonAsset,
  SkinAsset,
} from "../mod.ts";
import { importGltf } from "../gltf/mod.ts";
import { addLayer, jointMask } from "../layers.ts";
import { Core, type CoreBuild } from "../kernels.ts";
import { stateOf } from "../components/_lifecycle.ts";
import { addFootIK } from "./_foot_ik.ts";

const CHARACTERS = 100;
const BUILDS: CoreBuild[] = ["scalar", "simd", "relaxed-simd"];
const file = new URL("../../shared/assets/gltf/Xbot.glb", import.meta.url);
const [character] = (await importGltf(file)).skeletons;
const joints = character.skeleton.parents.length;
const [base, upper, breathe] = character.clips;
const pipeline = createAnimationPipeline();
const spine = character.skeleton.names.findIndex((name) => /Spine$/.test(name));

function scene(build: CoreBuild, layered: boolean, mode: "override" | "blend" = "override") {
  const core = Core.create(build);
  const world = createWorld();
  createAnimation(world, { core });
  const skeleton = new SkeletonAsset(character.skeleton, core);
  const skin = new SkinAsset(skeleton, character.primitives[0].skin);
  const mask = jointMask(skeleton, { subtree: Math.max(spine, 1), falloff: 2 });
  const entities: number[] = [];
  for (let i = 0; i < CHARACTERS; i++) {
    const eid = addEntity(world);
    entities.push(eid);
    addCharacter(world, eid, skeleton, skin);
    playClip(world, eid, base, { time: i / CHARACTERS });
    if (!layered) continue;
    addLayer(world, eid, upper, { time: i / CHARACTERS, weight: 0.7, mask, mode });
    addLayer(world, eid, breathe, { time: i / CHARACTERS, weight: 0.5, mode: "additive" });
  }
  sampleClipsSystem(world, 1 / 60);
  if (layered) {
    pipeline(world, 0);
    for (const eid of entities) addFootIK(world, eid, skeleton);
  }
  return world;
}

for (const build of BUILDS) {
  const layered = scene(build, true), plain = scene(build, false);
  const scalar = build === "scalar";
  Deno.bench({
    name: `sampleClips layered ${build}`,
    group: `sampleClips, 100 Xbots (${joints} joints) x 3 layers`,
    baseline: scalar,
    fn: () => sampleClipsSystem(layered, 1 / 60),
  });
  Deno.bench({
    name: `sampleClips one clip ${build}`,
    group: `sampleClips, 100 Xbots (${joints} joints) x 1 clip`,
    baseline: scalar,
    fn: () => sampleClipsSystem(plain, 1 / 60),
  });
  const state = stateOf(layered, "bench");
  const jobs = state.jobs("sampleClips.layers");
  for (const system of pipeline.systems.filter((s) => s.name !== "sampleClips")) {
    Deno.bench({
      name: `${system.name} ${build}`,
      group: `layered scene: ${system.name}`,
      baseline: scalar,
      n: scalar ? 20 : undefined,
      fn: () => system.run(layered, 1 / 60),
    });
  }
  Deno.bench({
    name: `blendLayers kernel ${build}`,
    group: `blendLayers kernel, 100 x ${joints} joints x 3 layers`,
    baseline: scalar,
    fn: () => state.kernels.blendLayersBatch(0, 0, jobs.ptr, jobs.count),
  });
  const variants = [
    { mode: "blend", layers: stateOf(scene(build, true, "blend"), "bench") },
    { mode: "override", layers: state },
  ];
  for (const { mode, layers } of variants) {
    const table = layers.jobs("sampleClips.layers");
    Deno.bench({
      name: `blendLayers kernel ${build}, upper layer ${mode}`,
      group: `blendLayers kernel ${build}, upper layer override vs blend`,
      baseline: mode === "blend",
      fn: () => layers.kernels.blendLayersBatch(0, 0, table.ptr, table.count),
    });
  }
}
