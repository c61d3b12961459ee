/**
 * The scalar morph kernel: a bind stream (4 floats per vertex) copied and
 * displaced by the active morph targets, `out = base + sum_i w_i * d_i`,
 * each target visited only when its weight is not zero and only at the
 * vertices it moves (an index list, or a contiguous range). Each sum is
 * clamped to ±1e18 (`MAX_MESH_MAGNITUDE`, the bind streams' own bound) so
 * that no weight or displacement can hand the skinning kernels a value
 * they were not checked for.
 *
 * @module
 */

import { MAX_MESH_MAGNITUDE } from "./asset_layout.ts";
import type { SkinAsset } from "./skin_asset.ts";
import type { PreparedMorph } from "./_morph_prepare.ts";

/** One target's displacements of one stream, in a skin's output vertex order. */
export interface MorphStream {
  /** Output vertices moved, increasing; absent for the range `first .. first + count`. */
  readonly indices?: Uint32Array;
  /** First vertex of the range when there are no indices. */
  readonly first: number;
  /** Vertices moved. */
  readonly count: number;
  /** 4 floats per vertex moved: x, y, z, 0 (a tangent's handedness is not displaced). */
  readonly deltas: Float32Array;
}

const LIMIT = MAX_MESH_MAGNITUDE;

/**
 * Writes `out` (4 floats per vertex, as long as `base`): the bind stream
 * `base` displaced by `streams[t]` with weight `weights[t]` for each target
 * `t` whose weight is not zero. `weights` must be finite; every index is
 * the caller's to have checked (the skin built the streams). Plain arrays:
 * element access to the core's memory (a resizable buffer) costs more, so
 * the caller copies `out` there in one call.
 */
export function applyMorphTargets(
  base: Float32Array,
  out: Float32Array,
  streams: readonly (MorphStream | undefined)[],
  weights: ArrayLike<number>,
): void {
  out.set(base);
  for (let t = 0; t < streams.length; t++) {
    const w = weights[t], stream = streams[t];
    if (w === 0 || stream === undefined) continue;
    const { indices, deltas, count } = stream;
    for (let k = 0; k < count; k++) {
      const o = (indices === undefined ? stream.first + k : indices[k]) * 4, d = k * 4;
      const x = out[o] + w * deltas[d], y = out[o + 1] + w * deltas[d + 1];
      const z = out[o + 2] + w * deltas[d + 2];
      out[o] = x > LIMIT ? LIMIT : x < -LIMIT ? -LIMIT : x;
      out[o + 1] = y > LIMIT ? LIMIT : y < -LIMIT ? -LIMIT : y;
      out[o + 2] = z > LIMIT ? LIMIT : z < -LIMIT ? -LIMIT : z;
    }
  }
}

/** One entity's morph: its weights, and where its bind streams come from and go. */
export interface MorphedStreams {
  /** The skin whose targets these are. */
  readonly asset: SkinAsset;
  readonly prepared: PreparedMorph;
  /** One weight per target, finite. */
  readonly weights: Float32Array;
  /** The entity's block of morphed streams in the core. */
  readonly block: number;
  /** Byte offsets of the entity's morphed positions, normals and tangents (0: not morphed). */
  readonly outputs: readonly number[];
  /** Scratch for the entity's joint boxes at its weights: 6 floats per joint. */
  readonly boxes: Float32Array;
}

/**
 * The joints' bind-space boxes of `morph`'s entity at its weights (into
 * `morph.boxes`): each joint's box of the skin's bind positions `base`
 * plus the weighted displacement boxes of the active targets, so that it
 * holds the joint's morphed vertices.
 */
export function morphedJointBoxes(morph: MorphedStreams, base: Float32Array): Float32Array {
  const { boxes, weights } = morph, displaced = morph.prepared.jointBoxes;
  boxes.set(base);
  const size = boxes.length;
  for (let t = 0; t < weights.length; t++) {
    const w = weights[t];
    if (w === 0) continue;
    // A negative weight swaps a box's ends.
    const lo = w > 0 ? 0 : 3, hi = 3 - lo;
    for (let b = 0, d = t * size; b < size; b += 6, d += 6) {
      for (let r = 0; r < 3; r++) {
        boxes[b + r] += w * displaced[d + lo + r];
        boxes[b + 3 + r] += w * displaced[d + hi + r];
      }
    }
  }
  return boxes;
}

/** Morphs every displaced stream of `morph` into the core's memory `f32`. */
export function applyMorphToStreams(f32: Float32Array, morph: MorphedStreams): void {
  const { bases, scratch, streams } = morph.prepared;
  for (let s = 0; s < 3; s++) {
    const out = morph.outputs[s], base = bases[s];
    if (out === 0 || base === undefined) continue;
    applyMorphTargets(base, scratch, streams[s], morph.weights);
    f32.set(scratch, out >> 2);
  }
}
