/**
 * Below the ECS layer: a WebAssembly {@linkcode Core} (one linear memory and
 * the kernels that run on it), buffers in its memory
 * ({@linkcode PoseBuffer}, {@linkcode MatrixBuffer}, {@linkcode VertexBuffer}
 * and the immutable {@linkcode ParentIndices}, {@linkcode SkinMesh},
 * {@linkcode WeightedBases}), the checked kernels on them
 * ({@linkcode quatToMat}, {@linkcode localToModel},
 * {@linkcode multiplyMatrices}, {@linkcode skinVertices},
 * {@linkcode skinPositions}, {@linkcode blendPoses} and the inverses
 * {@linkcode matToQuat} and {@linkcode modelToLocal}), the worker pool
 * ({@linkcode createWorkerPool}, for `createAnimationPipeline`'s `pool`) and
 * the memory layouts ({@linkcode poseIndex}, {@linkcode PoseField}: how to
 * read `getPose`).
 *
 * @example Reading a joint's rotation from an entity's pose
 * ```ts
 * import { addEntity, createWorld } from "bitecs";
 * import { addCharacter, createAnimation, getPose, SkeletonAsset } from "@marrow/anim";
 * import { PoseField, poseIndex } from "@marrow/anim/kernels";
 * import { createCylinder } from "@marrow/anim/procedural";
 *
 * const world = createWorld();
 * createAnimation(world);
 * using skeleton = new SkeletonAsset(createCylinder({ joints: 4 }).skeleton);
 * const eid = addEntity(world);
 * addCharacter(world, eid, skeleton);
 * const qw = getPose(world, eid)[poseIndex(2, PoseField.QW)]; // joint 2's rest rotation
 * ```
 *
 * @module
 */

export * from "./simd/memory/layout.ts";
export { Core, type CoreBuild, type CoreOptions } from "./simd/memory/core.ts";
export {
  createWorkerPool,
  MAX_WORKERS,
  type ThreadMode,
  type WorkerPool,
  type WorkerPoolOptions,
} from "./simd/pool/workers.ts";
export {
  CoreBuffer,
  FloatBuffer,
  MatrixBuffer,
  PoseBuffer,
  VertexBuffer,
} from "./simd/memory/buffers.ts";
export {
  ImmutableBuffer,
  type InfluenceLists,
  ParentIndices,
  SkinMesh,
  type SkinMeshData,
  WeightedBases,
} from "./simd/memory/immutable.ts";
export * from "./simd/kernels/kernels.ts";
