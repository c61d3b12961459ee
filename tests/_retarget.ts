/**
 * Retargeting test helpers: joint positions of a clip's pose, skeletons of
 * the test models, and the "variant" of a skeleton, its exact oracle: the
 * same character with every joint's local axes turned at random, every
 * name prefixed, scaled and turned about +y, so that any clip retargeted
 * onto it must put each joint at the original's position, scaled and
 * turned.
 *
 * @module
 */

import type { Clip, SkeletonDefinition } from "../mod.ts";
import { importGltf } from "../gltf/mod.ts";
import { sampleClip } from "../clips.ts";
import { modelMatrices } from "../animation/_skeleton_geometry.ts";
import { PoseField, poseIndex } from "../simd/memory/layout.ts";
import { randomQuaternion } from "./_scene.ts";
import { assetUrl } from "./_three_gltf.ts";
import type { GltfSkeleton } from "../gltf/types.ts";

/** Model-space joint positions (3 numbers a joint) of `clip` at `time` over the rest pose (null: rest). */
export function jointPositions(
  skeleton: SkeletonDefinition,
  clip: Clip | null,
  time = 0,
): Float64Array {
  const pose = skeleton.restPose.slice();
  if (clip) sampleClip(clip, time, pose);
  const m = modelMatrices(pose, skeleton.parents);
  const n = skeleton.parents.length, out = new Float64Array(n * 3);
  for (let j = 0; j < n; j++) {
    out[j * 3] = m[j * 12 + 3], out[j * 3 + 1] = m[j * 12 + 7], out[j * 3 + 2] = m[j * 12 + 11];
  }
  return out;
}

/** Diagonal of the bounds of the rest joints. */
export function skeletonSize(skeleton: SkeletonDefinition): number {
  const p = jointPositions(skeleton, null);
  const min = [Infinity, Infinity, Infinity], max = [-Infinity, -Infinity, -Infinity];
  for (let i = 0; i < p.length; i++) {
    min[i % 3] = Math.min(min[i % 3], p[i]), max[i % 3] = Math.max(max[i % 3], p[i]);
  }
  return Math.hypot(max[0] - min[0], max[1] - min[1], max[2] - min[2]);
}

/** The skeletons of a test model. */
export async function modelSkeletons(name: string): Promise<readonly GltfSkeleton[]> {
  return (await importGltf(assetUrl(name))).skeletons;
}

type Quat = number[];

function mul(a: Quat, b: Quat): Quat {
  return [
    a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1],
    a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0],
    a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3],
    a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2],
  ];
}

function conj(q: Quat): Quat {
  return [-q[0], -q[1], -q[2], q[3]];
}

/** `v` rotated by `q`. */
export function rotated(q: Quat, v: readonly number[]): number[] {
  const r = mul(mul(q, [v[0], v[1], v[2], 0]), conj(q));
  return [r[0], r[1], r[2]];
}

/** The rotation about +y by `angle`. */
export function yaw(angle: number): Quat {
  return [0, Math.sin(angle / 2), 0, Math.cos(angle / 2)];
}

/**
 * `skeleton` with each joint's local axes turned by a random rotation, its
 * names prefixed `rig:`, scaled by `scale` and turned by `angle` about +y:
 * joint j's rest model frame is `yaw · original · turn_j`, its position
 * `yaw · scale · original`. Uniform scales only (every test model's).
 */
export function variant(
  skeleton: SkeletonDefinition,
  scale: number,
  angle: number,
  next: () => number,
): SkeletonDefinition {
  const { parents, restPose } = skeleton;
  const n = parents.length;
  const turns = Array.from({ length: n }, () => randomQuaternion(next));
  const pose = restPose.slice();
  const get = (j: number, f: number) => restPose[poseIndex(j, f as PoseField)];
  for (let j = 0; j < n; j++) {
    const left = parents[j] < 0 ? yaw(angle) : conj(turns[parents[j]]);
    const q = mul(mul(left, [3, 4, 5, 6].map((f) => get(j, f))), turns[j]);
    const t = rotated(left, [0, 1, 2].map((f) => get(j, f) * scale));
    for (let c = 0; c < 4; c++) pose[poseIndex(j, (PoseField.QX + c) as PoseField)] = q[c];
    for (let c = 0; c < 3; c++) pose[poseIndex(j, (PoseField.TX + c) as PoseField)] = t[c];
  }
  return {
    names: skeleton.names.map((name) => `rig:${name}`),
    parents,
    restPose: pose,
    inverseBind: skeleton.inverseBind,
  };
}

/** The largest distance between joint `j` of `a` and joint `map(j)` of `b`. */
export function largestDistance(a: Float64Array, b: Float64Array, map?: (j: number) => number) {
  let worst = 0, at = -1;
  for (let j = 0; j < a.length / 3; j++) {
    const k = map ? map(j) : j;
    if (k < 0) continue;
    const d = Math.hypot(
      a[j * 3] - b[k * 3],
      a[j * 3 + 1] - b[k * 3 + 1],
      a[j * 3 + 2] - b[k * 3 + 2],
    );
    if (d > worst) worst = d, at = j;
  }
  return { worst, at };
}

/** Times at which to compare: every key time of the clip and random times between. */
export function compareTimes(clip: Clip, next: () => number, random = 20): number[] {
  const times = new Set<number>();
  for (const channel of clip.channels) for (const t of channel.times) times.add(t);
  for (let i = 0; i < random; i++) times.add(next() * clip.duration);
  return [...times].sort((a, b) => a - b);
}
