/**
 * {@linkcode SkinAsset}: a skinned mesh built once for a skeleton and
 * shared by every entity that wears it.
 *
 * Building a skin validates it, renormalizes each vertex's weights to sum to
 * one (as three.js's `normalizeSkinWeights` does: real assets often have
 * sums off by quantization or by mistake), sorts each vertex's influences by
 * decreasing weight, and orders the vertices by influence count so the core
 * runs one specialised loop per count. Skinned output is in that order:
 * output vertex `i` is source vertex `vertexOrder[i]`; pass index buffers
 * through {@linkcode SkinAsset.remapIndices}.
 *
 * @module
 */

import { type Core, SkinMesh } from "../simd/core.ts";
import { VERTEX_FLOATS } from "../simd/layout.ts";
import type { SkinDefinition } from "./definitions.ts";
import type { SkeletonAsset } from "./skeleton_asset.ts";

export type { SkinDefinition } from "./definitions.ts";

/** An immutable skinned mesh for one skeleton, stored in its core. */
export class SkinAsset {
  /** The skeleton the mesh is bound to. */
  readonly skeleton: SkeletonAsset;
  /** Number of vertices. */
  readonly vertexCount: number;
  /** Whether the mesh has bind normals. */
  readonly hasNormals: boolean;
  /** Whether the mesh has bind tangents. */
  readonly hasTangents: boolean;
  /** Most influences of any vertex. */
  readonly maxInfluences: number;
  /** Output vertex `i` is source vertex `vertexOrder[i]`. */
  readonly vertexOrder: Uint32Array;
  /** Position of source vertex `v` in the output: the inverse of `vertexOrder`. */
  readonly outputIndex: Uint32Array;
  /** @internal The collapsed-palette mesh in the core. */
  readonly mesh: SkinMesh;

  /**
   * Validates `definition` against `skeleton` and builds the skin. Throws a
   * `RangeError` naming the field and vertex of the first problem: a joint
   * index beyond the skeleton, a weight that is NaN or negative, weights of
   * a vertex summing to zero, a stream shorter than the vertex count, or a
   * non-finite position, normal or tangent.
   */
  constructor(skeleton: SkeletonAsset, definition: SkinDefinition) {
    const { vertexCount, influenceCounts, joints, weights } = definition;
    if (!Number.isInteger(vertexCount) || vertexCount < 0) {
      throw new RangeError(`vertexCount: expected a whole number >= 0, got ${vertexCount}`);
    }
    if (!influenceCounts || influenceCounts.length !== vertexCount) {
      throw new RangeError(
        `influenceCounts: expected ${vertexCount} counts, got ${influenceCounts?.length}`,
      );
    }
    const floats = vertexCount * VERTEX_FLOATS;
    for (const name of ["positions", "normals", "tangents"] as const) {
      const stream = definition[name];
      if (!stream) {
        if (name === "positions") throw new RangeError("positions: required");
        continue;
      }
      if (stream.length < floats) {
        throw new RangeError(`${name}: expected ${floats} floats, got ${stream.length}`);
      }
      for (let i = 0; i < floats; i++) {
        if (!Number.isFinite(stream[i])) {
          throw new RangeError(`${name}: vertex ${i >> 2} component ${i & 3} is ${stream[i]}`);
        }
      }
    }
    // Sort each vertex's influences and renormalize, validating as we go.
    let total = 0;
    for (let v = 0; v < vertexCount; v++) {
      const n = influenceCounts[v];
      if (n < 1) throw new RangeError(`influenceCounts: vertex ${v} has no influence`);
      total += n;
    }
    if (joints.length < total || weights.length < total) {
      throw new RangeError(
        `joints/weights: the influence counts need ${total} entries, got ${joints.length} joints and ${weights.length} weights`,
      );
    }
    const sortedJoints = new Uint16Array(total);
    const sortedWeights = new Float32Array(total);
    const starts = new Uint32Array(vertexCount);
    let maxInfluences = 0;
    for (let v = 0, k = 0; v < vertexCount; v++) {
      const n = influenceCounts[v];
      starts[v] = k;
      maxInfluences = Math.max(maxInfluences, n);
      let sum = 0;
      const order: number[] = [];
      for (let i = 0; i < n; i++) {
        const j = joints[k + i], w = weights[k + i];
        if (j >= skeleton.jointCount) {
          throw new RangeError(
            `joints: vertex ${v} influence ${i} uses joint ${j}, but the skeleton has ${skeleton.jointCount} joints`,
          );
        }
        if (!(w >= 0) || !Number.isFinite(w)) {
          throw new RangeError(`weights: vertex ${v} influence ${i} is ${w}`);
        }
        sum += w;
        order.push(i);
      }
      if (!(sum > 0)) throw new RangeError(`weights: vertex ${v}: weights sum to zero`);
      order.sort((a, b) => weights[k + b] - weights[k + a]);
      for (let i = 0; i < n; i++) {
        sortedJoints[k + i] = joints[k + order[i]];
        sortedWeights[k + i] = weights[k + order[i]] / sum;
      }
      k += n;
    }
    // Stable order by influence count: one part per count.
    const vertexOrder = new Uint32Array(vertexCount);
    for (let v = 0; v < vertexCount; v++) vertexOrder[v] = v;
    vertexOrder.sort((a, b) => influenceCounts[a] - influenceCounts[b] || a - b);
    const outputIndex = new Uint32Array(vertexCount);
    const parts: number[] = [];
    const partJoints = new Uint16Array(total);
    const partWeights = new Float32Array(total);
    const reorder = (stream: Float32Array | undefined) => {
      if (!stream) return undefined;
      const out = new Float32Array(floats);
      for (let i = 0; i < vertexCount; i++) {
        out.set(stream.subarray(vertexOrder[i] * 4, vertexOrder[i] * 4 + 4), i * 4);
      }
      return out;
    };
    for (let i = 0, k = 0; i < vertexCount; i++) {
      const v = vertexOrder[i], n = influenceCounts[v];
      outputIndex[v] = i;
      if (parts.length && parts[parts.length - 2] === n) parts[parts.length - 1]++;
      else parts.push(n, 1);
      partJoints.set(sortedJoints.subarray(starts[v], starts[v] + n), k);
      partWeights.set(sortedWeights.subarray(starts[v], starts[v] + n), k);
      k += n;
    }
    const positions = reorder(definition.positions)!;
    this.mesh = new SkinMesh({
      parts,
      joints: partJoints,
      weights: partWeights,
      positions,
      normals: reorder(definition.normals),
      tangents: reorder(definition.tangents),
    }, skeleton.core);
    this.skeleton = skeleton;
    this.vertexCount = vertexCount;
    this.hasNormals = !!definition.normals;
    this.hasTangents = !!definition.tangents;
    this.maxInfluences = maxInfluences;
    this.vertexOrder = vertexOrder;
    this.outputIndex = outputIndex;
  }

  /** The core holding the skin. */
  get core(): Core {
    return this.skeleton.core;
  }

  /** Maps source vertex indices (an index buffer) to output vertex indices. */
  remapIndices(indices: ArrayLike<number>): Uint32Array {
    const out = new Uint32Array(indices.length);
    for (let i = 0; i < indices.length; i++) {
      const v = indices[i];
      if (!(v >= 0 && v < this.vertexCount)) {
        throw new RangeError(
          `indices[${i}]: vertex ${v} is out of range 0..${this.vertexCount - 1}`,
        );
      }
      out[i] = this.outputIndex[v];
    }
    return out;
  }
}
