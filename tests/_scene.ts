/**
 * Test scenes for the ECS layer: a world with cylinder characters on a core
 * of a given build.
 *
 * @module
 */

import "../scalar.ts";
import { addEntity, createWorld } from "bitecs";
import {
  addCharacter,
  type AnimationComponents,
  type Clip,
  createAnimation,
  SkeletonAsset,
  SkinAsset,
  type SkinStreams,
} from "../mod.ts";
import { Core, type CoreBuild } from "../kernels.ts";
import { createCylinder, type CylinderOptions } from "../procedural/cylinder.ts";
import { poseFloats } from "../simd/memory/layout.ts";

/** Every core build, each test runs on all of them. */
export const BUILDS: readonly CoreBuild[] = ["relaxed-simd", "simd", "scalar"];

/** A world with `count` skinned cylinder characters. */
export interface Scene {
  readonly core: Core;
  readonly world: object;
  readonly components: AnimationComponents;
  readonly skeleton: SkeletonAsset;
  readonly skin: SkinAsset;
  readonly entities: number[];
}

/** Builds a scene on `core`, by default a fresh core of `build`. */
export function createScene(
  build: CoreBuild,
  count = 2,
  shape: CylinderOptions = { joints: 6, segments: 5, rings: 9 },
  streams: SkinStreams = {},
  core: Core = Core.create(build),
): Scene {
  const world = createWorld();
  const components = createAnimation(world, { core });
  const cylinder = createCylinder(shape);
  const skeleton = new SkeletonAsset(cylinder.skeleton, core);
  const skin = new SkinAsset(skeleton, cylinder.skin);
  const entities: number[] = [];
  for (let i = 0; i < count; i++) {
    const eid = addEntity(world);
    addCharacter(world, eid, skeleton, skin, streams);
    entities.push(eid);
  }
  return { core, world, components, skeleton, skin, entities };
}

/** Whether every value of a pose is finite. */
export const finite = (pose: ArrayLike<number>): boolean => Array.from(pose).every(Number.isFinite);

/** A deterministic pseudo-random generator (mulberry32) for test data. */
export function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Largest absolute difference between two arrays of equal length. */
export function maxDifference(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length) throw new Error(`lengths differ: ${a.length} vs ${b.length}`);
  let max = 0;
  for (let i = 0; i < a.length; i++) max = Math.max(max, Math.abs(a[i] - b[i]));
  return max;
}

/**
 * A random SoA×4 pose: unit quaternions, translations in [-1, 1], scales in
 * [0.9, 1.1].
 */
export function randomPose(jointCount: number, next: () => number): Float32Array {
  const pose = new Float32Array(poseFloats(jointCount));
  for (let j = 0; j < jointCount; j++) {
    const g = (j >> 2) * 40 + (j & 3);
    const q = randomQuaternion(next);
    for (let f = 0; f < 3; f++) pose[g + f * 4] = next() * 2 - 1;
    for (let f = 0; f < 4; f++) pose[g + (3 + f) * 4] = q[f];
    for (let f = 0; f < 3; f++) pose[g + (7 + f) * 4] = 0.9 + next() * 0.2;
  }
  return pose;
}

/** Random unit quaternion `[x, y, z, w]`. */
export function randomQuaternion(next: () => number): number[] {
  const q = [next() - 0.5, next() - 0.5, next() - 0.5, next() - 0.5];
  const n = Math.hypot(...q) || 1;
  return q.map((v) => v / n);
}

/**
 * Joint `joint` turns about z and the next one moves through `keys` uneven
 * keys over `duration` seconds: a clip whose sampling walks many keys.
 */
export function wander(name: string, seed: number, joint = 1, keys = 24, duration = 2): Clip {
  const next = random(seed);
  const times = Float32Array.from({ length: keys }, (_, k) => (duration * k) / (keys - 1));
  const rotations = new Float32Array(keys * 4), translations = new Float32Array(keys * 3);
  let angle = 0;
  for (let k = 0; k < keys; k++) {
    angle += (next() - 0.3) * 0.8;
    rotations.set([0, 0, Math.sin(angle / 2), Math.cos(angle / 2)], k * 4);
    translations.set([next() * 2 - 1, 0.5, 0], k * 3);
  }
  return {
    name,
    animation: 0,
    start: 0,
    duration,
    channels: [
      { joint, path: "rotation", interpolation: "LINEAR", times, values: rotations, node: joint },
      {
        joint: joint + 1,
        path: "translation",
        interpolation: "LINEAR",
        times,
        values: translations,
        node: joint + 1,
      },
    ],
  };
}
