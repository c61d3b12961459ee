/**
 * The retargeting build's math, in doubles: quaternions as 4 numbers at an
 * offset of a `Float64Array`, and joints as rows of {@linkcode JOINT_STRIDE}
 * numbers (translation, rotation, scale), local or in model space.
 *
 * Model space composes rotations and translations through the hierarchy,
 * with each parent's accumulated scale applied per axis to its children's
 * translations: exact for uniform scales (a glTF armature's 0.01), an
 * approximation under non-uniform ones, which no rig this is meant for has.
 *
 * @module
 */

import { PoseField, poseIndex } from "../simd/memory/layout.ts";

/** Numbers per joint row: translation (3), rotation (x, y, z, w), scale (3). */
export const JOINT_STRIDE = 10;
/** Offset of the translation in a joint row. */
export const T = 0;
/** Offset of the rotation in a joint row. */
export const Q = 3;
/** Offset of the scale in a joint row. */
export const S = 7;

/** The SoA×4 `pose` of `jointCount` joints as joint rows. */
export function jointRows(pose: ArrayLike<number>, jointCount: number): Float64Array {
  const rows = new Float64Array(jointCount * JOINT_STRIDE);
  for (let j = 0; j < jointCount; j++) {
    const o = j * JOINT_STRIDE;
    for (let c = 0; c < 10; c++) rows[o + c] = pose[poseIndex(j, (PoseField.TX + c) as PoseField)];
  }
  return rows;
}

/**
 * `out[oo..]` = `a[oa..]` × `b[ob..]` (Hamilton product; `out` may alias
 * either), or the conjugate of `a` × `b` (the inverse for unit ones).
 */
export function multiply(
  a: Float64Array,
  oa: number,
  b: Float64Array,
  ob: number,
  out: Float64Array,
  oo: number,
  conjugateA = false,
): void {
  const s = conjugateA ? -1 : 1;
  const ax = s * a[oa], ay = s * a[oa + 1], az = s * a[oa + 2], aw = a[oa + 3];
  const bx = b[ob], by = b[ob + 1], bz = b[ob + 2], bw = b[ob + 3];
  out[oo] = aw * bx + ax * bw + ay * bz - az * by;
  out[oo + 1] = aw * by - ax * bz + ay * bw + az * bx;
  out[oo + 2] = aw * bz + ax * by - ay * bx + az * bw;
  out[oo + 3] = aw * bw - ax * bx - ay * by - az * bz;
}

/** Rotates `v[ov..ov+3)` in place by the unit quaternion `q[oq..]` (or its inverse). */
export function rotate(q: Float64Array, oq: number, v: Float64Array, ov: number, inverse = false) {
  const s = inverse ? -1 : 1;
  const qx = s * q[oq], qy = s * q[oq + 1], qz = s * q[oq + 2], qw = q[oq + 3];
  const vx = v[ov], vy = v[ov + 1], vz = v[ov + 2];
  // v + 2w (q × v) + 2 q × (q × v)
  const cx = 2 * (qy * vz - qz * vy), cy = 2 * (qz * vx - qx * vz), cz = 2 * (qx * vy - qy * vx);
  v[ov] = vx + qw * cx + qy * cz - qz * cy;
  v[ov + 1] = vy + qw * cy + qz * cx - qx * cz;
  v[ov + 2] = vz + qw * cz + qx * cy - qy * cx;
}

/** Scales `q[o..o+4)` to unit length (a zero quaternion becomes the identity). */
export function normalize(q: Float64Array, o: number): void {
  const length = Math.hypot(q[o], q[o + 1], q[o + 2], q[o + 3]);
  if (!(length > 0)) {
    q[o] = q[o + 1] = q[o + 2] = 0, q[o + 3] = 1;
    return;
  }
  q[o] /= length, q[o + 1] /= length, q[o + 2] /= length, q[o + 3] /= length;
}

/**
 * Model-space rows of `local` (parents before children): rotation and
 * position of each joint, and its accumulated scale.
 */
export function toModel(
  parents: ArrayLike<number>,
  local: Float64Array,
  model: Float64Array,
): void {
  for (let j = 0; j < parents.length; j++) composeJoint(parents[j], j, local, model);
}

/** Model-space row of joint `j` from its local row and its parent's model row. */
export function composeJoint(
  parent: number,
  j: number,
  local: Float64Array,
  model: Float64Array,
): void {
  const o = j * JOINT_STRIDE;
  if (parent < 0) {
    for (let c = 0; c < JOINT_STRIDE; c++) model[o + c] = local[o + c];
    return;
  }
  const p = parent * JOINT_STRIDE;
  multiply(model, p + Q, local, o + Q, model, o + Q);
  for (let c = 0; c < 3; c++) {
    model[o + T + c] = local[o + T + c] * model[p + S + c];
    model[o + S + c] = local[o + S + c] * model[p + S + c];
  }
  rotate(model, p + Q, model, o + T);
  for (let c = 0; c < 3; c++) model[o + T + c] += model[p + T + c];
}

/** The rotation about +y by `angle` radians, into `out[o..o+4)`. */
export function yRotation(angle: number, out: Float64Array, o: number): void {
  out[o] = 0, out[o + 1] = Math.sin(angle / 2), out[o + 2] = 0, out[o + 3] = Math.cos(angle / 2);
}
