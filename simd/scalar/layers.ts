/**
 * Scalar reference of the layer blending kernel (`blendLayersBatch` of the
 * core): the semantics the SIMD build must reproduce.
 *
 * @module
 */

import { poseLane } from "../memory/layout.ts";
import { hypotArgs, hypotOf } from "../kernels/internal.ts";

/** One layer as the kernel sees it. */
export interface LayerInput {
  /** The layer's sampled pose (SoA×4). */
  readonly pose: Float32Array;
  /**
   * Weights in [0, 1] per joint and property: three arrays of
   * `lanes = ceil(jointCount / 4) * 4` weights, for translation (`[0, lanes)`),
   * rotation and scale.
   */
  readonly mask: Float32Array;
  /** The layer's weight in [0, 1]. */
  readonly weight: number;
  /**
   * Layers after the blended ones: the pose an additive layer's clip is
   * relative to; none for an override layer.
   */
  readonly reference?: Float32Array;
}

/** {@linkcode blendLayers}' accumulators, totals and weights per joint, rewritten by each (no array a call). */
const accumulators = new Float64Array(10),
  totals = new Float64Array(3),
  weights = new Float64Array(3),
  /** The rotation's weight for `overrideRotation` and `additiveRotation` (a double argument would be boxed). */
  rotationWeight = new Float64Array(1);

/** @internal The threshold of the next {@linkcode blendLayersAtThreshold}. */
export const blendThreshold = new Float64Array(1);

/**
 * Blends `layers` into `out` over all `ceil(jointCount / 4)` groups (padding
 * lanes included), per joint `j` and property (translation, rotation,
 * scale), with `w_i = weight_i * mask_i[property lanes + j]`:
 *
 * 1. Blended layers (the first `blendCount`): the weighted sum of their
 *    translations, scales and rotations (each rotation negated when its dot
 *    product with the sum so far is negative: the shorter arc), plus the
 *    rest pose weighted `max(threshold - sum w_i, 0)`, per property;
 *    translation and scale divided by their total weight, rotation
 *    normalized (the identity if 0), as ozz-animation's BlendingJob does.
 * 2. The layers after them, in order, each on the result so far:
 *    - an override layer (no `reference`) replaces it by `w`: translation
 *      and scale `+= w * (pose - t)`; rotation the nlerp from it to the
 *      layer's by `w` along the shorter arc, the negated side being the
 *      lighter one (so that `w = 1` gives the layer's rotation and `w = 0`
 *      the one below, sign included);
 *    - an additive layer, as three.js applies clips made by
 *      `AnimationUtils.makeClipAdditive`: translation and scale
 *      `+= w * (pose - reference)`; rotation `q = normalize(q * e)` with `e`
 *      the nlerp from the identity to `d = conjugate(reference) * pose` by
 *      `w` along the shorter arc (`d` negated when `d.w < 0`).
 *
 * `threshold` must be > 0.
 */
export function blendLayers(
  out: Float32Array,
  jointCount: number,
  rest: Float32Array,
  layers: readonly LayerInput[],
  blendCount: number,
  threshold: number,
): void {
  blendThreshold[0] = threshold;
  blendLayersAtThreshold(out, jointCount, rest, layers, blendCount);
}

/**
 * @internal {@linkcode blendLayers} at the threshold in
 * {@linkcode blendThreshold} (a double argument would be a new heap number
 * a call where not inlined).
 */
export function blendLayersAtThreshold(
  out: Float32Array,
  jointCount: number,
  rest: Float32Array,
  layers: readonly LayerInput[],
  blendCount: number,
): void {
  const threshold = blendThreshold[0];
  const lanes = Math.ceil(jointCount / 4) * 4;
  // Accumulators (t, q, s as in a pose group), totals and weights (t, r, s).
  const acc = accumulators, total = totals, w = weights;
  for (let j = 0; j < lanes; j++) {
    const g = poseLane(j);
    acc.fill(0);
    total.fill(0);
    for (let i = 0; i <= blendCount; i++) {
      const last = i === blendCount;
      const p = last ? rest : layers[i].pose;
      if (last) {
        for (let k = 0; k < 3; k++) w[k] = Math.max(threshold - total[k], 0);
      } else {
        const { weight, mask } = layers[i];
        for (let k = 0; k < 3; k++) w[k] = weight * mask[k * lanes + j];
      }
      let dot = 0;
      for (let c = 3; c < 7; c++) dot += acc[c] * p[g + c * 4];
      const wr = dot < 0 ? -w[1] : w[1];
      for (let c = 0; c < 3; c++) acc[c] += p[g + c * 4] * w[0];
      for (let c = 3; c < 7; c++) acc[c] += p[g + c * 4] * wr;
      for (let c = 7; c < 10; c++) acc[c] += p[g + c * 4] * w[2];
      for (let k = 0; k < 3; k++) total[k] += w[k];
    }
    for (let c = 0; c < 3; c++) acc[c] /= total[0];
    for (let c = 7; c < 10; c++) acc[c] /= total[2];
    normalize(acc);
    for (let i = blendCount; i < layers.length; i++) {
      const { pose: p, reference: r, weight, mask } = layers[i];
      const wt = weight * mask[j], wq = weight * mask[lanes + j], ws = weight * mask[2 * lanes + j];
      rotationWeight[0] = wq;
      if (r) {
        for (let c = 0; c < 3; c++) acc[c] += (p[g + c * 4] - r[g + c * 4]) * wt;
        for (let c = 7; c < 10; c++) acc[c] += (p[g + c * 4] - r[g + c * 4]) * ws;
        additiveRotation(acc, r, p, g);
      } else {
        for (let c = 0; c < 3; c++) acc[c] += (p[g + c * 4] - acc[c]) * wt;
        for (let c = 7; c < 10; c++) acc[c] += (p[g + c * 4] - acc[c]) * ws;
        overrideRotation(acc, p, g);
      }
    }
    for (let c = 0; c < 10; c++) out[g + c * 4] = acc[c];
  }
}

/**
 * The rotation `acc[3..7)` nlerped to the layer's (lane `g` of `p`) by `w`
 * ({@linkcode rotationWeight}) along the shorter arc: when their dot
 * product is negative, the one of the two weighted less is negated.
 */
function overrideRotation(acc: Float64Array, p: Float32Array, g: number): void {
  const w = rotationWeight[0];
  let dot = 0;
  for (let c = 3; c < 7; c++) dot += acc[c] * p[g + c * 4];
  const flip = dot < 0;
  const below = flip && w >= 0.5 ? w - 1 : 1 - w, layer = flip && w < 0.5 ? -w : w;
  for (let c = 3; c < 7; c++) acc[c] = acc[c] * below + p[g + c * 4] * layer;
  normalize(acc);
}

/**
 * `q = normalize(q * e)` for the rotation `acc[3..7)`, `e` the nlerp from
 * the identity to `conjugate(r) * p` (lane `g`) by `w`
 * ({@linkcode rotationWeight}) along the shorter arc.
 */
function additiveRotation(acc: Float64Array, r: Float32Array, p: Float32Array, g: number): void {
  const w = rotationWeight[0];
  const ax = r[g + 12], ay = r[g + 16], az = r[g + 20], aw = r[g + 24];
  const bx = p[g + 12], by = p[g + 16], bz = p[g + 20], bw = p[g + 24];
  const dx = aw * bx + az * by - ax * bw - ay * bz;
  const dy = aw * by + ax * bz - ay * bw - az * bx;
  const dz = aw * bz + ay * bx - ax * by - az * bw;
  const dw = aw * bw + ax * bx + ay * by + az * bz;
  const ws = dw < 0 ? -w : w;
  const ex = dx * ws, ey = dy * ws, ez = dz * ws, ew = dw * ws + 1 - w;
  const qx = acc[3], qy = acc[4], qz = acc[5], qw = acc[6];
  acc[3] = qw * ex + qx * ew + qy * ez - qz * ey;
  acc[4] = qw * ey + qy * ew + qz * ex - qx * ez;
  acc[5] = qw * ez + qz * ew + qx * ey - qy * ex;
  acc[6] = qw * ew - qx * ex - qy * ey - qz * ez;
  normalize(acc);
}

/** Normalizes the rotation `acc[3..7)`; the identity where its length is not > 0. */
function normalize(acc: Float64Array): void {
  hypotArgs[0] = acc[3], hypotArgs[1] = acc[4], hypotArgs[2] = acc[5], hypotArgs[3] = acc[6];
  hypotOf(4);
  const len = hypotArgs[4];
  if (len > 0) {
    for (let c = 3; c < 7; c++) acc[c] /= len;
  } else {
    acc[3] = acc[4] = acc[5] = 0, acc[6] = 1;
  }
}
