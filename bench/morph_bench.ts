/**
 * Morph targets before skinning: one frame of the skinning system for one
 * character (a cylinder of 8,256 vertices, 4 influences, positions,
 * normals and tangents skinned) against the same character without
 * MorphWeights (the baseline, `skin alone`), on the default core build.
 *
 * - `kernel, morph k active, changed`: k of its 8 targets with non-zero
 *   weights that change every frame, so that every frame morphs (an
 *   animated face): the core's morph kernel writes its bind streams in
 *   place, then it skins.
 * - `JS, morph k active, changed`: the same frame with the morph as it ran
 *   before the kernel (JavaScript on plain arrays into a scratch stream,
 *   copied into the entity's block; dense targets, as here), then the
 *   skinning (whose own morph finds nothing changed). Kernel and JS rows
 *   alternate, so that both see the same load.
 * - `morph 0 active` and `morph 8 active, unchanged`: nothing to morph,
 *   the skinning reads the streams of the last morph.
 *
 * Targets are dense (every vertex displaced in positions and normals), the
 * dearest case; sparse targets cost in proportion to the vertices they
 * move. Divide by 8,256 for ns per vertex.
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
import { skinInternals } from "../animation/internal.ts";
import { morphedStreams } from "../components/internal.ts";
import { stateOf } from "../components/_lifecycle.ts";
import { coreMemory } from "../simd/memory/internal.ts";

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
/**
 * The morph as it ran before the kernel (`applyMorphTargets`, main before
 * s37), kept here as the comparison: JavaScript on plain arrays in double
 * precision, then one copy per stream into the core. The scalar twin that
 * replaced it rounds each step to f32, as the core does, and is slower.
 */
function jsMorph(outputs: readonly number[], weights: Float32Array, scratch: Float32Array): void {
  const { bases, streams } = skinInternals(morphSkin).morph!;
  const f32 = coreMemory(core).views().f32;
  for (let s = 0; s < 3; s++) {
    const out = outputs[s], base = bases[s];
    if (out === 0 || base === undefined) continue;
    scratch.set(base);
    for (let t = 0; t < streams[s].length; t++) {
      const w = weights[t], stream = streams[s][t];
      if (w === 0 || stream === undefined) continue;
      const { deltas, count, first } = stream;
      for (let k = 0; k < count; k++) {
        const o = (first + k) * 4, d = k * 4;
        const x = scratch[o] + w * deltas[d], y = scratch[o + 1] + w * deltas[d + 1];
        const z = scratch[o + 2] + w * deltas[d + 2];
        scratch[o] = x > LIMIT ? LIMIT : x < -LIMIT ? -LIMIT : x;
        scratch[o + 1] = y > LIMIT ? LIMIT : y < -LIMIT ? -LIMIT : y;
        scratch[o + 2] = z > LIMIT ? LIMIT : z < -LIMIT ? -LIMIT : z;
      }
    }
    f32.set(scratch, out >> 2);
  }
}
const LIMIT = 1e18;

{
  const { world: w, eid } = world(true), zeros = new Float32Array(8);
  Deno.bench({
    name: "morph 0 active",
    group: GROUP,
    fn: () => {
      setMorphWeights(w, eid, zeros);
      skinWithTangentsSystem(w);
    },
  });
}
for (const active of [1, 4, 8]) {
  const weights = [new Float32Array(8), new Float32Array(8)];
  for (let t = 0; t < active; t++) weights[0][t] = 0.5, weights[1][t] = 0.25 + t * 0.05;
  const kernel = world(true), js = world(true);
  const outputs = morphedStreams(stateOf(js.world, "morph bench"), js.eid)!;
  const scratch = new Float32Array(n * 4);
  let kernelFrame = 0, jsFrame = 0;
  Deno.bench({
    name: `kernel, morph ${active} active, changed`,
    group: GROUP,
    fn: () => {
      setMorphWeights(kernel.world, kernel.eid, weights[kernelFrame++ & 1]);
      skinWithTangentsSystem(kernel.world);
    },
  });
  Deno.bench({
    name: `JS, morph ${active} active, changed`,
    group: GROUP,
    fn: () => {
      // The component's weights stay put, so that the system's own morph does not run.
      setMorphWeights(js.world, js.eid, weights[0]);
      jsMorph(outputs, weights[jsFrame++ & 1], scratch);
      skinWithTangentsSystem(js.world);
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
