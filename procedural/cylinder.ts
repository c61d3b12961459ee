/**
 * Procedural test characters in the spirit of the demo of paper 003: a
 * cylinder skinned to a chain of joints, with normals and tangents, and a
 * procedural wave animation. Marrow's default data for the demo, the
 * benchmarks and the tests.
 *
 * @module
 */

import type { SkeletonDefinition, SkinDefinition } from "../animation/definitions.ts";
import type { Clip, ClipChannel } from "../animation/clip.ts";
import { PoseField, poseFloats, poseIndex } from "../simd/memory/layout.ts";
import { describeValue } from "../simd/memory/internal.ts";

/** Shape of a generated cylinder character. */
export interface CylinderOptions {
  /** Joints in the chain. Default 30. */
  readonly joints?: number;
  /** Vertices around each ring. Default 32. */
  readonly segments?: number;
  /** Rings along the height. Default 64 (64 × 32 = 2,048 vertices). */
  readonly rings?: number;
  /** Height of the cylinder. Default 10. */
  readonly height?: number;
  /** Radius of the cylinder. Default 1. */
  readonly radius?: number;
  /**
   * Influences per vertex: a number gives every vertex that many; `"mixed"`
   * gives 1 to 4 depending on the distance to the nearest joints. Default
   * `"mixed"`.
   */
  readonly influences?: number | "mixed";
}

/** A generated character. */
export interface Cylinder {
  /** The joint chain, root at the origin, along +y. */
  readonly skeleton: SkeletonDefinition;
  /** The skinned cylinder. */
  readonly skin: SkinDefinition;
  /** Its triangles (counter-clockwise seen from outside), in source vertex order. */
  readonly indices: Uint32Array;
}

/** Most joints of a generated chain: a skeleton's (parents are `i16`). */
const MAX_JOINTS = 32767;
/** Most segments around a ring, and most rings. */
const MAX_RING = 2 ** 16;
/** Most vertices of a generated cylinder. */
const MAX_VERTICES = 2 ** 22;
/** Most keys of one loop of a wave clip. */
const MAX_WAVE_KEYS = 2 ** 16;

/** `value`, a whole number in `low..high`, or a RangeError naming it. */
function wholeNumber(name: string, value: unknown, low: number, high: number): number {
  if (typeof value !== "number" || !Number.isInteger(value) || value < low || value > high) {
    throw new RangeError(
      `${name}: expected a whole number ${low}..${high}, got ${describeValue(value)}`,
    );
  }
  return value;
}

/** `value`, a finite number, or a RangeError naming it. */
function finiteNumber(name: string, value: unknown): number {
  if (typeof value !== "number" || !Number.isFinite(value)) {
    throw new RangeError(`${name}: expected a finite number, got ${describeValue(value)}`);
  }
  return value;
}

/** Builds a cylinder character. */
export function createCylinder(options: CylinderOptions = {}): Cylinder {
  if (!options || typeof options !== "object") {
    throw new TypeError(
      `createCylinder: options: expected an object, got ${describeValue(options)}`,
    );
  }
  const jointCount = wholeNumber("createCylinder: joints", options.joints ?? 30, 1, MAX_JOINTS);
  const segments = wholeNumber("createCylinder: segments", options.segments ?? 32, 1, MAX_RING);
  const rings = wholeNumber("createCylinder: rings", options.rings ?? 64, 1, MAX_RING);
  if (segments * rings > MAX_VERTICES) {
    throw new RangeError(
      `createCylinder: segments × rings: expected at most ${MAX_VERTICES} vertices, got ${
        segments * rings
      }`,
    );
  }
  const height = finiteNumber("createCylinder: height", options.height ?? 10);
  const radius = finiteNumber("createCylinder: radius", options.radius ?? 1);
  const influences = options.influences ?? "mixed";
  if (influences !== "mixed") wholeNumber("createCylinder: influences", influences, 1, 4);
  const spacing = height / Math.max(1, jointCount - 1);

  const parents = new Int16Array(jointCount);
  const restPose = new Float32Array(poseFloats(jointCount));
  const inverseBind = new Float32Array(jointCount * 12);
  for (let j = 0; j < jointCount; j++) {
    parents[j] = j - 1;
    setIdentity(restPose, j);
    restPose[poseIndex(j, PoseField.TY)] = j ? spacing : 0;
    inverseBind.set([1, 0, 0, 0, 0, 1, 0, -j * spacing, 0, 0, 1, 0], j * 12);
  }

  const vertexCount = segments * rings;
  const positions = new Float32Array(vertexCount * 4);
  const normals = new Float32Array(vertexCount * 4);
  const tangents = new Float32Array(vertexCount * 4);
  const influenceCounts = new Uint8Array(vertexCount);
  const joints: number[] = [];
  const weights: number[] = [];
  for (let r = 0; r < rings; r++) {
    const y = rings > 1 ? (r / (rings - 1)) * height : 0;
    const along = y / spacing;
    const count = influences === "mixed"
      ? Math.min(4, 1 + Math.round(Math.abs(along - Math.round(along)) * 6))
      : influences;
    const ranked = rankJoints(along, jointCount, count);
    for (let s = 0; s < segments; s++) {
      const v = r * segments + s;
      const a = (s / segments) * Math.PI * 2;
      const c = Math.cos(a), si = Math.sin(a);
      positions.set([radius * c, y, radius * si, 1], v * 4);
      normals.set([c, 0, si, 0], v * 4);
      tangents.set([-si, 0, c, s % 2 ? -1 : 1], v * 4);
      influenceCounts[v] = ranked.length;
      for (const [joint, weight] of ranked) joints.push(joint), weights.push(weight);
    }
  }
  const indices = new Uint32Array(Math.max(0, rings - 1) * segments * 6);
  let i = 0;
  for (let r = 0; r + 1 < rings; r++) {
    for (let s = 0; s < segments; s++) {
      const a = r * segments + s, b = r * segments + (s + 1) % segments;
      indices.set([a, a + segments, b, b, a + segments, b + segments], i);
      i += 6;
    }
  }
  return {
    indices,
    skeleton: {
      names: Array.from({ length: jointCount }, (_, j) => `joint${j}`),
      parents,
      restPose,
      inverseBind,
    },
    skin: {
      vertexCount,
      positions,
      normals,
      tangents,
      influenceCounts,
      joints: Uint16Array.from(joints),
      weights: Float32Array.from(weights),
    },
  };
}

/** The `count` joints nearest to `along` (in joint spacings), weighted by closeness. */
function rankJoints(along: number, jointCount: number, count: number): [number, number][] {
  const all = Array.from({ length: jointCount }, (_, j) => [j, 1 / (1 + Math.abs(j - along) ** 2)]);
  const ranked = all.sort((a, b) => b[1] - a[1]).slice(0, Math.min(count, jointCount));
  const sum = ranked.reduce((total, [, w]) => total + w, 0);
  return ranked.map(([j, w]) => [j, w / sum] as [number, number]);
}

function setIdentity(pose: Float32Array, joint: number): void {
  pose[poseIndex(joint, PoseField.QW)] = 1;
  pose[poseIndex(joint, PoseField.SX)] = 1;
  pose[poseIndex(joint, PoseField.SY)] = 1;
  pose[poseIndex(joint, PoseField.SZ)] = 1;
}

/** Rotation `bend` about z, then `twist` about y (q_z · q_y), as `[x, y, z, w]`. */
function bendTwist(bend: number, twist: number): [number, number, number, number] {
  const cz = Math.cos(bend / 2), sz = Math.sin(bend / 2);
  const cy = Math.cos(twist / 2), sy = Math.sin(twist / 2);
  return [-sz * sy, cz * sy, sz * cy, cz * cy];
}

/**
 * Writes a procedural wave into `pose` (SoA×4, `jointCount` joints) at time
 * `time` (seconds): each joint bends about z and twists about y by an angle
 * travelling down the chain. `phase` shifts the wave per character.
 */
export function wavePose(
  pose: Float32Array,
  jointCount: number,
  time: number,
  phase = 0,
): void {
  wholeNumber("wavePose: jointCount", jointCount, 1, MAX_JOINTS);
  if (!(pose instanceof Float32Array) || pose.length < poseFloats(jointCount)) {
    throw new TypeError(
      `wavePose: pose: expected a Float32Array of ${poseFloats(jointCount)} floats, got ${
        describeValue(pose)
      }`,
    );
  }
  finiteNumber("wavePose: time", time);
  finiteNumber("wavePose: phase", phase);
  for (let j = 1; j < jointCount; j++) {
    const q = bendTwist(
      0.25 * Math.sin(time * 2 + j * 0.4 + phase),
      0.1 * Math.cos(time * 1.3 + j * 0.3 + phase),
    );
    pose[poseIndex(j, PoseField.QX)] = q[0];
    pose[poseIndex(j, PoseField.QY)] = q[1];
    pose[poseIndex(j, PoseField.QZ)] = q[2];
    pose[poseIndex(j, PoseField.QW)] = q[3];
  }
}

/** Shape of a {@linkcode waveClip}. */
export interface WaveClipOptions {
  /** Length of one loop in seconds. Default 2. */
  readonly duration?: number;
  /** Keys per loop (linear in between). Default 32. */
  readonly keys?: number;
  /** Peak bend of each joint in radians. Default 0.25. */
  readonly amplitude?: number;
}

/**
 * A looping clip of the wave of {@linkcode wavePose} for a chain of
 * `jointCount` joints, baked into keys as a file's clip would be: joint `j`
 * bends and twists with a phase travelling down the chain, and the last key
 * equals the first so the loop is seamless. Play it with `playClip`.
 */
export function waveClip(jointCount: number, options: WaveClipOptions = {}): Clip {
  wholeNumber("waveClip: jointCount", jointCount, 1, MAX_JOINTS);
  if (!options || typeof options !== "object") {
    throw new TypeError(`waveClip: options: expected an object, got ${describeValue(options)}`);
  }
  const duration = options.duration ?? 2;
  const keys = wholeNumber("waveClip: keys", options.keys ?? 32, 2, MAX_WAVE_KEYS);
  const amplitude = finiteNumber("waveClip: amplitude", options.amplitude ?? 0.25);
  if (typeof duration !== "number" || !(duration > 0 && Number.isFinite(duration))) {
    throw new RangeError(`duration: expected a finite number > 0, got ${describeValue(duration)}`);
  }
  const times = Float32Array.from({ length: keys + 1 }, (_, k) => (k / keys) * duration);
  const channels: ClipChannel[] = [];
  for (let j = 1; j < jointCount; j++) {
    const values = new Float32Array((keys + 1) * 4);
    for (let k = 0; k <= keys; k++) {
      const turn = (2 * Math.PI * (k % keys)) / keys;
      values.set(
        bendTwist(
          amplitude * Math.sin(turn + j * 0.4),
          0.4 * amplitude * Math.cos(2 * turn + j * 0.3),
        ),
        k * 4,
      );
    }
    channels.push({ joint: j, node: j, path: "rotation", interpolation: "LINEAR", times, values });
  }
  return { name: "wave", animation: 0, start: 0, duration, channels };
}
