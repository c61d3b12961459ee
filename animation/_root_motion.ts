/**
 * Root motion math: a clip's root joint motion between two playback times
 * (across loop wraps, backwards), and its removal from a pose. Root motion
 * is the root's horizontal translation (x, z in its parent's space) and its
 * yaw (the twist of its rotation about the parent's +y axis).
 *
 * @module
 */

import { type Clip, type ClipChannel, sampleChannelAt, type WrapMode, wrapTimeAt } from "./clip.ts";
import { PoseField, poseIndex } from "../simd/memory/layout.ts";
import { motionChannels } from "./_keyless_clip.ts";

/** The yaw of quaternion (x, y, z, w): its twist about +y, in radians. */
export function yawOf(qy: number, qw: number): number {
  return 2 * Math.atan2(qy, qw);
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

/**
 * The clip times {@linkcode rootAt} samples (a step's start and end, the
 * clip's start and end; then the clip's duration) and the x, z and yaw it
 * finds at each, and the
 * weight of the motion being added: a double passed to or returned from a
 * function the compiler does not inline is a new heap number, and root
 * motion runs for every character every frame.
 */
const times = new Float64Array(5), points = new Float64Array(12), scale = new Float64Array(1);
const FROM = 0, TO = 1, START = 2, END = 3, DURATION = 4;

/** x, z and yaw of the root at clip time `times[k]` into `points[3k..]`; `rest` (x, z, yaw) where not animated. */
function rootAt(clip: Clip, joint: number, k: number, rest: Float64Array): void {
  const channels = rootChannels(clip, joint), translation = channels[0], rotation = channels[1];
  const p = 3 * k;
  if (translation) {
    sampleChannelAt(translation, times, k, value);
    points[p] = value[0], points[p + 1] = value[2];
  } else {
    points[p] = rest[0], points[p + 1] = rest[1];
  }
  if (rotation) {
    sampleChannelAt(rotation, times, k, value);
    points[p + 2] = yawOf(value[1], value[3]);
  } else {
    points[p + 2] = rest[2];
  }
}

/** Adds `scale[0]` times the motion from `points[3a..]` to `points[3b..]` to `out` (dx, dz, dyaw). */
function addMotion(a: number, b: number, out: Float64Array): void {
  const pa = 3 * a, pb = 3 * b, s = scale[0];
  out[0] += s * (points[pb] - points[pa]);
  out[1] += s * (points[pb + 1] - points[pa + 1]);
  // The yaw's change as an angle in (-π, π].
  let d = (points[pb + 2] - points[pa + 2]) % (2 * Math.PI);
  if (d > Math.PI) d -= 2 * Math.PI;
  if (d <= -Math.PI) d += 2 * Math.PI;
  out[2] += s * d;
}

/**
 * Adds the root motion of `clip` over `step` (from playback time `step[0]`
 * to `step[1]`, unwrapped, times weight `step[2]`) to `out` (dx, dz,
 * dyaw). A looping clip's motion accumulates over its cycles:
 * `P(u1) - P(u0) + (k1 - k0) (P(end) - P(0))` for times `k d + u`.
 */
export function addRootMotion(
  clip: Clip,
  joint: number,
  wrap: WrapMode,
  step: Float64Array,
  rest: Float64Array,
  out: Float64Array,
): void {
  const d = clip.duration, from = step[0], to = step[1];
  times[FROM] = from, times[TO] = to, times[DURATION] = d;
  wrapTimeAt(times, FROM, DURATION, wrap);
  wrapTimeAt(times, TO, DURATION, wrap);
  rootAt(clip, joint, FROM, rest);
  rootAt(clip, joint, TO, rest);
  scale[0] = step[2];
  addMotion(FROM, TO, out);
  if (wrap !== "loop" || !(d > 0)) return;
  const cycles = Math.round((to - times[TO]) / d) - Math.round((from - times[FROM]) / d);
  if (cycles === 0) return;
  times[START] = 0, times[END] = d;
  rootAt(clip, joint, START, rest);
  rootAt(clip, joint, END, rest);
  scale[0] = step[2] * cycles;
  addMotion(START, END, out);
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
