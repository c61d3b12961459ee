/**
 * Checks and writes of single joints in SoA×4 poses, shared by the buffer
 * API, the ECS write API and the non-finite checks before the kernels.
 *
 * @module
 */

import { poseLane } from "./layout.ts";
import { describeValue, readInto } from "./_checks.ts";

/** One joint's ten fields while they are checked (writing a pose allocates nothing). */
const jointFields = new Float64Array(10);

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
  const values = jointFields;
  readPart(where, joint, "translation", translation, 3, 0);
  readPart(where, joint, "rotation", rotation, 4, 3);
  readPart(where, joint, "scale", scale, 3, 7);
  for (let field = 0; field < 10; field++) {
    if (!Number.isFinite(values[field])) {
      throw new RangeError(
        `${where} joint ${joint} ${POSE_FIELD_NAMES[field]} is ${describeValue(values[field])}`,
      );
    }
  }
  if (normalize) {
    const length = Math.hypot(values[3], values[4], values[5], values[6]);
    if (!(length > 0)) throw new RangeError(`${where} joint ${joint}: rotation has length 0`);
    for (let i = 3; i < 7; i++) values[i] /= length;
  }
  const lane = offset + poseLane(joint);
  for (let field = 0; field < 10; field++) pose[lane + field * 4] = values[field];
}

/** A part of a joint's pose into {@linkcode jointFields} from `at`, or a RangeError naming it. */
function readPart(
  where: string,
  joint: number,
  part: string,
  given: ArrayLike<number>,
  count: number,
  at: number,
): void {
  const length = readInto(given, count, jointFields, at);
  if (length !== count) {
    throw new RangeError(
      `${where} joint ${joint}: ${part}: expected ${count} values, got ${describeValue(length)}`,
    );
  }
}
