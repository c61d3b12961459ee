/**
 * Morph targets (`@marrow/anim/morph`): blend shapes on skinned meshes.
 * A skin's meshes carry their targets ({@linkcode MorphTargetDefinition},
 * `SkinDefinition.morphTargets`; the glTF importer fills them), and an
 * entity with a Skin of such a mesh takes its own weights with
 * {@linkcode addMorphWeights} and {@linkcode setMorphWeights}: the
 * skinning systems then skin `base + sum_i w_i * d_i` (the glTF formula,
 * active targets only) for positions, normals and tangents, so that
 * skinned positions, bounds and raycasts show the morphed mesh. A clip's
 * `morphChannels` ({@linkcode MorphWeightsChannel}) key the weights of a
 * glTF animation: an entity with MorphWeights that plays the clip (with
 * `playClip`, a cross-fade or layers) has them sampled and blended into
 * its weights each frame, as its joints are; the targets no clip animates
 * keep the weights the game set. {@linkcode sampleMorphWeights} samples a
 * channel by itself. More in `docs/morph_targets.md`.
 *
 * @example A cylinder that swells, from a clip's weights channel
 * ```ts
 * import { addEntity, createWorld } from "bitecs";
 * import {
 *   addCharacter,
 *   type Clip,
 *   createAnimation,
 *   createAnimationPipeline,
 *   getSkinnedPositions,
 *   playClip,
 *   SkeletonAsset,
 *   SkinAsset,
 * } from "@marrow/anim";
 * import { addMorphWeights, getMorphWeights } from "@marrow/anim/morph";
 * import { createCylinder } from "@marrow/anim/procedural";
 *
 * const cylinder = createCylinder({ joints: 4, segments: 8, rings: 4 });
 * // One target: every vertex pushed out along x and z (a glTF file brings its own).
 * const { positions, vertexCount } = cylinder.skin;
 * const deltas = new Float32Array(vertexCount * 3);
 * for (let v = 0; v < vertexCount; v++) {
 *   deltas[v * 3] = positions[v * 4] * 0.5;
 *   deltas[v * 3 + 2] = positions[v * 4 + 2] * 0.5;
 * }
 * const world = createWorld();
 * createAnimation(world);
 * using skeleton = new SkeletonAsset(cylinder.skeleton);
 * using skin = new SkinAsset(skeleton, {
 *   ...cylinder.skin,
 *   morphTargets: [{ name: "swell", positions: { deltas } }],
 * });
 * const eid = addEntity(world);
 * addCharacter(world, eid, skeleton, skin);
 * addMorphWeights(world, eid);
 * const swell: Clip = {
 *   name: "swell",
 *   animation: 0,
 *   start: 0,
 *   duration: 1,
 *   channels: [],
 *   morphChannels: [{
 *     node: 0,
 *     mesh: 0,
 *     targetCount: 1,
 *     interpolation: "LINEAR",
 *     times: Float32Array.of(0, 1),
 *     values: Float32Array.of(0, 1),
 *   }],
 * };
 * playClip(world, eid, swell, { wrap: "clamp" });
 * const animate = createAnimationPipeline();
 * animate(world, 0.5);
 * const [weight] = getMorphWeights(world, eid); // halfway through the clip
 * if (Math.abs(weight - 0.5) > 1e-6) throw new Error(`weight ${weight}`);
 * animate(world, 0); // skinned the frame after the weights changed
 * const x = getSkinnedPositions(world, eid)[skin.outputIndex[0] * 4];
 * if (Math.abs(x - positions[0] * 1.25) > 1e-4) throw new Error(`x ${x}`);
 * ```
 *
 * @module
 */

export type {
  MorphDisplacements,
  MorphTargetDefinition,
  MorphWeightsChannel,
} from "./animation/morph.ts";
export { sampleMorphWeights } from "./animation/morph.ts";
export {
  addMorphWeights,
  getMorphWeights,
  MAX_MORPH_WEIGHT,
  type MorphWeightsComponent,
  type MorphWeightsOptions,
  removeMorphWeights,
  setMorphWeights,
} from "./components/morph_weights.ts";
