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
 * channel by itself.
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
