/**
 * Plain-data definitions that the glTF importer produces and the component
 * builders consume. Layouts: see `simd/memory/layout.ts`.
 *
 * @module
 */

import type { MorphTargetDefinition } from "./morph.ts";

/** A skeleton as plain data, joints ordered parents-before-children. */
export interface SkeletonDefinition {
  /** Joint names (may be empty strings). */
  readonly names: readonly string[];
  /** Parent of each joint, -1 for roots; every parent comes before its children. */
  readonly parents: Int16Array;
  /** Rest (bind-time local) pose, SoA×4: `poseFloats(jointCount)` floats. */
  readonly restPose: Float32Array;
  /** Inverse bind matrix of each joint, 3x4 row-major, 12 floats each. */
  readonly inverseBind: Float32Array;
}

/** A skinned mesh as plain data, in the skeleton's joint numbering. */
export interface SkinDefinition {
  /** Number of vertices. */
  readonly vertexCount: number;
  /** Bind positions, 4 floats per vertex (w = 1). */
  readonly positions: Float32Array;
  /** Bind normals, 4 floats per vertex (w = 0), if the mesh has them. */
  readonly normals?: Float32Array;
  /** Bind tangents, 4 floats per vertex (w = handedness ±1), if any. */
  readonly tangents?: Float32Array;
  /** Influences per vertex (1..255), in vertex order. */
  readonly influenceCounts: Uint8Array;
  /** Joint of each influence, vertex by vertex (skeleton joint indices). */
  readonly joints: Uint16Array;
  /** Weight of each influence, vertex by vertex, sorted by decreasing weight. */
  readonly weights: Float32Array;
  /** Morph targets of the mesh, displacing its bind streams in its vertex order, if any. */
  readonly morphTargets?: readonly MorphTargetDefinition[];
}
