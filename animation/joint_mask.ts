/**
 * Joint masks: per-joint weights in [0, 1] that limit an animation layer to
 * part of a skeleton (the upper body, an arm), built from a joint subtree
 * or a list of joints, with an optional falloff that fades a subtree in
 * over its first levels so that the seam does not show.
 *
 * @example The upper body of a skeleton, faded in over two joints
 * ```ts
 * import { jointMask } from "@marrow/anim/layers";
 *
 * const skeleton = {
 *   names: ["hips", "spine", "chest", "arm", "leg"],
 *   parentIndices: Int16Array.of(-1, 0, 1, 2, 0),
 * };
 * const mask = jointMask(skeleton, { subtree: "spine", falloff: 2 });
 * // hips 0, spine 1/3, chest 2/3, arm 1, leg 0
 * ```
 * @module
 */

import { describeValue } from "../simd/memory/internal.ts";

/** The part of a skeleton a mask needs: joint names and parents. */
export interface MaskSkeleton {
  /** Joint names. */
  readonly names: readonly string[];
  /** Parent of each joint (-1 for roots), parents before children. */
  readonly parentIndices: ArrayLike<number>;
}

/** What {@linkcode jointMask} builds a mask from. */
export interface JointMaskSpec {
  /** A joint (index or name) whose whole subtree gets weight 1. */
  readonly subtree?: number | string;
  /** Joints (indices or names) that get weight 1 each. */
  readonly joints?: readonly (number | string)[];
  /**
   * Levels over which the subtree fades in: the joint `d` levels below the
   * subtree's root gets `min(1, (d + 1) / (falloff + 1))`. Default 0 (no fade).
   */
  readonly falloff?: number;
}

/** A joint given by index or name, as an index; a RangeError naming it when there is none. */
export function resolveJoint(skeleton: MaskSkeleton, joint: number | string, what: string): number {
  const index = typeof joint === "string" ? skeleton.names.indexOf(joint) : joint;
  if (!Number.isInteger(index) || index < 0 || index >= skeleton.names.length) {
    throw new RangeError(
      `${what}: no joint ${
        typeof joint === "string" ? JSON.stringify(joint) : describeValue(joint)
      } in a skeleton of ${skeleton.names.length} joints`,
    );
  }
  return index;
}

/**
 * Per-joint weights (one per joint, 0 elsewhere) for a layer's mask: the
 * joints of `spec.joints` and of the subtree of `spec.subtree` (faded in
 * over `spec.falloff` levels). Throws a `RangeError` naming a joint the
 * skeleton does not have, or a bad falloff.
 */
export function jointMask(skeleton: MaskSkeleton, spec: JointMaskSpec): Float32Array {
  if (!skeleton || typeof skeleton !== "object" || !Array.isArray(skeleton.names)) {
    throw new TypeError(
      `jointMask: skeleton: expected joint names and parents, got ${describeValue(skeleton)}`,
    );
  }
  if (
    !spec || typeof spec !== "object" || !(spec.joints === undefined || Array.isArray(spec.joints))
  ) {
    throw new TypeError(
      `jointMask: spec: expected { subtree?, joints?: [...], falloff? }, got ${
        describeValue(spec)
      }`,
    );
  }
  const parents = skeleton.parentIndices, n = skeleton.names.length;
  const falloff = spec.falloff ?? 0;
  if (!Number.isInteger(falloff) || falloff < 0 || falloff > 1000) {
    throw new RangeError(
      `jointMask: falloff: expected a whole number of levels >= 0, got ${describeValue(falloff)}`,
    );
  }
  const mask = new Float32Array(n);
  for (const [i, joint] of (spec.joints ?? []).entries()) {
    mask[resolveJoint(skeleton, joint, `jointMask: joints[${i}]`)] = 1;
  }
  if (spec.subtree !== undefined) {
    const root = resolveJoint(skeleton, spec.subtree, "jointMask: subtree");
    // Parents come before children, so one pass finds every depth below the root.
    const depth = new Int32Array(n).fill(-1);
    depth[root] = 0;
    for (let j = root + 1; j < n; j++) {
      const p = parents[j];
      if (p >= 0 && depth[p] >= 0) depth[j] = depth[p] + 1;
    }
    for (let j = root; j < n; j++) {
      if (depth[j] >= 0) mask[j] = Math.max(mask[j], Math.min(1, (depth[j] + 1) / (falloff + 1)));
    }
  }
  return mask;
}

/**
 * A mask given by the game, checked: `jointCount` finite weights in [0, 1].
 * Returns a copy; throws a `RangeError` naming `what` and the bad index.
 */
export function checkedMask(
  mask: ArrayLike<number>,
  jointCount: number,
  what: string,
): Float32Array {
  if (mask === null || typeof mask !== "object" || typeof mask.length !== "number") {
    throw new RangeError(`${what}: expected per-joint weights (jointMask)`);
  }
  if (mask.length !== jointCount) {
    throw new RangeError(
      `${what}: expected ${jointCount} weights (one per joint), got ${describeValue(mask.length)}`,
    );
  }
  const copy = new Float32Array(jointCount);
  for (let j = 0; j < jointCount; j++) {
    const w = mask[j];
    if (typeof w !== "number" || !(w >= 0 && w <= 1)) {
      throw new RangeError(`${what}[${j}]: expected a weight in [0, 1], got ${describeValue(w)}`);
    }
    copy[j] = w;
  }
  return copy;
}
