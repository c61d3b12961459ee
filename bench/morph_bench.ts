/**
 * Morph targets before skinning: one frame of the skinning system for one
 * character (a cylinder of 8,320 vertices, 4 influences, positions,
 * normals and tangents skinned) against the same character without
 * MorphWeights (the baseline, `skin alone`), on the default core build.
 *
 * - `morph k active, changed`: k of its 8 targets with non-zero weights
 *   that change every frame, so that every frame morphs (an animated
 *   face): the scalar morph kernel writes its bind streams, then it skins.
 * - `morph 8 active, unchanged`: the same weights every frame: nothing to
 *   morph, the skinning reads the streams of the last morph.
 *
 * Targets are dense (every vertex displaced in positions and normals), the
 * dearest case; sparse targets cost in proportion to the vertices they
 * move. Divide by 8,320 for ns per vertex.
 */

import { addEntity, createWorld } from "bitecs";
import {
  addCharacter,
  createAnimation,
  createAnimationPipeline,
  SkeletonAsset,
  SkinAsset,
  skinWithTangentsSystem,
} from "../mod.ts";
import { addMorphWeights, type MorphTargetDefinition, setMorphWeights } from "../morph.ts";
import { createCylinder } from "../procedural/cylinder.ts";
import { Core } from "../kernels.ts";

const core = Core.default;
const cylinder = createCylinder({ joints: 30, segments: 64, rings: 129 });
const n = cylinder.skin.vertexCount;
const targets: MorphTargetDefinition[] = Array.from({ length: 8 }, (_, t) => ({
  name: `t${t}`,
  positions: {
    deltas: Float32Array.from({ length: n * 3 }, (_, i) => Math.sin(i * 0.37 + t) * 0.1),
  },
  normals: { deltas: Float32Array.from({ length: n * 3 }, (_, i) => Math.cos(i * 0.11 + t) * 0.1) },
}));
const skeleton = new SkeletonAsset(cylinder.skeleton, core);
const plainSkin = new SkinAsset(skeleton, cylinder.skin);
const morphSkin = new SkinAsset(skeleton, { ...cylinder.skin, morphTargets: targets });

/** A world of one character, posed once; `morph` gives it MorphWeights. */
function world(morph: boolean): { world: object; eid: number } {
  const world = createWorld();
  createAnimation(world, { core });
  const eid = addEntity(world);
  addCharacter(world, eid, skeleton, morph ? morphSkin : plainSkin);
  if (morph) addMorphWeights(world, eid);
  createAnimationPipeline()(world, 0);
  return { world, eid };
}

const GROUP = `morph + skin, ${n} vertices`;
const plain = world(false);
Deno.bench({
  name: "skin alone",
  group: GROUP,
  baseline: true,
  fn: () => skinWithTangentsSystem(plain.world),
});
for (const active of [0, 1, 4, 8]) {
  const { world: w, eid } = world(true);
  const weights = [new Float32Array(8), new Float32Array(8)];
  for (let t = 0; t < active; t++) weights[0][t] = 0.5, weights[1][t] = 0.25 + t * 0.05;
  let frame = 0;
  Deno.bench({
    name: active === 0 ? "morph 0 active" : `morph ${active} active, changed`,
    group: GROUP,
    fn: () => {
      setMorphWeights(w, eid, weights[frame++ & 1]);
      skinWithTangentsSystem(w);
    },
  });
}
{
  const { world: w, eid } = world(true);
  const weights = new Float32Array(8).fill(0.5);
  setMorphWeights(w, eid, weights);
  Deno.bench({
    name: "morph 8 active, unchanged",
    group: GROUP,
    fn: () => {
      setMorphWeights(w, eid, weights);
      skinWithTangentsSystem(w);
    },
  });
}
