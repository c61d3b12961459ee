/**
 * Root motion math: a clip's root joint motion between two playback times
 * (across loop wraps, backwards), and its removal from a pose. Root motion
 * is the root's horizontal translation (x, z in its parent's space) and its
 * yaw (the twist of its rotation about the parent's +y axis).
 *
 * @module
 */

import { type Clip, type ClipChannel, sampleChannel, type WrapMode, wrapTime } from "./clip.ts";
import { PoseField, poseIndex } from "../simd/memory/layout.ts";
import { motionChannels } from "./_keyless_clip.ts";

/** The yaw of quaternion (x, y, z, w): its twist about +y, in radians. */
export function yawOf(qy: number, qw: number): number {
  return 2 * Math.atan2(qy, qw);
}

/** `a - b` as an angle in (-π, π]. */
function angleDifference(a: number, b: number): number {
  let d = (a - b) % (2 * Math.PI);
  if (d > Math.PI) d -= 2 * Math.PI;
  if (d <= -Math.PI) d += 2 * Math.PI;
  return d;
}

const channelsOf = new WeakMap<Clip, Map<number, [ClipChannel?, ClipChannel?]>>();

/** The root joint's translation and rotation channels of `clip`. */
function rootChannels(clip: Clip, joint: number): [ClipChannel?, ClipChannel?] {
  let byJoint = channelsOf.get(clip);
  if (!byJoint) channelsOf.set(clip, byJoint = new Map());
  let found = byJoint.get(joint);
  if (!found) {
    found = [
      motionChannels(clip).find((c) => c.joint === joint && c.path === "translation"),
      motionChannels(clip).find((c) => c.joint === joint && c.path === "rotation"),
    ];
    byJoint.set(joint, found);
  }
  return found;
}

const value = new Float64Array(4);

/** x, z and yaw of the root at clip time `time`; `rest` (x, z, yaw) where not animated. */
function rootAt(clip: Clip, joint: number, time: number, rest: ArrayLike<number>, out: number[]) {
  const [translation, rotation] = rootChannels(clip, joint);
  if (translation) {
    sampleChannel(translation, time, value);
    out[0] = value[0], out[1] = value[2];
  } else {
    out[0] = rest[0], out[1] = rest[1];
  }
  if (rotation) {
    sampleChannel(rotation, time, value);
    out[2] = yawOf(value[1], value[3]);
  } else {
    out[2] = rest[2];
  }
}

const a = [0, 0, 0], b = [0, 0, 0], start = [0, 0, 0], end = [0, 0, 0];

/**
 * Adds `weight` times the root motion of `clip` from playback time `from`
 * to `to` (unwrapped) to `out` (dx, dz, dyaw). A looping clip's motion
 * accumulates over its cycles: `P(u1) - P(u0) + (k1 - k0) (P(end) - P(0))`
 * for times `k d + u`.
 */
export function addRootMotion(
  clip: Clip,
  joint: number,
  wrap: WrapMode,
  from: number,
  to: number,
  rest: ArrayLike<number>,
  weight: number,
  out: Float64Array,
): void {
  const d = clip.duration;
  const u0 = wrapTime(from, d, wrap), u1 = wrapTime(to, d, wrap);
  rootAt(clip, joint, u0, rest, a);
  rootAt(clip, joint, u1, rest, b);
  out[0] += weight * (b[0] - a[0]);
  out[1] += weight * (b[1] - a[1]);
  out[2] += weight * angleDifference(b[2], a[2]);
  if (wrap !== "loop" || !(d > 0)) return;
  const cycles = Math.round((to - u1) / d) - Math.round((from - u0) / d);
  if (cycles === 0) return;
  rootAt(clip, joint, 0, rest, start);
  rootAt(clip, joint, d, rest, end);
  out[0] += weight * cycles * (end[0] - start[0]);
  out[1] += weight * cycles * (end[1] - start[1]);
  out[2] += weight * cycles * angleDifference(end[2], start[2]);
}

/** The rest values root motion restores: x, z and yaw of `joint` in `restPose`. */
export function restRoot(restPose: Float32Array, joint: number): Float64Array {
  return Float64Array.of(
    restPose[poseIndex(joint, PoseField.TX)],
    restPose[poseIndex(joint, PoseField.TZ)],
    yawOf(restPose[poseIndex(joint, PoseField.QY)], restPose[poseIndex(joint, PoseField.QW)]),
  );
}

/**
 * Removes root motion from the pose (SoA×4) at float `offset` of `pose`:
 * the root's x and z become the rest pose's, and its yaw the rest pose's
 * (`q = yaw(rest - yaw(q)) * q`).
 */
export function removeRootMotion(
  pose: Float32Array,
  joint: number,
  rest: ArrayLike<number>,
  offset = 0,
): void {
  pose[offset + poseIndex(joint, PoseField.TX)] = rest[0];
  pose[offset + poseIndex(joint, PoseField.TZ)] = rest[1];
  const ix = offset + poseIndex(joint, PoseField.QX), iy = offset + poseIndex(joint, PoseField.QY);
  const iz = offset + poseIndex(joint, PoseField.QZ), iw = offset + poseIndex(joint, PoseField.QW);
  const x = pose[ix], y = pose[iy], z = pose[iz], w = pose[iw];
  const half = (rest[2] - yawOf(y, w)) / 2;
  const s = Math.sin(half), c = Math.cos(half);
  // (0, s, 0, c) * (x, y, z, w)
  pose[ix] = c * x + s * z;
  pose[iy] = c * y + s * w;
  pose[iz] = c * z - s * x;
  pose[iw] = c * w - s * y;
}
