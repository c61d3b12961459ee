/**
 * Marrow: skeletal animation for bitecs frame loops, on a WebAssembly SIMD
 * core with a scalar TypeScript fallback of identical semantics.
 *
 * A game creates its bitecs world, makes it animatable with
 * {@linkcode createAnimation}, builds shared assets once
 * ({@linkcode SkeletonAsset}, {@linkcode SkinAsset}, from
 * {@linkcode importGltf} or code), gives entities their components
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
 * Below the ECS layer, the core's kernels are public too, on buffers in
 * the core's memory: {@linkcode quatToMat}, {@linkcode localToModel},
 * {@linkcode multiplyMatrices}, {@linkcode skinVertices} and the inverses
 * {@linkcode matToQuat} and {@linkcode modelToLocal}.
 *
 * @module
 */

export * from "./simd/layout.ts";
export { Core, type CoreBuild, type CoreOptions } from "./simd/core.ts";
export {
  createWorkerPool,
  MAX_WORKERS,
  type ThreadMode,
  type WorkerPool,
  type WorkerPoolOptions,
} from "./simd/workers.ts";
export { CoreBuffer, FloatBuffer, MatrixBuffer, PoseBuffer, VertexBuffer } from "./simd/buffers.ts";
export {
  ImmutableBuffer,
  type InfluenceLists,
  ParentIndices,
  SkinMesh,
  type SkinMeshData,
  WeightedBases,
} from "./simd/immutable.ts";
export * from "./simd/kernels.ts";

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
export {
  ClipBudgetError,
  clipBytes,
  ClipWorkError,
  DEFAULT_CLIP_BUDGET,
  setClipBudget,
} from "./animation/clip_budget.ts";
export {
  CompactClip,
  compactClip,
  type CompactClipOptions,
  DEFAULT_CLIP_TOLERANCE,
  DEFAULT_VIRTUAL_DISTANCE,
  disposeClip,
} from "./animation/compact_clip.ts";
export { prepareClip, prepareClips } from "./animation/prepare_clip.ts";
export {
  ClipFileError,
  loadCompactClips,
  saveCompactClips,
  type SaveCompactClipsOptions,
} from "./animation/clip_file.ts";
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
export {
  addLayer,
  getCrossedMarkers,
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
export {
  type ClipMarker,
  getClipMarkers,
  type MarkerHit,
  MAX_HITS_PER_PLAYBACK,
  MAX_MARKERS,
  setClipMarkers,
} from "./animation/markers.ts";
export {
  disableRootMotion,
  enableRootMotion,
  getRootMotion,
  type RootMotion,
  type RootMotionOptions,
} from "./components/root_motion.ts";
export {
  addAimIK,
  addTwoBoneIK,
  type AimIKChain,
  type AimIKSettings,
  getIKDistance,
  getIKReached,
  IK_REACH_TOLERANCE,
  IKError,
  type JointRef,
  removeIK,
  setIKTarget,
  type TwoBoneIKChain,
  type TwoBoneIKSettings,
  updateIKChain,
  type Vector3,
} from "./components/ik.ts";
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
export * from "./gltf/mod.ts";
