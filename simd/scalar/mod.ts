/**
 * Scalar TypeScript references of every kernel of the WebAssembly core.
 *
 * They define the kernels' semantics: the SIMD builds are tested against
 * them, and they run as the core's fallback where WebAssembly SIMD is not
 * available. They validate nothing; use the checked wrappers of the main
 * module for untrusted input. Layouts are described in `simd/memory/layout.ts`.
 *
 * @example Turning a pose into joint matrices
 * ```ts
 * import { quatToMat } from "@marrow/anim/reference";
 * import { poseFloats, poseIndex, PoseField } from "@marrow/anim/kernels";
 *
 * const pose = new Float32Array(poseFloats(1));
 * pose[poseIndex(0, PoseField.QW)] = 1;
 * pose[poseIndex(0, PoseField.SX)] = 1;
 * pose[poseIndex(0, PoseField.SY)] = 1;
 * pose[poseIndex(0, PoseField.SZ)] = 1;
 * const matrices = new Float32Array(12);
 * quatToMat(pose, matrices, 1);
 * ```
 * @module
 */

import { MATRIX_FLOATS, poseLane } from "../memory/layout.ts";
import { blendPosesByWeight, poseWeight } from "./_blend_poses.ts";

export { skinPositions, skinVertices, weightedBases } from "./skinning.ts";
export {
  DUAL_QUATERNION_FLOATS,
  paletteToDualQuaternions,
  skinDualQuaternions,
} from "./dual_quaternions.ts";
export { blendLayers, type LayerInput } from "./layers.ts";
export { localToModel, modelToLocal, multiplyMatrices } from "./hierarchy.ts";
export { addMorphTarget, type MorphTargetStream, morphVertices } from "./morph.ts";

/**
 * Joint poses (SoA×4 translation, rotation, scale) to 3x4 joint matrices,
 * `M = T * R * S`. Reads `ceil(count / 4)` pose groups, writes `count`
 * matrices.
 */
export function quatToMat(
  pose: Float32Array,
  matrices: Float32Array,
  count: number,
): void {
  for (let j = 0; j < count; j++) {
    const g = poseLane(j);
    const tx = pose[g], ty = pose[g + 4], tz = pose[g + 8];
    const x = pose[g + 12], y = pose[g + 16], z = pose[g + 20];
    const w = pose[g + 24];
    const sx = pose[g + 28], sy = pose[g + 32], sz = pose[g + 36];
    const x2 = x + x, y2 = y + y, z2 = z + z;
    const xx = x * x2, yy = y * y2, zz = z * z2;
    const xy = x * y2, xz = x * z2, yz = y * z2;
    const wx = w * x2, wy = w * y2, wz = w * z2;
    const m = j * MATRIX_FLOATS;
    matrices[m] = (1 - (yy + zz)) * sx;
    matrices[m + 1] = (xy - wz) * sy;
    matrices[m + 2] = (xz + wy) * sz;
    matrices[m + 3] = tx;
    matrices[m + 4] = (xy + wz) * sx;
    matrices[m + 5] = (1 - (xx + zz)) * sy;
    matrices[m + 6] = (yz - wx) * sz;
    matrices[m + 7] = ty;
    matrices[m + 8] = (xz - wy) * sx;
    matrices[m + 9] = (yz + wx) * sy;
    matrices[m + 10] = (1 - (xx + yy)) * sz;
    matrices[m + 11] = tz;
  }
}

/**
 * 3x4 joint matrices to SoA×4 poses: translation, scale (column lengths,
 * the x scale negated when the determinant is negative, as three.js does)
 * and rotation by Shoemake's method with the four cases chosen in the order
 * `trace > 0`, `m0 >= m5 && m0 >= m10`, `m5 >= m10`, else; the quaternion is
 * normalized. A zero scale column leaves that column zero. Writes all
 * `ceil(count / 4)` groups: padding lanes get the identity pose.
 */
export function matToQuat(
  matrices: Float32Array,
  pose: Float32Array,
  count: number,
): void {
  const lanes = Math.ceil(count / 4) * 4;
  for (let j = 0; j < lanes; j++) {
    const g = poseLane(j);
    if (j >= count) {
      pose[g] = pose[g + 4] = pose[g + 8] = 0;
      pose[g + 12] = pose[g + 16] = pose[g + 20] = 0;
      pose[g + 24] = 1;
      pose[g + 28] = pose[g + 32] = pose[g + 36] = 1;
      continue;
    }
    const m = j * MATRIX_FLOATS;
    let m0 = matrices[m], m1 = matrices[m + 1], m2 = matrices[m + 2];
    let m4 = matrices[m + 4], m5 = matrices[m + 5], m6 = matrices[m + 6];
    let m8 = matrices[m + 8], m9 = matrices[m + 9], m10 = matrices[m + 10];
    let sx = Math.fround(Math.sqrt(m0 * m0 + m4 * m4 + m8 * m8));
    const sy = Math.fround(Math.sqrt(m1 * m1 + m5 * m5 + m9 * m9));
    const sz = Math.fround(Math.sqrt(m2 * m2 + m6 * m6 + m10 * m10));
    const det = m0 * (m5 * m10 - m6 * m9) - m1 * (m4 * m10 - m6 * m8) +
      m2 * (m4 * m9 - m5 * m8);
    if (det < 0) sx = -sx;
    const ix = sx !== 0 ? 1 / sx : 0;
    const iy = sy !== 0 ? 1 / sy : 0;
    const iz = sz !== 0 ? 1 / sz : 0;
    m0 *= ix, m4 *= ix, m8 *= ix;
    m1 *= iy, m5 *= iy, m9 *= iy;
    m2 *= iz, m6 *= iz, m10 *= iz;
    let qx: number, qy: number, qz: number, qw: number;
    const trace = m0 + m5 + m10;
    if (trace > 0) {
      const s = 0.5 / Math.sqrt(trace + 1);
      qw = 0.25 / s;
      qx = (m9 - m6) * s;
      qy = (m2 - m8) * s;
      qz = (m4 - m1) * s;
    } else if (m0 >= m5 && m0 >= m10) {
      const s = 0.5 / Math.sqrt(1 + m0 - m5 - m10);
      qx = 0.25 / s;
      qw = (m9 - m6) * s;
      qy = (m1 + m4) * s;
      qz = (m2 + m8) * s;
    } else if (m5 >= m10) {
      const s = 0.5 / Math.sqrt(1 + m5 - m0 - m10);
      qy = 0.25 / s;
      qw = (m2 - m8) * s;
      qx = (m1 + m4) * s;
      qz = (m6 + m9) * s;
    } else {
      const s = 0.5 / Math.sqrt(1 + m10 - m0 - m5);
      qz = 0.25 / s;
      qw = (m4 - m1) * s;
      qx = (m2 + m8) * s;
      qy = (m6 + m9) * s;
    }
    const n = 1 / Math.sqrt(qx * qx + qy * qy + qz * qz + qw * qw);
    pose[g] = matrices[m + 3];
    pose[g + 4] = matrices[m + 7];
    pose[g + 8] = matrices[m + 11];
    pose[g + 12] = qx * n;
    pose[g + 16] = qy * n;
    pose[g + 20] = qz * n;
    pose[g + 24] = qw * n;
    pose[g + 28] = sx;
    pose[g + 32] = sy;
    pose[g + 36] = sz;
  }
}

/**
 * Blends two SoA×4 poses lane by lane over all `ceil(jointCount / 4)`
 * groups (padding lanes included): translation and scale
 * `a * (1 - weight) + b * weight`; rotation by nlerp along the shorter arc
 * (`b` negated when `dot(a, b) < 0`), normalized, the identity when the
 * blend is zero. `out` may be `a` or `b`. Used for cross-fades.
 */
export function blendPoses(
  a: Float32Array,
  b: Float32Array,
  out: Float32Array,
  jointCount: number,
  weight: number,
): void {
  poseWeight[0] = weight;
  blendPosesByWeight(a, b, out, jointCount);
}
export {
  type AimIKOptions,
  IK_REACH_TOLERANCE,
  type IKCorrection,
  type Quaternion,
  solveAimIK,
  solveTwoBoneIK,
  type TwoBoneIKOptions,
} from "./ik.ts";
