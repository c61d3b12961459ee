/**
 * The two skeletons of a retargeting build as it reads them (rest rows,
 * local and in model space, checked), and what it measures on them: a
 * joint's height above the ground and the facing of a character at rest.
 *
 * @module
 */

import { poseFloats } from "../simd/memory/layout.ts";
import type { SkeletonDefinition } from "./definitions.ts";
import { SkeletonAsset } from "./skeleton_asset.ts";
import { JOINT_STRIDE, jointRows, normalize, Q, T, toModel } from "./_retarget_math.ts";
import { RetargetError, type RetargetSkeleton } from "./retarget_options.ts";

/** Most joints a skeleton may have (joint indices are int16). */
const MAX_JOINTS = 32767;

/** A skeleton as the build reads it: parents, and rest rows local and in model space. */
export interface RestSkeleton {
  readonly names: readonly string[];
  readonly parents: Int16Array;
  readonly local: Float64Array;
  readonly model: Float64Array;
}

/** Reads and checks a skeleton argument (`"source"` or `"target"`). */
export function readSkeleton(skeleton: RetargetSkeleton, argument: string): RestSkeleton {
  if (skeleton instanceof SkeletonAsset) {
    return restSkeleton(skeleton.names, skeleton.parentIndices, skeleton.restPose);
  }
  const { names, parents, restPose } = (skeleton ?? {}) as Partial<SkeletonDefinition>;
  if (!(parents instanceof Int16Array) || parents.length === 0 || parents.length > MAX_JOINTS) {
    throw new RetargetError(argument, `parents: expected an Int16Array of 1..${MAX_JOINTS} joints`);
  }
  const count = parents.length;
  if (!Array.isArray(names) || names.length !== count) {
    throw new RetargetError(argument, `names: expected ${count} names`);
  }
  for (let j = 0; j < count; j++) {
    if (!(parents[j] >= -1 && parents[j] < j)) {
      throw new RetargetError(argument, `parents[${j}] is ${parents[j]}: not a joint before it`);
    }
  }
  if (!(restPose instanceof Float32Array) || restPose.length < poseFloats(count)) {
    throw new RetargetError(argument, `restPose: expected ${poseFloats(count)} floats`);
  }
  return restSkeleton(names.map(String), parents, restPose, argument);
}

function restSkeleton(
  names: readonly string[],
  parents: Int16Array,
  restPose: Float32Array,
  argument = "",
): RestSkeleton {
  const count = parents.length;
  const local = jointRows(restPose, count);
  for (let j = 0; j < count; j++) {
    const o = j * JOINT_STRIDE;
    for (let c = 0; c < JOINT_STRIDE; c++) {
      if (!Number.isFinite(local[o + c])) {
        throw new RetargetError(argument, `restPose of joint ${j} is not finite`, names[j]);
      }
    }
    if (!(Math.hypot(local[o + Q], local[o + Q + 1], local[o + Q + 2], local[o + Q + 3]) > 0)) {
      throw new RetargetError(argument, `rest rotation of joint ${j} has length 0`, names[j]);
    }
    normalize(local, o + Q);
  }
  const model = new Float64Array(local.length);
  toModel(parents, local, model);
  return { names, parents, local, model };
}

/** The rest height of joint `j` above the skeleton's ground: y = 0, or its lowest joint below that. */
export function heightAbove(skeleton: RestSkeleton, j: number): number {
  let ground = 0;
  for (let k = 0; k < skeleton.parents.length; k++) {
    ground = Math.min(ground, skeleton.model[k * JOINT_STRIDE + T + 1]);
  }
  return skeleton.model[j * JOINT_STRIDE + T + 1] - ground;
}

/** One leg of a character at rest: its lowest joint (the toes) and its ankle. */
interface RestLeg {
  readonly toe: number;
  readonly ankle: number;
}

/**
 * The legs of a character at rest: each subtree of the hips reaching half
 * the hips' height below them; its toes, the lowest joint, and its ankle,
 * the toes' nearest ancestor 3 % of that height above them.
 */
export function findLegs(skeleton: RestSkeleton, hips: number): RestLeg[] {
  const { parents, model } = skeleton;
  const y = (j: number) => model[j * JOINT_STRIDE + T + 1];
  const height = heightAbove(skeleton, hips);
  // Lowest joint of each child subtree of the hips, by the child it is under.
  const legOf = new Int32Array(parents.length).fill(-1);
  const lowest = new Map<number, number>();
  for (let j = hips + 1; j < parents.length; j++) {
    const p = parents[j];
    legOf[j] = p === hips ? j : p > hips ? legOf[p] : -1;
    const leg = legOf[j];
    if (leg >= 0 && (!lowest.has(leg) || y(j) < y(lowest.get(leg)!))) lowest.set(leg, j);
  }
  const legs: RestLeg[] = [];
  for (const toe of lowest.values()) {
    if (!(y(hips) - y(toe) >= 0.5 * height)) continue;
    let ankle = parents[toe];
    while (ankle > hips && y(ankle) - y(toe) < 0.03 * height) ankle = parents[ankle];
    legs.push({ toe, ankle });
  }
  return legs;
}

/**
 * The direction a character faces at rest (horizontal, unit), from its
 * hips and feet: along each leg ({@linkcode findLegs}), from the ankle to
 * the toes. Undefined when no leg gives a direction.
 */
export function measureFacing(skeleton: RestSkeleton, hips: number): [number, number] | undefined {
  const model = skeleton.model;
  let x = 0, z = 0;
  for (const { toe, ankle } of findLegs(skeleton, hips)) {
    const dx = model[toe * JOINT_STRIDE + T] - model[ankle * JOINT_STRIDE + T];
    const dz = model[toe * JOINT_STRIDE + T + 2] - model[ankle * JOINT_STRIDE + T + 2];
    const length = Math.hypot(dx, dz);
    if (length > 0) x += dx / length, z += dz / length;
  }
  const length = Math.hypot(x, z);
  return length > 1e-6 ? [x / length, z / length] : undefined;
}
