/**
 * Marrow: skeletal animation for bitecs frame loops, on a WebAssembly SIMD
 * core with a scalar TypeScript fallback of identical semantics.
 *
 * A game creates its bitecs world, makes it animatable with
 * {@linkcode createAnimation}, builds shared assets once (from `importGltf`
 * and `createCharacterAssets`, or {@linkcode SkeletonAsset} and
 * {@linkcode SkinAsset} from code), gives entities their components
 * ({@linkcode addCharacter}, {@linkcode playClip}) and runs the frame:
 * sample clips → quat→mat → transform skeleton → IK → × inverse bind → skin,
 * one call into the core per system for all entities (or for the entities
 * of the game's own query). Skinned output is read zero-copy
 * ({@linkcode getSkinnedPositions}) for a GPU buffer or a physics engine.
 *
 * @example Quick start: a glTF character, played, cross-faded and drawn by three.js
 * ```ts
 * import { addEntity, createWorld } from "bitecs";
 * import * as THREE from "three";
 * import {
 *   addCharacter,
 *   createAnimation,
 *   createAnimationPipeline,
 *   crossFadeTo,
 *   getSkinnedPositions,
 *   playClip,
 * } from "@marrow/anim";
 * import { createCharacterAssets, importGltf } from "@marrow/anim/gltf";
 *
 * // A path, a file: or http(s): URL, or bytes (`parseGltf` in a browser); here a test fixture.
 * const model = await importGltf(new URL("./tests/fixtures/gltf/Fox.glb", import.meta.url));
 * const fox = model.skeletons[0]; // one joint hierarchy: its skeleton, meshes and clips
 * const [survey, walk] = fox.clips; // "Survey", "Walk", "Run"
 *
 * const world = createWorld(); // the game's own bitecs world
 * createAnimation(world); // Marrow's components for it
 * // Built once, shared by every fox: the skeleton, one skin of all its meshes, its clips prepared.
 * const { skeleton, skin, primitives } = createCharacterAssets(fox);
 *
 * const eid = addEntity(world);
 * addCharacter(world, eid, skeleton, skin); // Skeleton, JointQuat, JointMat and Skin
 * playClip(world, eid, survey, { wrap: "loop" }); // "loop" (the default) or "clamp"
 *
 * // three.js reads the positions where Marrow writes them: 4 floats per vertex (x, y, z, 1).
 * // The vertices are in Marrow's order; each primitive's `draw` data is already in that order.
 * const positions = new THREE.InterleavedBuffer(getSkinnedPositions(world, eid), 4);
 * const meshes = primitives.map((primitive, m) => {
 *   const geometry = new THREE.BufferGeometry();
 *   geometry.setAttribute("position", new THREE.InterleavedBufferAttribute(positions, 3, 0));
 *   const first = skin.meshes[m].firstVertex;
 *   geometry.setIndex(Array.from(primitive.draw.indices, (i) => i + first));
 *   return new THREE.Mesh(geometry, new THREE.MeshStandardMaterial());
 * });
 *
 * const animate = createAnimationPipeline();
 * for (let frame = 0; frame < 120; frame++) {
 *   if (frame === 60) crossFadeTo(world, eid, walk, 0.3); // a 0.3 s cross-fade into the walk
 *   animate(world, 1 / 60);
 *   positions.array = getSkinnedPositions(world, eid); // the same memory, seen again
 *   positions.needsUpdate = true; // three.js uploads it when it next renders
 * }
 * console.log(`${meshes.length} mesh, ${skin.vertexCount} vertices skinned`);
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
