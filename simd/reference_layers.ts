/**
 * Scalar reference of the layer blending kernel (`blendLayersBatch` of the
 * core): the semantics the SIMD build must reproduce.
 *
 * @module
 */

import { poseLane } from "./layout.ts";

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
  /** Additive layers: the pose the clip is relative to. */
  readonly reference?: Float32Array;
}

const T = [0, 1, 2], S = [7, 8, 9];

/**
 * Blends `layers` into `out` over all `ceil(jointCount / 4)` groups (padding
 * lanes included), per joint `j` and property (translation, rotation,
 * scale), with `w_i = weight_i * mask_i[property lanes + j]`:
 *
 * 1. Override layers (the first `overrideCount`): the weighted sum of their
 *    translations, scales and rotations (each rotation negated when its dot
 *    product with the sum so far is negative: the shorter arc), plus the
 *    rest pose weighted `max(threshold - sum w_i, 0)`, per property;
 *    translation and scale divided by their total weight, rotation normalized (the identity if 0),
 *    as ozz-animation's BlendingJob does.
 * 2. Additive layers (the rest, in order), as three.js applies clips made
 *    by `AnimationUtils.makeClipAdditive`: translation and scale
 *    `+= w * (pose - reference)`; rotation `q = normalize(q * e)` with `e`
 *    the nlerp from the identity to `d = conjugate(reference) * pose` by `w`
 *    along the shorter arc (`d` negated when `d.w < 0`).
 *
 * `threshold` must be > 0.
 */
export function blendLayers(
  out: Float32Array,
  jointCount: number,
  rest: Float32Array,
  layers: readonly LayerInput[],
  overrideCount: number,
  threshold: number,
): void {
  const lanes = Math.ceil(jointCount / 4) * 4;
  const acc = new Float64Array(10);
  // Mask offset of each pose field: translation, rotation, scale.
  const part = (c: number) => (c < 3 ? 0 : c < 7 ? lanes : 2 * lanes);
  for (let j = 0; j < lanes; j++) {
    const g = poseLane(j);
    acc.fill(0);
    const total = [0, 0, 0];
    for (let i = 0; i <= overrideCount; i++) {
      const last = i === overrideCount;
      const p = last ? rest : layers[i].pose;
      const w = [0, 1, 2].map((k) =>
        last ? Math.max(threshold - total[k], 0) : layers[i].weight * layers[i].mask[k * lanes + j]
      );
      let dot = 0;
      for (let c = 3; c < 7; c++) dot += acc[c] * p[g + c * 4];
      for (let c = 0; c < 10; c++) {
        const wc = w[part(c) / lanes];
        acc[c] += p[g + c * 4] * (c >= 3 && c < 7 && dot < 0 ? -wc : wc);
      }
      for (let k = 0; k < 3; k++) total[k] += w[k];
    }
    for (const c of T) acc[c] /= total[0];
    for (const c of S) acc[c] /= total[2];
    normalize(acc);
    for (let i = overrideCount; i < layers.length; i++) {
      const { pose: p, reference: r, weight, mask } = layers[i];
      for (const c of [...T, ...S]) {
        acc[c] += (p[g + c * 4] - r![g + c * 4]) * weight * mask[part(c) + j];
      }
      const w = weight * mask[lanes + j];
      const [ax, ay, az, aw] = [3, 4, 5, 6].map((c) => r![g + c * 4]);
      const [bx, by, bz, bw] = [3, 4, 5, 6].map((c) => p[g + c * 4]);
      const dx = aw * bx + az * by - ax * bw - ay * bz;
      const dy = aw * by + ax * bz - ay * bw - az * bx;
      const dz = aw * bz + ay * bx - ax * by - az * bw;
      const dw = aw * bw + ax * bx + ay * by + az * bz;
      const ws = dw < 0 ? -w : w;
      const ex = dx * ws, ey = dy * ws, ez = dz * ws, ew = dw * ws + 1 - w;
      const [qx, qy, qz, qw] = [acc[3], acc[4], acc[5], acc[6]];
      acc[3] = qw * ex + qx * ew + qy * ez - qz * ey;
      acc[4] = qw * ey + qy * ew + qz * ex - qx * ez;
      acc[5] = qw * ez + qz * ew + qx * ey - qy * ex;
      acc[6] = qw * ew - qx * ex - qy * ey - qz * ez;
      normalize(acc);
    }
    for (let c = 0; c < 10; c++) out[g + c * 4] = acc[c];
  }
}

/** Normalizes the rotation `acc[3..7)`; the identity where its length is not > 0. */
function normalize(acc: Float64Array): void {
  const len = Math.hypot(acc[3], acc[4], acc[5], acc[6]);
  if (len > 0) {
    for (let c = 3; c < 7; c++) acc[c] /= len;
  } else {
    acc[3] = acc[4] = acc[5] = 0, acc[6] = 1;
  }
}
