/**
 * Animation layers above an entity's base playback (`playClip`): layers
 * that blend, override or add ({@linkcode addLayer}, {@linkcode LayerMode}),
 * their weights, times and joint masks ({@linkcode setLayerWeight},
 * {@linkcode setLayerMask}, {@linkcode jointMask}), and locomotion layers
 * blending cycles along a parameter ({@linkcode addLocomotionLayer}).
 *
 * @module
 */

export {
  addLayer,
  getLayers,
  type LayerInfo,
  type LayerMode,
  type LayerOptions,
  MAX_LAYERS,
  MIN_BLEND_THRESHOLD,
  removeLayer,
  setBlendThreshold,
  setLayerMask,
  setLayerTime,
  setLayerWeight,
} from "./components/layers.ts";
export {
  addLocomotionLayer,
  type LocomotionOptions,
  type LocomotionPoint,
  setLocomotionParameter,
} from "./components/locomotion.ts";
export { jointMask, type JointMaskSpec, type MaskSkeleton } from "./animation/joint_mask.ts";
