/**
 * Memory layouts shared by the scalar reference, the WebAssembly core and
 * the components. All data is `f32` unless stated; see `../shared/design/math.md`
 * in the development tree for the math.
 *
 * - **Joint pose (SoA×4)**: joints are stored in groups of four. A group is
 *   {@linkcode POSE_GROUP_FLOATS} floats: ten lanes-of-four, in the order of
 *   {@linkcode PoseField} (tx, ty, tz, qx, qy, qz, qw, sx, sy, sz). Joint `j`,
 *   field `f` lives at `(j >> 2) * 40 + f * 4 + (j & 3)`. A pose of `n` joints
 *   has `ceil(n / 4)` groups; the padding lanes of the last group are part of
 *   the buffer.
 * - **Joint matrix**: a 3x4 row-major affine matrix of
 *   {@linkcode MATRIX_FLOATS} floats, element (r, c) at `r * 4 + c`, the
 *   fourth row implicitly `0 0 0 1`.
 * - **Vertex streams**: four floats per vertex (16-byte stride): positions
 *   `(x, y, z, 1)`, normals `(x, y, z, 0)`, tangents `(x, y, z, handedness)`.
 *
 * @example Reading joint 5's rotation from a pose
 * ```ts
 * import { poseIndex, PoseField, poseFloats } from "@marrow/anim/kernels";
 *
 * const pose = new Float32Array(poseFloats(8));
 * pose[poseIndex(5, PoseField.QW)] = 1;
 * ```
 * @module
 */

import { SKIN_NORMALS, SKIN_RENORMALIZE, SKIN_TANGENTS } from "../wasm/assembly/abi.ts";
import { describeValue } from "./_checks.ts";

/** Floats in one SoA×4 pose group (ten fields × four joints). */
export const POSE_GROUP_FLOATS = 40;
/** Floats in one 3x4 joint matrix. */
export const MATRIX_FLOATS = 12;
/** Floats per vertex in a vertex stream. */
export const VERTEX_FLOATS = 4;

/** Field order inside a SoA×4 pose group. */
export const PoseField = {
  TX: 0,
  TY: 1,
  TZ: 2,
  QX: 3,
  QY: 4,
  QZ: 5,
  QW: 6,
  SX: 7,
  SY: 8,
  SZ: 9,
} as const;

/** One of the {@linkcode PoseField} values. */
export type PoseField = typeof PoseField[keyof typeof PoseField];

/**
 * Index of joint `joint`'s first field (`tx`) in a SoA×4 pose array: its
 * lane. Field `f` is `4 * f` further on.
 */
export function poseLane(joint: number): number {
  checkJointNumber("poseLane", "joint", joint);
  return (joint >> 2) * POSE_GROUP_FLOATS + (joint & 3);
}

/** Index of joint `joint`'s `field` in a SoA×4 pose array. */
export function poseIndex(joint: number, field: PoseField): number {
  if (!Number.isInteger(field) || field < 0 || field >= POSE_GROUP_FLOATS / 4) {
    throw new RangeError(`poseIndex: field: expected a PoseField, got ${describeValue(field)}`);
  }
  return poseLane(joint) + field * 4;
}

/** Number of floats a SoA×4 pose of `jointCount` joints occupies. */
export function poseFloats(jointCount: number): number {
  checkJointNumber("poseFloats", "jointCount", jointCount);
  return Math.ceil(jointCount / 4) * POSE_GROUP_FLOATS;
}

/** Past any skeleton's joints (2^15), and far from where the lane arithmetic overflows. */
const MAX_JOINT_NUMBER = 2 ** 24;

/** `value` must be a whole number in `0..MAX_JOINT_NUMBER`. */
function checkJointNumber(caller: string, argument: string, value: number): void {
  if (!Number.isInteger(value) || value < 0 || value > MAX_JOINT_NUMBER) {
    throw new RangeError(
      `${caller}: ${argument}: expected a whole number 0..${MAX_JOINT_NUMBER}, got ${
        describeValue(value)
      }`,
    );
  }
}

/** Flags of the collapsed-palette skinning kernel. */
export const SkinFlags: {
  /** Transform normals. */
  readonly NORMALS: 1;
  /** Transform tangents (xyz), copying the handedness in w. */
  readonly TANGENTS: 2;
  /** Renormalize transformed normals and tangents to unit length. */
  readonly RENORMALIZE: 4;
} = { NORMALS: SKIN_NORMALS, TANGENTS: SKIN_TANGENTS, RENORMALIZE: SKIN_RENORMALIZE };
