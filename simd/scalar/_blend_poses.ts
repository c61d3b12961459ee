/**
 * `blendPoses` (`mod.ts`) with its weight in {@linkcode poseWeight}: the
 * scalar core calls it per cross-fading row, and a double passed to a
 * function the compiler does not inline is a new heap number.
 *
 * @module
 */

import { poseLane } from "../memory/layout.ts";

/** The weight of the next {@linkcode blendPosesByWeight} (blending is synchronous). */
export const poseWeight = new Float64Array(1);

/** Pose fields lerped (translation, scale), made once (not an array a lane). */
const LERPED_FIELDS = [0, 1, 2, 7, 8, 9];

/** `blendPoses(a, b, out, jointCount, poseWeight[0])`. */
export function blendPosesByWeight(
  a: Float32Array,
  b: Float32Array,
  out: Float32Array,
  jointCount: number,
): void {
  const weight = poseWeight[0], s = 1 - weight;
  const lanes = Math.ceil(jointCount / 4) * 4;
  for (let j = 0; j < lanes; j++) {
    const g = poseLane(j);
    for (let k = 0; k < LERPED_FIELDS.length; k++) {
      const i = g + LERPED_FIELDS[k] * 4;
      out[i] = a[i] * s + b[i] * weight;
    }
    const qx = g + 12, qy = g + 16, qz = g + 20, qw = g + 24;
    const dot = a[qx] * b[qx] + a[qy] * b[qy] + a[qz] * b[qz] + a[qw] * b[qw];
    const t = dot < 0 ? -weight : weight;
    const x = a[qx] * s + b[qx] * t, y = a[qy] * s + b[qy] * t;
    const z = a[qz] * s + b[qz] * t, w = a[qw] * s + b[qw] * t;
    const len = Math.sqrt(x * x + y * y + z * z + w * w);
    if (len > 0) {
      out[qx] = x / len, out[qy] = y / len, out[qz] = z / len, out[qw] = w / len;
    } else {
      out[qx] = 0, out[qy] = 0, out[qz] = 0, out[qw] = 1;
    }
  }
}
