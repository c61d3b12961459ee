/**
 * Morph targets (blend shapes) as plain data: a mesh's targets
 * ({@linkcode MorphTargetDefinition}) and the animation channels that key
 * their weights ({@linkcode MorphWeightsChannel}), with the channels'
 * sampling ({@linkcode sampleMorphWeights}).
 *
 * A morphed vertex is `base + sum_i w_i * d_i` for positions, normals and
 * tangents (xyz; a tangent's handedness is not displaced), the glTF 2.0
 * formula. A target that has no displacement for an attribute displaces
 * that attribute by nothing: three.js's loader instead fills the missing
 * attribute with the base one and, as its shaders add `w * target`, draws
 * `p * (1 + w)`; Marrow does not copy that.
 *
 * @module
 */

import { type Interpolation, sampleKeysAt } from "./clip.ts";

/**
 * One attribute's displacements of one morph target, in the mesh's source
 * vertex order: every vertex (`vertices` absent) or only those listed.
 */
export interface MorphDisplacements {
  /**
   * The displaced vertices, strictly increasing, each below the mesh's
   * vertex count; absent when every vertex is displaced, in order.
   */
  readonly vertices?: Uint32Array;
  /** 3 floats (x, y, z) per displaced vertex. */
  readonly deltas: Float32Array;
}

/** One morph target of a mesh: what it adds to each stream at weight 1. */
export interface MorphTargetDefinition {
  /** The target's name (glTF `mesh.extras.targetNames`), or `""`. */
  readonly name: string;
  /** Position displacements, if the target moves positions. */
  readonly positions?: MorphDisplacements;
  /** Normal displacements, if the target has them and the mesh has normals. */
  readonly normals?: MorphDisplacements;
  /** Tangent displacements (xyz), if the target has them and the mesh has tangents. */
  readonly tangents?: MorphDisplacements;
}

/**
 * A glTF `weights` channel: the weights of every morph target of the mesh
 * that one node instances, keyed over time.
 */
export interface MorphWeightsChannel {
  /** glTF index of the animated node. */
  readonly node: number;
  /** glTF index of the node's mesh. */
  readonly mesh: number;
  /** The mesh's morph targets: weights per key. */
  readonly targetCount: number;
  /** How weights between keys are computed. */
  readonly interpolation: Interpolation;
  /** Key times in seconds, strictly increasing. */
  readonly times: Float32Array;
  /**
   * `targetCount` weights per key; for `CUBICSPLINE` each key holds the
   * in-tangents of every target, then the values, then the out-tangents,
   * as in glTF.
   */
  readonly values: Float32Array;
}

/** The time {@linkcode sampleMorphWeights} samples at, passed unboxed. */
const sampledTime = new Float64Array(1);

/**
 * Samples `channel` at `time` (seconds; the first key's weights before it,
 * the last key's after it) into `out[0..targetCount)`: `STEP` holds key
 * `i` on `[t_i, t_(i+1))`, `LINEAR` interpolates linearly, `CUBICSPLINE`
 * is the glTF Hermite spline with tangents scaled by the key interval,
 * grouped as three.js's `GLTFCubicSplineInterpolant`.
 */
export function sampleMorphWeights(
  channel: MorphWeightsChannel,
  time: number,
  out: Float32Array | Float64Array | number[],
): void {
  sampledTime[0] = time;
  const { times, values, targetCount, interpolation } = channel;
  sampleKeysAt(times, values, interpolation, targetCount, false, sampledTime, 0, out);
}
