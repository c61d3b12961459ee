/**
 * Marrow: skeletal animation for ECS frame loops, on a WebAssembly SIMD
 * core with a scalar TypeScript fallback.
 *
 * The core's kernels, in frame order: {@linkcode quatToMat} (local pose to
 * matrices), {@linkcode localToModel}, {@linkcode multiplyMatrices} (model ×
 * inverse bind: the skinning palette), then {@linkcode skinPositions} or
 * {@linkcode skinVertices}; and the inverses {@linkcode matToQuat} and
 * {@linkcode modelToLocal}.
 *
 * @example
 * ```ts
 * import {
 *   Core, localToModel, MatrixBuffer, ParentIndices, PoseBuffer, quatToMat,
 * } from "@marrow/anim";
 *
 * console.log(Core.default.build); // "relaxed-simd", "simd" or "scalar"
 * const parents = new ParentIndices([-1, 0]);
 * const pose = new PoseBuffer(2);
 * pose.setJoint(1, [0, 2, 0], [0, 0, 0, 1]);
 * const local = new MatrixBuffer(2), model = new MatrixBuffer(2);
 * quatToMat(pose, local);
 * localToModel(local, model, parents);
 * ```
 * @module
 */

export * from "./simd/layout.ts";
export { Core, type CoreBuild, type CoreOptions } from "./simd/core.ts";
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
  JointMatComponent,
  JointQuatComponent,
  SkeletonComponent,
  SkinComponent,
} from "./components/world.ts";
export { type AnimationOptions, createAnimation, disposeAnimation } from "./components/world.ts";
export * from "./components/errors.ts";
export type { SkeletonDefinition, SkinDefinition } from "./animation/definitions.ts";
export { CoreAsset } from "./animation/core_asset.ts";
export { SkeletonAsset } from "./animation/skeleton_asset.ts";
export { SkinAsset, type SkinMeshRange } from "./animation/skin_asset.ts";
export {
  clipBytes,
  DEFAULT_CLIP_BUDGET,
  disposeClip,
  setClipBudget,
} from "./animation/baked_clip.ts";
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
  getSkinnedNormals,
  getSkinnedPositions,
  getSkinnedTangents,
  removeSkin,
  type SkinStreams,
} from "./components/skin.ts";
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
