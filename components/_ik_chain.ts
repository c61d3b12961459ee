/**
 * An entity's IK chain as Marrow keeps it (the IK component's truth), and
 * the checks that build and update it: joints resolved and checked against
 * the skeleton's hierarchy, vectors and scalars finite. A bad value is an
 * {@linkcode IKError} naming entity, chain and field, before anything is
 * written.
 *
 * @module
 */

import type { SkeletonAsset } from "../animation/skeleton_asset.ts";
import { IK_AIM, IK_JOB_WORDS, IK_TWO_BONE, IK_TWO_BONE_POSE } from "../simd/abi.ts";
import { IKField } from "../simd/scalar/internal.ts";
import { MATRIX_FLOATS } from "../simd/memory/layout.ts";

/** A fresh job row for a chain. */
export function chainRow(): Float32Array {
  return new Float32Array(IK_JOB_WORDS);
}
import { localToModel, quatToMat } from "../simd/scalar/mod.ts";
import { describeValue } from "../simd/memory/internal.ts";

/** A bad IK chain setting: names the entity, the chain (-1 when new) and the field. */
export class IKError extends RangeError {
  /** The entity at fault. */
  readonly entity: number;
  /** The chain's index, -1 for a chain being added. */
  readonly chain: number;
  /** The setting at fault (`target`, `start`, `weight`, …). */
  readonly field: string;

  /** Creates the error; the message is prefixed with entity, chain and field. */
  constructor(entity: number, chain: number, field: string, message: string) {
    super(
      `entity ${describeValue(entity)}: IK${
        typeof chain !== "number" || chain >= 0 ? ` chain ${describeValue(chain)}` : ""
      }: ${field}: ${message}`,
    );
    this.name = "IKError";
    // A caller's bad argument (a symbol, an object) is in the message only.
    this.entity = typeof entity === "number" ? entity : NaN;
    this.chain = typeof chain === "number" ? chain : NaN;
    this.field = field;
  }
}

/** Three numbers. */
export type Vector3 = readonly [number, number, number];

/** @internal One chain: joints fixed when added, settings the game changes. */
export interface IKChain {
  readonly aim: boolean;
  readonly skeleton: SkeletonAsset;
  readonly start: number;
  readonly mid: number;
  readonly end: number;
  /** Last joint of the start joint's subtree (parents come first). */
  readonly last: number;
  /** Undefined until set: the chain does nothing without a target. */
  target: Vector3 | undefined;
  /** `(0, 0, 0)`: no pole, the chain's plane turns as little as it can. */
  poleVector: Vector3;
  /**
   * Two-bone: the mid joint's hinge axis (the rest pose's bend, serving only
   * when the limb is straight, unless `midAxis` was given); aim: the forward
   * axis. Unit.
   */
  axis: Vector3;
  /** Two-bone: `axis` was given (`midAxis`): ozz's solve about it, not the pose's bend. */
  givenAxis: boolean;
  up: Vector3;
  offset: Vector3;
  weight: number;
  soften: number;
  twistAngle: number;
  reached: boolean;
  /** The end joint's distance to the target after the last run; NaN when it did not run. */
  distance: number;
  /**
   * The chain's job row but for the entity's offsets (see
   * {@linkcode encodeChain}), copied into the system's table each frame.
   */
  readonly row: Float32Array;
}

/** Writes `chain`'s settings into its job row (after any change). */
export function encodeChain(chain: IKChain): void {
  const row = chain.row, words = new Uint32Array(row.buffer, row.byteOffset, row.length);
  words[IKField.KIND] = chain.aim ? IK_AIM : chain.givenAxis ? IK_TWO_BONE : IK_TWO_BONE_POSE;
  words[IKField.START] = chain.start;
  words[IKField.MID] = chain.mid;
  words[IKField.END] = chain.end;
  words[IKField.LAST] = chain.last;
  row.set(chain.target ?? [0, 0, 0], IKField.TARGET);
  row[IKField.WEIGHT] = chain.weight;
  row.set(chain.poleVector, IKField.POLE);
  row[IKField.SOFTEN] = chain.soften;
  row.set(chain.axis, IKField.AXIS);
  row[IKField.TWIST_COS] = Math.cos(chain.twistAngle / 2);
  row.set(chain.up, IKField.UP);
  row[IKField.TWIST_SIN] = Math.sin(chain.twistAngle / 2);
  row.set(chain.offset, IKField.OFFSET);
}

/** What checks a chain's values: entity and chain for the errors. */
export class ChainChecker {
  readonly eid: number;
  readonly chain: number;

  constructor(eid: number, chain: number) {
    this.eid = eid;
    this.chain = chain;
  }

  error(field: string, message: string): IKError {
    return new IKError(this.eid, this.chain, field, message);
  }

  vector(field: string, value: unknown): Vector3 {
    const v = value as ArrayLike<unknown> | null;
    if (
      v === null || typeof v !== "object" || v.length !== 3 ||
      ![0, 1, 2].every((i) => typeof v[i] === "number" && Number.isFinite(v[i]))
    ) {
      throw this.error(field, `expected three finite numbers, got ${shown(value)}`);
    }
    return [v[0] as number, v[1] as number, v[2] as number];
  }

  /** A vector of length > 0, normalized. */
  direction(field: string, value: unknown): Vector3 {
    const [x, y, z] = this.vector(field, value);
    const length = Math.hypot(x, y, z);
    if (!(length > 1e-12) || !Number.isFinite(length)) {
      throw this.error(field, `expected a direction, got a vector of length ${length}`);
    }
    return [x / length, y / length, z / length];
  }

  scalar(field: string, value: unknown): number {
    if (typeof value !== "number" || !Number.isFinite(value)) {
      throw this.error(field, `expected a finite number, got ${shown(value)}`);
    }
    return value;
  }

  /** A joint index or name of `skeleton`. */
  joint(field: string, value: unknown, skeleton: SkeletonAsset): number {
    if (typeof value === "string") {
      const index = skeleton.jointIndex(value);
      if (index < 0) {
        throw this.error(field, `the skeleton has no joint named ${JSON.stringify(value)}`);
      }
      return index;
    }
    if (typeof value !== "number" || !Number.isInteger(value) || value < 0) {
      throw this.error(field, `expected a joint index or name, got ${shown(value)}`);
    }
    if (value >= skeleton.jointCount) {
      throw this.error(field, `joint ${value} is not in 0..${skeleton.jointCount - 1}`);
    }
    return value;
  }

  /** Checks that `ancestor` is a proper ancestor of `joint`. */
  ancestry(field: string, parents: Int16Array, ancestor: number, joint: number, of: string): void {
    for (let p = parents[joint]; p >= 0; p = parents[p]) if (p === ancestor) return;
    throw this.error(field, `joint ${ancestor} is not an ancestor of the ${of} joint ${joint}`);
  }
}

function shown(value: unknown): string {
  return typeof value === "string" ? JSON.stringify(value) : describeValue(value);
}

/** Last joint of `start`'s subtree (parents come before their children). */
export function subtreeLast(parents: Int16Array, start: number): number {
  const inside = new Uint8Array(parents.length);
  inside[start] = 1;
  let last = start;
  for (let i = start + 1; i < parents.length; i++) {
    if (parents[i] >= 0 && inside[parents[i]]) {
      inside[i] = 1;
      last = i;
    }
  }
  return last;
}

/**
 * The hinge axis of a two-bone chain in its mid joint's space, from the
 * skeleton's rest pose (the normal of the plane the bones make there), or
 * `(0, 0, 1)` (ozz's default) when the rest pose is straight.
 */
export function restHingeAxis(
  skeleton: SkeletonAsset,
  start: number,
  mid: number,
  end: number,
): Vector3 {
  const n = skeleton.jointCount;
  const local = new Float32Array(n * MATRIX_FLOATS), model = new Float32Array(n * MATRIX_FLOATS);
  quatToMat(skeleton.restPose, local, n);
  localToModel(local, model, skeleton.parentIndices, 0, n - 1);
  const at = (j: number) => [3, 7, 11].map((k) => model[j * MATRIX_FLOATS + k]);
  const s = at(start), m = at(mid), e = at(end);
  const a = [m[0] - s[0], m[1] - s[1], m[2] - s[2]], b = [e[0] - m[0], e[1] - m[1], e[2] - m[2]];
  // b x a: the axis about which a positive turn opens the joint (ozz's
  // convention: the rest pose's bend is the valid side).
  const c = [b[1] * a[2] - b[2] * a[1], b[2] * a[0] - b[0] * a[2], b[0] * a[1] - b[1] * a[0]];
  // Into the mid joint's space: the inverse 3x3 is adjugate over determinant
  // (its columns are cross products of the rows); the scale drops out below.
  const o = mid * MATRIX_FLOATS;
  const r = [0, 4, 8].map((k) => [model[o + k], model[o + k + 1], model[o + k + 2]]);
  const cross = (u: number[], v: number[]) => [
    u[1] * v[2] - u[2] * v[1],
    u[2] * v[0] - u[0] * v[2],
    u[0] * v[1] - u[1] * v[0],
  ];
  const k0 = cross(r[1], r[2]), k1 = cross(r[2], r[0]), k2 = cross(r[0], r[1]);
  const det = r[0][0] * k0[0] + r[0][1] * k0[1] + r[0][2] * k0[2];
  const axis = [0, 1, 2].map((i) => (k0[i] * c[0] + k1[i] * c[1] + k2[i] * c[2]) * Math.sign(det));
  const length = Math.hypot(axis[0], axis[1], axis[2]);
  const bones = Math.hypot(a[0], a[1], a[2]) * Math.hypot(b[0], b[1], b[2]);
  // Below ~0.06 degrees of bend the plane is rounding noise.
  if (!(Math.hypot(c[0], c[1], c[2]) > 1e-3 * bones) || !(length > 0)) return [0, 0, 1];
  return [axis[0] / length, axis[1] / length, axis[2] / length];
}
