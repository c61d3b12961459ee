/**
 * The WebAssembly core and the buffers that live in its memory.
 *
 * A {@linkcode Core} owns one linear memory. Buffers are allocated in it and
 * handed out as handles ({@linkcode PoseBuffer}, {@linkcode MatrixBuffer},
 * {@linkcode VertexBuffer}); their `array` getter returns a typed-array view
 * made for the memory as it is now. Growing a WebAssembly memory detaches
 * views made before the growth, so **read `array` again after anything that
 * may allocate** (creating a buffer, adding a component) instead of keeping
 * it. Where the runtime exposes the memory as a resizable buffer, views also
 * survive growth.
 *
 * Inputs that the kernels index with (parent indices, skin influences, bind
 * meshes) are immutable: they are validated once when created, so that no
 * kernel call can be made to read or write outside its buffers.
 *
 * @example
 * ```ts
 * import { Core, MatrixBuffer, PoseBuffer, quatToMat } from "@marrow/anim";
 *
 * const core = Core.default;
 * const pose = new PoseBuffer(3, core);
 * pose.setJoint(1, [0, 1, 0], [0, 0, 0, 1], [1, 1, 1]);
 * const matrices = new MatrixBuffer(3, core);
 * quatToMat(pose, matrices);
 * console.log(matrices.array[7]); // 1: joint 1's y translation
 * ```
 * @module
 */

import { bestBuild, type CoreBuild, type CoreInstance, instantiate } from "./_core.ts";
import type { CoreMemory } from "./_memory.ts";
import type { CoreKernels } from "./_abi.ts";
import { POSE_FIELD_NAMES, writeJointPose } from "./_pose.ts";
import {
  MATRIX_FLOATS,
  POSE_GROUP_FLOATS,
  PoseField,
  poseFloats,
  poseIndex,
  VERTEX_FLOATS,
} from "./layout.ts";

export type { CoreBuild } from "./_core.ts";

/** A WebAssembly core: one linear memory and the kernels that run on it. */
export class Core {
  static #default: Core | undefined;
  readonly #instance: CoreInstance;

  private constructor(instance: CoreInstance) {
    this.#instance = instance;
  }

  /**
   * Creates an independent core with its own memory. `build` defaults to
   * the fastest this runtime supports: `"relaxed-simd"`, then `"simd"`,
   * then `"scalar"` (the TypeScript references). Throws a `TypeError` for a
   * build the runtime cannot run.
   */
  static create(build: CoreBuild = bestBuild()): Core {
    return new Core(instantiate(build));
  }

  /** The shared core, created on first use with the fastest build. */
  static get default(): Core {
    return Core.#default ??= Core.create();
  }

  /** Which implementation runs the kernels. */
  get build(): CoreBuild {
    return this.#instance.build;
  }

  /** Size of the core's memory in bytes. */
  get byteLength(): number {
    return this.#instance.memory.byteLength;
  }

  /** Bytes currently allocated to buffers. */
  get allocatedBytes(): number {
    return this.#instance.memory.allocatedBytes;
  }

  /** Highest extent the heap has reached, in bytes. */
  get peakBytes(): number {
    return this.#instance.memory.peakBytes;
  }

  /** @internal The memory, for Marrow's own modules. */
  static memoryOf(core: Core): CoreMemory {
    return core.#instance.memory;
  }

  /** @internal The kernels, for Marrow's own modules. */
  static kernelsOf(core: Core): CoreKernels {
    return core.#instance.kernels;
  }
}

/** A block of a core's memory. */
export abstract class CoreBuffer {
  /** The core whose memory holds this buffer. */
  readonly core: Core;
  /** Offset of the block in the core's memory, 16-byte aligned. */
  readonly byteOffset: number;
  /** Size of the block in bytes. */
  readonly byteLength: number;
  #freed = false;

  /** Allocates `byteLength` zeroed bytes in `core`. */
  protected constructor(byteLength: number, core: Core) {
    if (!(core instanceof Core)) {
      throw new TypeError("core: expected a Core");
    }
    this.core = core;
    this.byteLength = byteLength;
    this.byteOffset = Core.memoryOf(core).alloc(byteLength);
  }

  /** Whether {@linkcode CoreBuffer.free} has been called. */
  get freed(): boolean {
    return this.#freed;
  }

  /** Returns the block to the core. The buffer must not be used after. */
  free(): void {
    if (this.#freed) throw new TypeError(`${this.constructor.name} was already freed`);
    this.#freed = true;
    Core.memoryOf(this.core).free(this.byteOffset);
  }

  /** @internal The memory's current views, after checking this buffer is live. */
  protected views(): CoreMemory {
    if (this.#freed) throw new TypeError(`${this.constructor.name} was freed`);
    return Core.memoryOf(this.core).views();
  }
}

/** A buffer of floats with a view that is remade when the memory grows. */
export abstract class FloatBuffer extends CoreBuffer {
  #view: Float32Array | undefined;
  #generation = -1;

  /**
   * The buffer's floats as a view of the core's memory. Valid until the
   * core next allocates; read it again rather than keeping it.
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
  /** Number of joints. */
  readonly jointCount: number;

  /** Allocates a pose of `jointCount` joints set to the identity. */
  constructor(jointCount: number, core: Core = Core.default) {
    checkCount("jointCount", jointCount);
    super(poseFloats(jointCount) * 4, core);
    this.jointCount = jointCount;
    const a = this.array;
    for (let g = 0; g < a.length; g += POSE_GROUP_FLOATS) {
      a.fill(1, g + PoseField.QW * 4, g + PoseField.QW * 4 + 4);
      a.fill(1, g + PoseField.SX * 4, g + POSE_GROUP_FLOATS);
    }
  }

  /** Sets joint `joint`'s translation, rotation quaternion and scale. */
  setJoint(
    joint: number,
    translation: ArrayLike<number>,
    rotation: ArrayLike<number>,
    scale: ArrayLike<number> = [1, 1, 1],
  ): void {
    checkIndex("joint", joint, this.jointCount);
    writeJointPose(this.array, 0, joint, translation, rotation, scale, "setJoint:");
  }

  /** Joint `joint`'s pose as `[tx, ty, tz, qx, qy, qz, qw, sx, sy, sz]`. */
  getJoint(joint: number): number[] {
    checkIndex("joint", joint, this.jointCount);
    const a = this.array;
    return POSE_FIELD_NAMES.map((_, field) => a[poseIndex(joint, field as PoseField)]);
  }
}

/** `count` 3x4 joint matrices, 12 floats each. */
export class MatrixBuffer extends FloatBuffer {
  /** Number of matrices. */
  readonly count: number;

  /** Allocates `count` identity matrices. */
  constructor(count: number, core: Core = Core.default) {
    checkCount("count", count);
    super(count * MATRIX_FLOATS * 4, core);
    this.count = count;
    const a = this.array;
    for (let m = 0; m < a.length; m += MATRIX_FLOATS) a[m] = a[m + 5] = a[m + 10] = 1;
  }
}

/** A vertex stream: `vertexCount` × 4 floats (see `layout.ts`). */
export class VertexBuffer extends FloatBuffer {
  /** Number of vertices. */
  readonly vertexCount: number;

  /** Allocates a zeroed stream of `vertexCount` vertices. */
  constructor(vertexCount: number, core: Core = Core.default) {
    checkCount("vertexCount", vertexCount);
    super(vertexCount * VERTEX_FLOATS * 4, core);
    this.vertexCount = vertexCount;
  }
}

/**
 * Immutable data in a core's memory, validated when created: it has no
 * writable view, so that what the kernels index with stays valid.
 */
export abstract class ImmutableBuffer extends CoreBuffer {
  /** Allocates `byteLength` bytes in `core` for the subclass to fill. */
  protected constructor(byteLength: number, core: Core) {
    super(byteLength, core);
  }
}

/**
 * Parent index of each joint, validated: `-1` for roots, else an earlier
 * joint, so that one forward pass visits every parent before its children.
 */
export class ParentIndices extends ImmutableBuffer {
  /** Number of joints. */
  readonly jointCount: number;

  /**
   * Copies and validates `parents`. Throws a `RangeError` naming the first
   * joint whose parent is not an integer in `-1 .. joint - 1`.
   */
  constructor(parents: ArrayLike<number>, core: Core = Core.default) {
    checkParents(parents);
    super(Math.max(2, parents.length * 2), core);
    this.jointCount = parents.length;
    this.views().i16.set(Array.from(parents), this.byteOffset >> 1);
  }

  /** Parent of `joint`, `-1` for a root. */
  at(joint: number): number {
    checkIndex("joint", joint, this.jointCount);
    return this.views().i16[(this.byteOffset >> 1) + joint];
  }

  /** A copy of the parent indices. */
  toArray(): Int16Array {
    const start = this.byteOffset >> 1;
    return this.views().i16.slice(start, start + this.jointCount);
  }
}

/** Influences of a skin, one list per vertex, in vertex order. */
export interface InfluenceLists {
  /** Influences of each vertex (at least 1). */
  readonly counts: ArrayLike<number>;
  /** Joint of each influence, vertex by vertex. */
  readonly joints: ArrayLike<number>;
  /** Weight of each influence, vertex by vertex. */
  readonly weights: ArrayLike<number>;
}

/**
 * The positions-only skinning data of paper 002 (section 3): per influence a
 * weighted base vector `(w * (inverseBind[j] * p), w)` and its joint.
 */
export class WeightedBases extends ImmutableBuffer {
  /** Number of vertices. */
  readonly vertexCount: number;
  /** Total number of influences. */
  readonly influenceCount: number;
  /** Matrices a model-matrix buffer needs: highest joint used + 1. */
  readonly jointCount: number;
  /** @internal Offsets of the joints and counts arrays. */
  readonly jointsOffset: number;
  /** @internal */
  readonly countsOffset: number;

  /**
   * Builds the bases from bind positions (4 floats per vertex), inverse bind
   * matrices (12 floats per joint) and influences, validating them all.
   */
  constructor(
    positions: ArrayLike<number>,
    inverseBind: ArrayLike<number>,
    influences: InfluenceLists,
    core: Core = Core.default,
  ) {
    const { vertexCount, influenceCount, jointCount } = checkInfluences(
      influences,
      Math.floor(inverseBind.length / MATRIX_FLOATS),
    );
    checkFinite("positions", positions, VERTEX_FLOATS, vertexCount * VERTEX_FLOATS);
    checkFinite("inverseBind", inverseBind, MATRIX_FLOATS, inverseBind.length);
    const basesBytes = influenceCount * 16;
    const jointsBytes = Math.ceil(influenceCount * 2 / 16) * 16;
    super(basesBytes + jointsBytes + vertexCount, core);
    this.vertexCount = vertexCount;
    this.influenceCount = influenceCount;
    this.jointCount = jointCount;
    this.jointsOffset = this.byteOffset + basesBytes;
    this.countsOffset = this.jointsOffset + jointsBytes;
    const m = this.views();
    const joints = m.u16.subarray(
      this.jointsOffset >> 1,
      (this.jointsOffset >> 1) + influenceCount,
    );
    const counts = m.u8.subarray(this.countsOffset, this.countsOffset + vertexCount);
    joints.set(Array.from(influences.joints));
    counts.set(Array.from(influences.counts));
    const ib = Float32Array.from(inverseBind);
    const bases = m.f32.subarray(this.byteOffset >> 2, (this.byteOffset >> 2) + influenceCount * 4);
    let k = 0;
    for (let v = 0; v < vertexCount; v++) {
      const px = positions[v * 4], py = positions[v * 4 + 1], pz = positions[v * 4 + 2];
      for (let i = 0; i < counts[v]; i++, k++) {
        const j = joints[k] * MATRIX_FLOATS, w = influences.weights[k];
        bases[k * 4] = w * (ib[j] * px + ib[j + 1] * py + ib[j + 2] * pz + ib[j + 3]);
        bases[k * 4 + 1] = w * (ib[j + 4] * px + ib[j + 5] * py + ib[j + 6] * pz + ib[j + 7]);
        bases[k * 4 + 2] = w * (ib[j + 8] * px + ib[j + 9] * py + ib[j + 10] * pz + ib[j + 11]);
        bases[k * 4 + 3] = w;
      }
    }
  }
}

/** Bind-pose data of a mesh for {@linkcode skinVertices}. */
export interface SkinMeshData {
  /**
   * Vertex parts in order: `[influencesPerVertex, vertexCount]` pairs. The
   * joints and weights of each part are stored vertex by vertex, parts one
   * after another.
   */
  readonly parts: ArrayLike<number>;
  /** Joint of each influence. */
  readonly joints: ArrayLike<number>;
  /** Weight of each influence. */
  readonly weights: ArrayLike<number>;
  /** Bind positions, 4 floats per vertex. */
  readonly positions: ArrayLike<number>;
  /** Bind normals, 4 floats per vertex. */
  readonly normals?: ArrayLike<number>;
  /** Bind tangents, 4 floats per vertex (w = handedness). */
  readonly tangents?: ArrayLike<number>;
}

/**
 * An immutable bind mesh for collapsed-palette skinning (paper 002,
 * section 4): vertices in parts of equal influence count, with positions and
 * optional normals and tangents.
 */
export class SkinMesh extends ImmutableBuffer {
  /** Number of vertices. */
  readonly vertexCount: number;
  /** Number of parts. */
  readonly partCount: number;
  /** Matrices a palette needs: highest joint used + 1. */
  readonly jointCount: number;
  /** Whether the mesh has normals. */
  readonly hasNormals: boolean;
  /** Whether the mesh has tangents. */
  readonly hasTangents: boolean;
  /** Most influences of any vertex. */
  readonly maxInfluences: number;
  /** @internal Offsets of the sections of the block (0 when absent). */
  readonly offsets: {
    readonly parts: number;
    readonly joints: number;
    readonly weights: number;
    readonly positions: number;
    readonly normals: number;
    readonly tangents: number;
  };

  /**
   * @internal The mesh's arguments of the `skinVertices` kernel, in ABI
   * order: parts, part count, joints, weights, positions, normals, tangents.
   */
  get kernelWords(): [number, number, number, number, number, number, number] {
    const o = this.offsets;
    return [o.parts, this.partCount, o.joints, o.weights, o.positions, o.normals, o.tangents];
  }

  /** Copies and validates `data` into `core`. */
  constructor(data: SkinMeshData, core: Core = Core.default) {
    const parts = Array.from(data.parts ?? []);
    if (parts.length % 2 !== 0) {
      throw new RangeError(
        `parts: expected [influences, vertexCount] pairs, got ${parts.length} numbers`,
      );
    }
    let vertexCount = 0, influenceCount = 0, maxInfluences = 0;
    for (let p = 0; p < parts.length; p += 2) {
      const k = parts[p], n = parts[p + 1];
      if (!Number.isInteger(k) || k < 1 || k > 255) {
        throw new RangeError(`parts[${p}]: influences per vertex must be 1..255, got ${k}`);
      }
      if (!Number.isInteger(n) || n < 0) {
        throw new RangeError(`parts[${p + 1}]: vertex count must be a whole number >= 0, got ${n}`);
      }
      vertexCount += n;
      influenceCount += k * n;
      maxInfluences = Math.max(maxInfluences, k);
    }
    const jointCount = checkJointsAndWeights(data.joints, data.weights, influenceCount);
    const floats = vertexCount * VERTEX_FLOATS;
    checkFinite("positions", data.positions, VERTEX_FLOATS, floats);
    if (data.normals) checkFinite("normals", data.normals, VERTEX_FLOATS, floats);
    if (data.tangents) checkFinite("tangents", data.tangents, VERTEX_FLOATS, floats);
    const pad = (bytes: number) => Math.ceil(bytes / 16) * 16;
    const sections = {
      parts: pad(parts.length * 4),
      joints: pad(influenceCount * 2),
      weights: pad(influenceCount * 4),
      positions: floats * 4,
      normals: data.normals ? floats * 4 : 0,
      tangents: data.tangents ? floats * 4 : 0,
    };
    super(Object.values(sections).reduce((a, b) => a + b, 0), core);
    let at = this.byteOffset;
    const place = (bytes: number) => {
      const start = bytes ? at : 0;
      at += bytes;
      return start;
    };
    this.offsets = {
      parts: place(sections.parts),
      joints: place(sections.joints),
      weights: place(sections.weights),
      positions: place(sections.positions),
      normals: place(sections.normals),
      tangents: place(sections.tangents),
    };
    this.vertexCount = vertexCount;
    this.partCount = parts.length / 2;
    this.jointCount = jointCount;
    this.maxInfluences = maxInfluences;
    this.hasNormals = !!data.normals;
    this.hasTangents = !!data.tangents;
    const m = this.views();
    m.u32.set(parts, this.offsets.parts >> 2);
    m.u16.set(Array.from(data.joints).slice(0, influenceCount), this.offsets.joints >> 1);
    m.f32.set(Array.from(data.weights).slice(0, influenceCount), this.offsets.weights >> 2);
    m.f32.set(Array.from(data.positions).slice(0, floats), this.offsets.positions >> 2);
    if (data.normals) {
      m.f32.set(Array.from(data.normals).slice(0, floats), this.offsets.normals >> 2);
    }
    if (data.tangents) {
      m.f32.set(Array.from(data.tangents).slice(0, floats), this.offsets.tangents >> 2);
    }
  }
}

// ---------------------------------------------------------------- checks

function checkCount(name: string, value: number): void {
  if (!Number.isInteger(value) || value < 0) {
    throw new RangeError(`${name}: expected a whole number >= 0, got ${value}`);
  }
}

function checkIndex(name: string, value: number, length: number): void {
  if (!Number.isInteger(value) || value < 0 || value >= length) {
    throw new RangeError(`${name}: expected 0..${length - 1}, got ${value}`);
  }
}

function checkParents(parents: ArrayLike<number>): void {
  if (parents.length > 32767) {
    throw new RangeError(`parents: at most 32767 joints, got ${parents.length}`);
  }
  for (let i = 0; i < parents.length; i++) {
    const p = parents[i];
    if (!Number.isInteger(p) || p < -1 || p >= i) {
      throw new RangeError(
        `parents[${i}]: expected -1 (root) or a joint before ${i}, got ${p}` +
          (Number.isInteger(p) && p >= i ? " (parents must come before their children)" : ""),
      );
    }
  }
}

/** Throws a RangeError naming the first non-finite value in `values[0..length)`. */
function checkFinite(
  name: string,
  values: ArrayLike<number>,
  stride: number,
  length: number,
): void {
  if (values.length < length) {
    throw new RangeError(`${name}: expected at least ${length} values, got ${values.length}`);
  }
  for (let i = 0; i < length; i++) {
    if (!Number.isFinite(values[i])) {
      throw new RangeError(
        `${name}[${i}] (element ${Math.floor(i / stride)}, component ${i % stride}) is ${
          values[i]
        }`,
      );
    }
  }
}

/** Validates joints and weights of `count` influences; returns joints used. */
function checkJointsAndWeights(
  joints: ArrayLike<number>,
  weights: ArrayLike<number>,
  count: number,
  jointLimit = 65536,
): number {
  if (joints.length < count) {
    throw new RangeError(`joints: expected at least ${count} values, got ${joints.length}`);
  }
  if (weights.length < count) {
    throw new RangeError(`weights: expected at least ${count} values, got ${weights.length}`);
  }
  let maxJoint = -1;
  for (let k = 0; k < count; k++) {
    const j = joints[k], w = weights[k];
    if (!Number.isInteger(j) || j < 0 || j >= jointLimit) {
      throw new RangeError(`joints[${k}]: expected a joint index 0..${jointLimit - 1}, got ${j}`);
    }
    if (!Number.isFinite(w) || w < 0) {
      throw new RangeError(`weights[${k}]: expected a finite weight >= 0, got ${w}`);
    }
    if (j > maxJoint) maxJoint = j;
  }
  return maxJoint + 1;
}

function checkInfluences(
  influences: InfluenceLists,
  jointLimit: number,
): { vertexCount: number; influenceCount: number; jointCount: number } {
  const { counts } = influences;
  let influenceCount = 0;
  for (let v = 0; v < counts.length; v++) {
    const n = counts[v];
    if (!Number.isInteger(n) || n < 1 || n > 255) {
      throw new RangeError(`counts[${v}]: influences per vertex must be 1..255, got ${n}`);
    }
    influenceCount += n;
  }
  return {
    vertexCount: counts.length,
    influenceCount,
    jointCount: checkJointsAndWeights(
      influences.joints,
      influences.weights,
      influenceCount,
      jointLimit,
    ),
  };
}
