/**
 * {@linkcode SkeletonAsset}: a skeleton built once and shared by every
 * entity that animates it.
 *
 * @example
 * ```ts
 * import { SkeletonAsset } from "@marrow/anim";
 * import { poseFloats, PoseField, poseIndex } from "@marrow/anim/kernels";
 *
 * const restPose = new Float32Array(poseFloats(2));
 * for (let j = 0; j < 2; j++) {
 *   restPose[poseIndex(j, PoseField.QW)] = 1;
 *   for (const f of [PoseField.SX, PoseField.SY, PoseField.SZ]) restPose[poseIndex(j, f)] = 1;
 * }
 * restPose[poseIndex(1, PoseField.TY)] = 1;
 * using skeleton = new SkeletonAsset({
 *   names: ["root", "tip"],
 *   parents: Int16Array.from([-1, 0]),
 *   restPose,
 *   inverseBind: Float32Array.from([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0, 0, 1, 0, -1, 0, 0, 1, 0]),
 * });
 * console.log(skeleton.jointCount); // 2
 * ```
 * @module
 */

import { Core, MatrixBuffer, ParentIndices } from "../simd/memory/core.ts";
import { MATRIX_FLOATS, PoseField, poseFloats, poseLane } from "../simd/memory/layout.ts";
import { describeValue, findNonFinitePose } from "../simd/memory/internal.ts";
import { checkFinite, readOnce, readParents } from "../simd/memory/internal.ts";
import type { SkeletonDefinition } from "./definitions.ts";
import { CoreAsset, registerCoreAssetClass } from "./core_asset.ts";
import { setSkeletonInternals } from "./_asset_internals.ts";

/**
 * An immutable skeleton in a core's memory: joint names, parents (every
 * parent before its children), rest pose and inverse bind matrices.
 *
 * Lifetime: {@linkcode SkeletonAsset.dispose} (or `using`) gives its memory
 * back to the core, and with it the clips built for it. While entities or
 * skins still use it, the release is deferred until the last one lets go;
 * a disposed skeleton cannot be given to a new entity or skin. A skeleton
 * dropped without `dispose()` is released when garbage collected.
 */
export class SkeletonAsset extends CoreAsset {
  readonly #core: Core;
  readonly #jointCount: number;
  readonly #names: readonly string[];
  readonly #parents: ParentIndices;
  readonly #inverseBind: MatrixBuffer;
  readonly #restPose: Float32Array;

  /**
   * Validates and copies `definition`, normalizing rest rotations to unit
   * quaternions (glTF requires them; files are often slightly off). Throws
   * a `RangeError` naming the field and index of the first bad value: a
   * parent out of range, after its child or cyclic; a rest pose or inverse
   * bind matrix too short or not finite; a rest rotation of length zero; a
   * name count that does not match.
   */
  constructor(definition: SkeletonDefinition, core: Core = Core.default) {
    const { names, parents, restPose, inverseBind } = definition ?? {};
    if (!parents || !(parents.length > 0)) {
      throw new RangeError("parents: a skeleton needs at least one joint");
    }
    // Each list read once: what is checked is what is copied.
    const parentList = readParents(parents);
    const jointCount = parentList.length;
    if (!names || names.length !== jointCount) {
      throw new RangeError(
        `names: expected ${jointCount} names, got ${describeValue(names?.length)}`,
      );
    }
    const poseLength = poseFloats(jointCount);
    if (!restPose || !(restPose.length >= poseLength)) {
      throw new RangeError(
        `restPose: expected ${poseLength} floats, got ${describeValue(restPose?.length)}`,
      );
    }
    const rest = readOnce("restPose", restPose, Float32Array, { count: poseLength });
    const bad = findNonFinitePose(rest, jointCount);
    if (bad) throw new RangeError(`restPose: joint ${bad[0]} ${bad[1]} is ${bad[2]}`);
    normalizeRotations(rest, jointCount);
    if (!inverseBind || inverseBind.length !== jointCount * MATRIX_FLOATS) {
      throw new RangeError(
        `inverseBind: expected ${jointCount * MATRIX_FLOATS} floats, got ${
          describeValue(inverseBind?.length)
        }`,
      );
    }
    const inverseBinds = readOnce("inverseBind", inverseBind, Float32Array, {
      count: jointCount * MATRIX_FLOATS,
      exact: true,
    });
    checkFinite("inverseBind", inverseBinds, MATRIX_FLOATS, inverseBinds.length);
    const jointNames = Object.freeze(
      Array.from({ length: jointCount }, (_, i) => String(names[i])),
    );
    const parentIndices = new ParentIndices(parentList, core);
    const inverseBindBuffer = new MatrixBuffer(jointCount, core);
    inverseBindBuffer.array.set(inverseBinds);
    super(() => {
      parentIndices.free();
      inverseBindBuffer.free();
    });
    this.#core = core;
    this.#jointCount = jointCount;
    this.#names = jointNames;
    this.#parents = parentIndices;
    this.#inverseBind = inverseBindBuffer;
    this.#restPose = rest;
    setSkeletonInternals(this, {
      parentsByteOffset: parentIndices.byteOffset,
      inverseBindByteOffset: inverseBindBuffer.byteOffset,
      restPose: rest,
    });
  }

  /** The core whose memory holds the skeleton. */
  get core(): Core {
    return this.#core;
  }

  /** Number of joints. */
  get jointCount(): number {
    return this.#jointCount;
  }

  /** Joint names. */
  get names(): readonly string[] {
    return this.#names;
  }

  /** A copy of the parent of each joint (-1 for roots). */
  get parentIndices(): Int16Array {
    return this.#parents.toArray();
  }

  /** A copy of the rest pose (SoA×4), rotations normalized. */
  get restPose(): Float32Array {
    return this.#restPose.slice();
  }

  /** A copy of the inverse bind matrices (3x4, 12 floats each). */
  get inverseBind(): Float32Array {
    return this.#inverseBind.array.slice();
  }

  /** Index of the joint called `name`, or -1. */
  jointIndex(name: string): number {
    return this.#names.indexOf(name);
  }
}

registerCoreAssetClass(SkeletonAsset);

/** Normalizes each joint's rotation in place; a zero-length one is an error. */
function normalizeRotations(pose: Float32Array, jointCount: number): void {
  for (let j = 0; j < jointCount; j++) {
    const q = poseLane(j) + PoseField.QX * 4;
    // In doubles: a float32 quaternion's squared length cannot overflow.
    const length = Math.hypot(pose[q], pose[q + 4], pose[q + 8], pose[q + 12]);
    if (!(length > 0)) throw new RangeError(`restPose: joint ${j} rotation has length 0`);
    // Unit to float precision already: keep the file's bits.
    if (Math.abs(length - 1) < 1e-6) continue;
    pose[q] = pose[q] / length, pose[q + 4] = pose[q + 4] / length;
    pose[q + 8] = pose[q + 8] / length, pose[q + 12] = pose[q + 12] / length;
  }
}
