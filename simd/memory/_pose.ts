/**
 * Checks and writes of single joints in SoA×4 poses, shared by the buffer
 * API, the ECS write API and the non-finite checks before the kernels.
 *
 * @module
 */

import { poseLane } from "./layout.ts";

/** Names of the pose fields, in `PoseField` order, for error messages. */
export const POSE_FIELD_NAMES: readonly string[] = [
  "tx",
  "ty",
  "tz",
  "qx",
  "qy",
  "qz",
  "qw",
  "sx",
  "sy",
  "sz",
];

/**
 * The first non-finite value of joints `0..jointCount-1` of the pose that
 * starts `offset` floats into `pose`, as `[joint, field, value]`; padding
 * lanes are not part of the pose and are not looked at.
 */
export function findNonFinitePose(
  pose: Float32Array,
  jointCount: number,
  offset = 0,
): [number, string, number] | undefined {
  for (let j = 0; j < jointCount; j++) {
    const lane = offset + poseLane(j);
    for (let f = 0; f < 10; f++) {
      const value = pose[lane + f * 4];
      if (!Number.isFinite(value)) return [j, POSE_FIELD_NAMES[f], value];
    }
  }
  return undefined;
}

/**
 * Validates a joint's translation, rotation and scale, then writes them
 * into the pose that starts `offset` floats into `pose`, with the rotation
 * normalized when `normalize` is set (then a zero rotation is an error).
 * Errors start with `where` and name the joint and field; nothing is
 * written on error.
 */
export function writeJointPose(
  pose: Float32Array,
  offset: number,
  joint: number,
  translation: ArrayLike<number>,
  rotation: ArrayLike<number>,
  scale: ArrayLike<number>,
  where: string,
  normalize = false,
): void {
  const values = [...Array.from(translation), ...Array.from(rotation), ...Array.from(scale)];
  if (values.length !== 10) {
    throw new RangeError(
      `${where} joint ${joint}: expected 3 translation, 4 rotation and 3 scale values`,
    );
  }
  values.forEach((value, field) => {
    if (!Number.isFinite(value)) {
      throw new RangeError(`${where} joint ${joint} ${POSE_FIELD_NAMES[field]} is ${value}`);
    }
  });
  if (normalize) {
    const length = Math.hypot(values[3], values[4], values[5], values[6]);
    if (!(length > 0)) throw new RangeError(`${where} joint ${joint}: rotation has length 0`);
    for (let i = 3; i < 7; i++) values[i] /= length;
  }
  const lane = offset + poseLane(joint);
  values.forEach((value, field) => pose[lane + field * 4] = value);
}
