/**
 * The morph kernel's scalar twin: a bind stream (4 floats per vertex)
 * displaced by morph targets, `out = base + sum_i w_i * d_i` in x, y, z
 * (w, a tangent's handedness, is the base's), each sum clamped to
 * ±{@linkcode MAX_MESH_MAGNITUDE} (the bind streams' own bound) so that no
 * weight or displacement hands the skinning kernels a value they were not
 * checked for.
 *
 * Every step rounds to f32 as the WebAssembly builds do (a multiply, then
 * an add; no fused multiply-add), so that every build writes the same bits.
 *
 * @module
 */

import { MAX_MESH_MAGNITUDE } from "../abi.ts";

/** The clamp bound as the kernels hold it (an f32). */
const LIMIT = Math.fround(MAX_MESH_MAGNITUDE);

/** One target's displacements of one stream: a vertex list, or a contiguous range. */
export interface MorphTargetStream {
  /** Vertices moved, increasing; absent for the range `first .. first + count`. */
  readonly indices?: Uint32Array;
  /** First vertex of the range when there are no indices. */
  readonly first: number;
  /** Vertices moved. */
  readonly count: number;
  /** 4 floats per vertex moved: x, y, z, then one the kernel ignores. */
  readonly deltas: Float32Array;
}

/**
 * Adds `weight` times `target` to the first `vertexCount` vertices of
 * `out` (4 floats each) in x, y, z, each sum clamped to
 * ±{@linkcode MAX_MESH_MAGNITUDE}. A range is cut at `vertexCount` and a
 * listed vertex at or beyond it skipped, as the core does, so that no
 * target reaches past the stream.
 */
export function addMorphTarget(
  out: Float32Array,
  vertexCount: number,
  target: MorphTargetStream,
  weight: number,
): void {
  const w = Math.fround(weight), { indices, deltas, first, count } = target;
  if (indices === undefined && first >= vertexCount) return;
  const n = indices === undefined ? Math.min(count, vertexCount - first) : count;
  for (let k = 0; k < n; k++) {
    const v = indices === undefined ? first + k : indices[k];
    if (v >= vertexCount) continue;
    const o = v * 4, d = k * 4;
    const x = Math.fround(out[o] + Math.fround(w * deltas[d]));
    const y = Math.fround(out[o + 1] + Math.fround(w * deltas[d + 1]));
    const z = Math.fround(out[o + 2] + Math.fround(w * deltas[d + 2]));
    out[o] = x > LIMIT ? LIMIT : x < -LIMIT ? -LIMIT : x;
    out[o + 1] = y > LIMIT ? LIMIT : y < -LIMIT ? -LIMIT : y;
    out[o + 2] = z > LIMIT ? LIMIT : z < -LIMIT ? -LIMIT : z;
  }
}

/**
 * Writes the first `vertexCount` vertices of `out` (4 floats each): those
 * of `base` displaced by `targets[t]` with weight `weights[t]` for each
 * target `t` whose weight is not zero, in target order
 * ({@linkcode addMorphTarget}). `out` may be `base`.
 */
export function morphVertices(
  base: Float32Array,
  out: Float32Array,
  vertexCount: number,
  targets: ArrayLike<MorphTargetStream | undefined>,
  weights: ArrayLike<number>,
): void {
  if (out !== base) out.set(base.subarray(0, vertexCount * 4));
  for (let t = 0; t < targets.length; t++) {
    const target = targets[t], w = weights[t];
    if (w !== 0 && target !== undefined) addMorphTarget(out, vertexCount, target, w);
  }
}
