/**
 * Scalar references of the IK kernels: two-bone IK and aim IK with the
 * semantics of ozz-animation's `IKTwoBoneJob` and `IKAimJob`, in model
 * space. Each solver reads model-space 3x4 matrices and returns correction
 * quaternions in the joints' own spaces: `model' = model * R(q)`, so that a
 * joint's local matrix becomes `local * R(q)` (for a uniformly scaled joint
 * that is ozz's `rotation * q`).
 *
 * The batch form {@linkcode solveIKJobs} is the core's `solveIKBatch`:
 * per chain it solves, applies the corrections to the local matrices and
 * re-transforms the start joint's subtree (`localToModel` over a joint
 * range), chains in table order, so that a chain sees the chains before it.
 *
 * Solving is in f64 (the AssemblyScript kernel does the same): the mid
 * joint's angle comes from a cosine, whose half-angle loses precision near a
 * straight limb in f32.
 *
 * @module
 */

import { IK_AIM, IK_JOB_WORDS, IK_TWO_BONE, IK_TWO_BONE_POSE } from "../wasm/assembly/abi.ts";
import { aim, IK_REACH_TOLERANCE, IKField, out, twoBone } from "./_ik_solve.ts";
import { MATRIX_FLOATS } from "../memory/layout.ts";
import { localToModel } from "./hierarchy.ts";
import { describeValue } from "../memory/internal.ts";

export { IK_REACH_TOLERANCE };

/** A correction: quaternion `(x, y, z, w)` in the joint's space. */
export type Quaternion = [number, number, number, number];

/** Options of {@linkcode solveTwoBoneIK}, in ozz's terms. */
export interface TwoBoneIKOptions {
  /** Target of the end joint, model space. */
  readonly target: readonly [number, number, number];
  /** Where the mid joint (knee, elbow) points, model space. Default `(0, 1, 0)`. */
  readonly poleVector?: readonly [number, number, number];
  /**
   * The mid joint's hinge axis in its own space, unit length, as ozz's
   * `mid_axis`: the solve is exact only when it is perpendicular to both
   * bones. Default: the normal of the plane the bones make in the given
   * matrices (so any bent pose is solved exactly, the joint bending the way
   * it bends now), or `(0, 0, 1)` when they are straight.
   */
  readonly midAxis?: readonly [number, number, number];
  /** 0 (no correction) to 1 (full). Default 1. */
  readonly weight?: number;
  /** Ratio of the chain's length from which the target is softened, 0 to 1. Default 1. */
  readonly soften?: number;
  /** Rotation of the chain's plane around the start-to-target axis, radians. Default 0. */
  readonly twistAngle?: number;
}

/** Options of {@linkcode solveAimIK}, in ozz's terms. */
export interface AimIKOptions {
  /** What to aim at, model space. */
  readonly target: readonly [number, number, number];
  /** The joint's axis that aims, in its own space, unit length. Default `(1, 0, 0)`. */
  readonly forward?: readonly [number, number, number];
  /** The joint's axis turned toward the pole vector, in its own space. Default `(0, 1, 0)`. */
  readonly up?: readonly [number, number, number];
  /** Where `up` points, model space. Default `(0, 1, 0)`. */
  readonly poleVector?: readonly [number, number, number];
  /** Origin of the aiming ray in the joint's space (eyes above a head joint). Default 0. */
  readonly offset?: readonly [number, number, number];
  /** 0 (no correction) to 1 (full). Default 1. */
  readonly weight?: number;
  /** Rotation around the aiming axis, radians. Default 0. */
  readonly twistAngle?: number;
}

/** What a solver returns: corrections, and how close they bring the target. */
export interface IKCorrection {
  /** Correction of the start (aim: the only) joint, in its own space. */
  readonly start: Quaternion;
  /** Correction of the mid joint, in its own space (identity for aim IK). */
  readonly mid: Quaternion;
  /**
   * Two-bone: the distance from the end joint to the target once the
   * corrections are applied (weight and soften included), model space.
   * Aim: the distance from the target to the corrected aiming ray.
   */
  readonly distance: number;
  /**
   * Whether `distance` is within {@linkcode IK_REACH_TOLERANCE} of the chain's
   * length (aim: of the ray origin's distance to the target).
   */
  readonly reached: boolean;
}
/** `local[j] = local[j] * R(q)`, q at `out[o..]`. */
function rotateLocal(f32: Float32Array, p: number, o: number): void {
  const x = out[o], y = out[o + 1], z = out[o + 2], w = out[o + 3];
  const x2 = x + x, y2 = y + y, z2 = z + z;
  const xx = x * x2, yy = y * y2, zz = z * z2, xy = x * y2, xz = x * z2, yz = y * z2;
  const wx = w * x2, wy = w * y2, wz = w * z2;
  const r0 = 1 - (yy + zz), r1 = xy - wz, r2 = xz + wy;
  const r4 = xy + wz, r5 = 1 - (xx + zz), r6 = yz - wx;
  const r8 = xz - wy, r9 = yz + wx, r10 = 1 - (xx + yy);
  for (let row = p; row < p + 12; row += 4) {
    const a = f32[row], b = f32[row + 1], c = f32[row + 2];
    f32[row] = a * r0 + b * r4 + c * r8;
    f32[row + 1] = a * r1 + b * r5 + c * r9;
    f32[row + 2] = a * r2 + b * r6 + c * r10;
  }
}

/**
 * The core's `solveIKBatch` on memory views: for each of `count` job rows
 * at byte offset `jobs` ({@linkcode IKField}), solves the chain, writes
 * how far from its target it ends and whether it reached it
 * ({@linkcode IK_REACH_TOLERANCE}) into the row, applies the corrections to
 * the local matrices and re-transforms joints `start..last`.
 */
export function solveIKJobs(
  f32: Float32Array,
  u32: Uint32Array,
  i16: Int16Array,
  jobs: number,
  count: number,
): void {
  for (let i = 0; i < count; i++) {
    const r = (jobs >> 2) + i * IK_JOB_WORDS;
    const isAim = u32[r + IKField.KIND] === IK_AIM;
    const applied = isAim ? aim(f32, u32, r) : twoBone(f32, u32, r);
    u32[r + IKField.REACHED] = out[9];
    f32[r + IKField.DISTANCE] = out[8];
    if (applied === 0) continue;
    const local = u32[r + IKField.LOCAL] >> 2, start = u32[r + IKField.START];
    rotateLocal(f32, local + start * MATRIX_FLOATS, 0);
    if (!isAim) rotateLocal(f32, local + u32[r + IKField.MID] * MATRIX_FLOATS, 4);
    const last = u32[r + IKField.LAST];
    localToModel(
      f32.subarray(local),
      f32.subarray(u32[r + IKField.MODEL] >> 2),
      i16.subarray(u32[r + IKField.PARENTS] >> 1),
      start,
      last,
    );
  }
}

/** A scratch job row followed by three matrices, for the one-chain solvers. */
const scratch = new Float32Array(IK_JOB_WORDS + 3 * MATRIX_FLOATS);
const scratchWords = new Uint32Array(scratch.buffer);

function vector(
  name: string,
  value: readonly number[] | undefined,
  fallback: readonly number[],
): readonly number[] {
  const x = value ?? fallback;
  if (!Array.isArray(x) || x.length !== 3 || !x.every(Number.isFinite)) {
    throw new RangeError(`${name}: expected three finite numbers, got ${describeValue(x)}`);
  }
  return x;
}

function scalar(name: string, value: number | undefined, fallback: number): number {
  const x = value ?? fallback;
  if (!Number.isFinite(x)) {
    throw new RangeError(`${name}: expected a finite number, got ${describeValue(x)}`);
  }
  return x;
}

/** Fills the scratch row's shared fields from options and matrices. */
function scratchRow(
  matrices: readonly Float32Array[],
  options: TwoBoneIKOptions & AimIKOptions,
  axis: readonly number[],
): void {
  scratch.fill(0);
  matrices.forEach((m, i) => {
    if (!(m instanceof Float32Array) || m.length < MATRIX_FLOATS) {
      throw new TypeError(`matrix ${i}: expected a Float32Array of 12 floats`);
    }
    scratch.set(m.subarray(0, MATRIX_FLOATS), IK_JOB_WORDS + i * MATRIX_FLOATS);
  });
  scratchWords[IKField.MODEL] = IK_JOB_WORDS * 4;
  scratchWords[IKField.MID] = 1;
  scratchWords[IKField.END] = 2;
  scratch.set(vector("target", options?.target, []), IKField.TARGET);
  scratch.set(vector("poleVector", options.poleVector, [0, 1, 0]), IKField.POLE);
  scratch.set(axis, IKField.AXIS);
  scratch[IKField.WEIGHT] = scalar("weight", options.weight, 1);
  const twist = scalar("twistAngle", options.twistAngle, 0);
  scratch[IKField.TWIST_COS] = Math.cos(twist / 2);
  scratch[IKField.TWIST_SIN] = Math.sin(twist / 2);
}

function correction(applied: number): IKCorrection {
  const reach = { distance: out[8], reached: out[9] === 1 };
  if (applied === 0) return { start: [0, 0, 0, 1], mid: [0, 0, 0, 1], ...reach };
  return {
    start: [out[0], out[1], out[2], out[3]],
    mid: [out[4], out[5], out[6], out[7]],
    ...reach,
  };
}

/**
 * Two-bone IK (ozz's `IKTwoBoneJob`): the rotations of the start and mid
 * joints, each in its own space, that bring the end joint to the target,
 * the mid joint toward the pole vector. The three matrices are model space
 * (3x4, 12 floats); mid and end may be any descendants of start and mid.
 */
export function solveTwoBoneIK(
  start: Float32Array,
  mid: Float32Array,
  end: Float32Array,
  options: TwoBoneIKOptions,
): IKCorrection {
  scratchRow([start, mid, end], options, vector("midAxis", options.midAxis, [0, 0, 1]));
  scratchWords[IKField.KIND] = options.midAxis === undefined ? IK_TWO_BONE_POSE : IK_TWO_BONE;
  scratch[IKField.SOFTEN] = scalar("soften", options.soften, 1);
  return correction(twoBone(scratch, scratchWords, 0));
}

/**
 * Aim IK (ozz's `IKAimJob`): the rotation of a joint, in its own space,
 * that points its forward axis (from `offset`) at the target and turns its
 * up axis toward the pole vector. `joint` is model space (3x4, 12 floats).
 */
export function solveAimIK(joint: Float32Array, options: AimIKOptions): IKCorrection {
  scratchRow([joint], options, vector("forward", options.forward, [1, 0, 0]));
  scratch.set(vector("up", options.up, [0, 1, 0]), IKField.UP);
  scratch.set(vector("offset", options.offset, [0, 0, 0]), IKField.OFFSET);
  scratchWords[IKField.KIND] = IK_AIM;
  return correction(aim(scratch, scratchWords, 0));
}
