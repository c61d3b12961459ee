/**
 * Buffers a program writes: local poses, joint matrices and vertex streams
 * in a core's memory. Their sizes and offsets are accessors over private
 * fields, so that no script (typed or not) can point a kernel elsewhere.
 *
 * @example
 * ```ts
 * import { MatrixBuffer, PoseBuffer, quatToMat } from "@marrow/anim/kernels";
 *
 * const pose = new PoseBuffer(2);
 * pose.setJoint(1, [0, 2, 0], [0, 0, 0, 1]);
 * const matrices = new MatrixBuffer(2);
 * quatToMat(pose, matrices);
 * pose.free();
 * matrices.free();
 * ```
 * @module
 */

import { Core } from "./core.ts";
import { coreMemory } from "./_instance.ts";
import type { CoreMemory } from "./_memory.ts";
import { checkCount, checkIndex } from "./_checks.ts";
import { POSE_FIELD_NAMES, writeJointPose } from "./_pose.ts";
import {
  MATRIX_FLOATS,
  POSE_GROUP_FLOATS,
  PoseField,
  poseFloats,
  poseIndex,
  VERTEX_FLOATS,
} from "./layout.ts";

/** A block of a core's memory. */
export abstract class CoreBuffer {
  readonly #core: Core;
  readonly #byteOffset: number;
  readonly #byteLength: number;
  #freed = false;

  /** Allocates `byteLength` zeroed bytes in `core`. */
  protected constructor(byteLength: number, core: Core) {
    const memory = coreMemory(core);
    this.#core = core;
    this.#byteLength = byteLength;
    this.#byteOffset = memory.alloc(byteLength);
  }

  /** The core whose memory holds this buffer. */
  get core(): Core {
    return this.#core;
  }

  /** Offset of the block in the core's memory, 16-byte aligned. */
  get byteOffset(): number {
    return this.#byteOffset;
  }

  /** Size of the block in bytes. */
  get byteLength(): number {
    return this.#byteLength;
  }

  /** Whether {@linkcode CoreBuffer.free} has been called. */
  get freed(): boolean {
    return this.#freed;
  }

  /** Returns the block to the core. The buffer must not be used after. */
  free(): void {
    if (this.#freed) throw new TypeError(`${this.constructor.name} was already freed`);
    this.#freed = true;
    coreMemory(this.#core).free(this.#byteOffset);
  }

  /** Frees the buffer unless it is already freed, so that `using` works. */
  [Symbol.dispose](): void {
    if (!this.#freed) this.free();
  }

  /** @internal The memory's current views, after checking this buffer is live. */
  protected views(): CoreMemory {
    if (this.#freed) throw new TypeError(`${this.constructor.name} was freed`);
    return coreMemory(this.#core).views();
  }
}

/** A buffer of floats with a view that is remade when the memory grows. */
export abstract class FloatBuffer extends CoreBuffer {
  #view: Float32Array | undefined;
  #generation = -1;

  /**
   * The buffer's floats as a view of the core's memory. Valid until the
   * core next allocates (or, where `core.viewsSurviveGrowth`, until freed);
   * read it again rather than keeping it.
   */
  get array(): Float32Array {
    const memory = this.views();
    if (this.#generation !== memory.generation || !this.#view) {
      this.#view = memory.f32.subarray(
        this.byteOffset >> 2,
        (this.byteOffset + this.byteLength) >> 2,
      );
      this.#generation = memory.generation;
    }
    return this.#view;
  }
}

/** Local poses of `jointCount` joints in the SoA×4 layout of `layout.ts`. */
export class PoseBuffer extends FloatBuffer {
  readonly #jointCount: number;

  /** Allocates a pose of `jointCount` joints set to the identity. */
  constructor(jointCount: number, core: Core = Core.default) {
    checkCount("jointCount", jointCount);
    super(poseFloats(jointCount) * 4, core);
    this.#jointCount = jointCount;
    const a = this.array;
    for (let g = 0; g < a.length; g += POSE_GROUP_FLOATS) {
      a.fill(1, g + PoseField.QW * 4, g + PoseField.QW * 4 + 4);
      a.fill(1, g + PoseField.SX * 4, g + POSE_GROUP_FLOATS);
    }
  }

  /** Number of joints. */
  get jointCount(): number {
    return this.#jointCount;
  }

  /** Sets joint `joint`'s translation, rotation quaternion and scale. */
  setJoint(
    joint: number,
    translation: ArrayLike<number>,
    rotation: ArrayLike<number>,
    scale: ArrayLike<number> = [1, 1, 1],
  ): void {
    checkIndex("joint", joint, this.#jointCount);
    writeJointPose(this.array, 0, joint, translation, rotation, scale, "setJoint:");
  }

  /** Joint `joint`'s pose as `[tx, ty, tz, qx, qy, qz, qw, sx, sy, sz]`. */
  getJoint(joint: number): number[] {
    checkIndex("joint", joint, this.#jointCount);
    const a = this.array;
    return POSE_FIELD_NAMES.map((_, field) => a[poseIndex(joint, field as PoseField)]);
  }
}

/** `count` 3x4 joint matrices, 12 floats each. */
export class MatrixBuffer extends FloatBuffer {
  readonly #count: number;

  /** Allocates `count` identity matrices. */
  constructor(count: number, core: Core = Core.default) {
    checkCount("count", count);
    super(count * MATRIX_FLOATS * 4, core);
    this.#count = count;
    const a = this.array;
    for (let m = 0; m < a.length; m += MATRIX_FLOATS) a[m] = a[m + 5] = a[m + 10] = 1;
  }

  /** Number of matrices. */
  get count(): number {
    return this.#count;
  }
}

/** A vertex stream: `vertexCount` × 4 floats (see `layout.ts`). */
export class VertexBuffer extends FloatBuffer {
  readonly #vertexCount: number;

  /** Allocates a zeroed stream of `vertexCount` vertices. */
  constructor(vertexCount: number, core: Core = Core.default) {
    checkCount("vertexCount", vertexCount);
    super(vertexCount * VERTEX_FLOATS * 4, core);
    this.#vertexCount = vertexCount;
  }

  /** Number of vertices. */
  get vertexCount(): number {
    return this.#vertexCount;
  }
}
