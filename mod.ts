/**
 * Marrow: skeletal animation for bitecs frame loops, on a WebAssembly SIMD
 * core with a scalar TypeScript fallback of identical semantics.
 *
 * A game creates its bitecs world, makes it animatable with
 * {@linkcode createAnimation}, builds shared assets once
 * ({@linkcode SkeletonAsset}, {@linkcode SkinAsset}, from `importGltf`
 * or code), gives entities their components
 * ({@linkcode addCharacter}, {@linkcode playClip}) and runs the frame:
 * sample clips → quat→mat → transform skeleton → IK → × inverse bind → skin,
 * one call into the core per system for all entities (or for the entities
 * of the game's own query). Skinned output is read zero-copy
 * ({@linkcode getSkinnedPositions}) for a GPU buffer or a physics engine.
 *
 * @example A crowd of skinned characters playing a clip
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
 * import { createCylinder } from "@marrow/anim/procedural";
 *
 * const world = createWorld();
 * createAnimation(world);
 * // A glTF skin instead: `const [s] = (await importGltf(file)).skeletons;` gives
 * // `s.skeleton` and, for SkinAsset, its primitives' `s.primitives.map((p) => p.skin)`.
 * const character = createCylinder({ joints: 8 });
 * using skeleton = new SkeletonAsset(character.skeleton);
 * using skin = new SkinAsset(skeleton, character.skin);
 * const bend: Clip = {
 *   name: "bend",
 *   animation: 0,
 *   start: 0,
 *   duration: 1,
 *   channels: [{
 *     joint: 1,
 *     path: "rotation",
 *     interpolation: "LINEAR",
 *     times: Float32Array.of(0, 1),
 *     values: Float32Array.of(0, 0, 0, 1, 0, 0, Math.SQRT1_2, Math.SQRT1_2),
 *     node: 1,
 *   }],
 * };
 * const crowd = Array.from({ length: 16 }, (_, i) => {
 *   const eid = addEntity(world);
 *   addCharacter(world, eid, skeleton, skin);
 *   playClip(world, eid, bend, { time: i / 16 });
 *   return eid;
 * });
 * const animate = createAnimationPipeline();
 * for (let frame = 0; frame < 3; frame++) {
 *   animate(world, 1 / 60);
 *   const positions = getSkinnedPositions(world, crowd[0]); // upload to the GPU
 *   console.assert(positions.length === skin.vertexCount * 4);
 * }
 * ```
 *
 * The rest of the package is in entries of its own: `@marrow/anim/gltf`
 * (glTF import), `@marrow/anim/layers` (layers, locomotion, joint masks),
 * `@marrow/anim/ik` (IK chains), `@marrow/anim/lod` (level of detail:
 * update rates, culling, influence caps, distance bands),
 * `@marrow/anim/clips` (compact clips, clip
 * files and budget, markers, root motion, sampling by hand),
 * `@marrow/anim/kernels` (the core, its buffers and checked kernels, the
 * worker pool, the memory layouts), `@marrow/anim/reference` (the scalar
 * kernels) and `@marrow/anim/procedural` (generated characters).
 *
 * @module
 */

export type {
  AnimationComponents,
  ClipPlayerComponent,
  IKComponent,
  JointMatComponent,
  JointQuatComponent,
  SkeletonComponent,
  SkinComponent,
} from "./components/world.ts";
export { type AnimationOptions, createAnimation, disposeAnimation } from "./components/world.ts";
export { clearFaults, type Fault, type FaultMode, getFaults } from "./components/faults.ts";
export * from "./components/errors.ts";
export type { SkeletonDefinition, SkinDefinition } from "./animation/definitions.ts";
export { CoreAsset } from "./animation/core_asset.ts";
export { SkeletonAsset } from "./animation/skeleton_asset.ts";
export {
  SkinAsset,
  type SkinAssetOptions,
  type SkinMeshRange,
  type SkinningMethod,
} from "./animation/skin_asset.ts";
export type { ChannelPath, Clip, ClipChannel, Interpolation, WrapMode } from "./animation/clip.ts";
export { ClipError, type ClipInit, createClip, validateClip } from "./animation/clip_validation.ts";
export { prepareClip, prepareClips } from "./animation/prepare_clip.ts";
export { addSkeleton, removeSkeleton } from "./components/skeleton.ts";
export { addJointQuat, getPose, removeJointQuat, setJointPose } from "./components/joint_quat.ts";
export {
  addJointMat,
  getModelMatrices,
  getSkinningPalette,
  removeJointMat,
} from "./components/joint_mat.ts";
export { addCharacter } from "./components/character.ts";
export {
  addSkin,
  type Bounds,
  DualQuaternionError,
  getJointSkinBounds,
  getSkinnedBounds,
  getSkinnedNormals,
  getSkinnedPositions,
  getSkinnedTangents,
  removeSkin,
  type SkinStreams,
} from "./components/skin.ts";
export {
  raycastSkin,
  type SkinRaycastOptions,
  type SkinRayHit,
} from "./components/skin_raycast.ts";
export {
  crossFadeTo,
  getPlayback,
  type PlaybackInfo,
  type PlaybackOptions,
  playClip,
  removeClipPlayer,
} from "./components/clip_player.ts";
export { sampleClipsSystem } from "./systems/sample_clips.ts";
export { quatToMatSystem } from "./systems/quat_to_mat.ts";
export { transformSkeletonSystem } from "./systems/transform_skeleton.ts";
export { ikSystem } from "./systems/ik.ts";
export { multiplyInverseBindSystem } from "./systems/multiply_inverse_bind.ts";
export { skinSystem, type SkinSystemOptions, skinWithTangentsSystem } from "./systems/skin.ts";
export { matToQuatSystem } from "./systems/mat_to_quat.ts";
export { untransformSkeletonSystem } from "./systems/untransform_skeleton.ts";
export {
  type AnimationPipeline,
  type AnimationPipelineOptions,
  type AnimationSystem,
  createAnimationPipeline,
} from "./systems/pipeline.ts";
