/**
 * {@linkcode SkeletonAsset}: a skeleton built once and shared by every
 * entity that animates it.
 *
 * @example
 * ```ts
 * import { SkeletonAsset, poseFloats, PoseField, poseIndex } from "@marrow/anim";
 *
 * const restPose = new Float32Array(poseFloats(2));
 * for (let j = 0; j < 2; j++) {
 *   restPose[poseIndex(j, PoseField.QW)] = 1;
 *   for (const f of [PoseField.SX, PoseField.SY, PoseField.SZ]) restPose[poseIndex(j, f)] = 1;
 * }
 * restPose[poseIndex(1, PoseField.TY)] = 1;
 * const skeleton = new SkeletonAsset({
 *   names: ["root", "tip"],
 *   parents: Int16Array.from([-1, 0]),
 *   restPose,
 *   inverseBind: Float32Array.from([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0, 0, 1, 0, -1, 0, 0, 1, 0]),
 * });
 * console.log(skeleton.jointCount); // 2
 * ```
 * @module
 */

import { Core, MatrixBuffer, ParentIndices } from "../simd/core.ts";
import { MATRIX_FLOATS, poseFloats } from "../simd/layout.ts";
import { findNonFinitePose } from "../simd/_pose.ts";
import type { SkeletonDefinition } from "./definitions.ts";

export type { SkeletonDefinition } from "./definitions.ts";

/**
 * An immutable skeleton in a core's memory: joint names, parents (every
 * parent before its children), rest pose and inverse bind matrices.
 */
export class SkeletonAsset {
  /** The core whose memory holds the skeleton. */
  readonly core: Core;
  /** Number of joints. */
  readonly jointCount: number;
  /** Joint names. */
  readonly names: readonly string[];
  /** @internal Validated parents in the core. */
  readonly parents: ParentIndices;
  /** @internal Inverse bind matrices in the core; never written after creation. */
  readonly inverseBindBuffer: MatrixBuffer;
  readonly #restPose: Float32Array;

  /**
   * Validates and copies `definition`. Throws a `RangeError` naming the
   * field and index of the first bad value: a parent out of range, after
   * its child or cyclic; a rest pose or inverse bind matrix too short or
   * not finite; a name count that does not match.
   */
  constructor(definition: SkeletonDefinition, core: Core = Core.default) {
    const { names, parents, restPose, inverseBind } = definition;
    const jointCount = parents?.length ?? 0;
    if (!parents || jointCount === 0) {
      throw new RangeError("parents: a skeleton needs at least one joint");
    }
    if (!names || names.length !== jointCount) {
      throw new RangeError(`names: expected ${jointCount} names, got ${names?.length}`);
    }
    const poseLength = poseFloats(jointCount);
    if (!restPose || restPose.length < poseLength) {
      throw new RangeError(`restPose: expected ${poseLength} floats, got ${restPose?.length}`);
    }
    const bad = findNonFinitePose(restPose, jointCount);
    if (bad) throw new RangeError(`restPose: joint ${bad[0]} ${bad[1]} is ${bad[2]}`);
    if (!inverseBind || inverseBind.length !== jointCount * MATRIX_FLOATS) {
      throw new RangeError(
        `inverseBind: expected ${jointCount * MATRIX_FLOATS} floats, got ${inverseBind?.length}`,
      );
    }
    for (let i = 0; i < inverseBind.length; i++) {
      if (!Number.isFinite(inverseBind[i])) {
        throw new RangeError(
          `inverseBind: joint ${Math.floor(i / MATRIX_FLOATS)} element ${i % MATRIX_FLOATS} is ${
            inverseBind[i]
          }`,
        );
      }
    }
    this.parents = new ParentIndices(parents, core);
    this.core = core;
    this.jointCount = jointCount;
    this.names = Object.freeze([...names]);
    this.#restPose = Float32Array.from(restPose.subarray(0, poseLength));
    this.inverseBindBuffer = new MatrixBuffer(jointCount, core);
    this.inverseBindBuffer.array.set(inverseBind);
  }

  /** A copy of the parent of each joint (-1 for roots). */
  get parentIndices(): Int16Array {
    return this.parents.toArray();
  }

  /** A copy of the rest pose (SoA×4). */
  get restPose(): Float32Array {
    return this.#restPose.slice();
  }

  /** A copy of the inverse bind matrices (3x4, 12 floats each). */
  get inverseBind(): Float32Array {
    return this.inverseBindBuffer.array.slice();
  }

  /** @internal Writes the rest pose into `target` without a copy. */
  copyRestPoseTo(target: Float32Array): void {
    target.set(this.#restPose);
  }

  /** Index of the joint called `name`, or -1. */
  jointIndex(name: string): number {
    return this.names.indexOf(name);
  }
}
