/**
 * Immutable inputs of the kernels: parent indices, weighted base vectors
 * and skinning meshes. Everything a kernel indexes with lives here and is
 * validated once, when created; there is no writable view, and sizes and
 * offsets are accessors over private fields, so no call can make a kernel
 * read or write outside its buffers.
 *
 * @example
 * ```ts
 * import { ParentIndices } from "@marrow/anim/kernels";
 *
 * const parents = new ParentIndices([-1, 0, 0]);
 * console.log(parents.at(2)); // 0
 * ```
 * @module
 */

import { CoreBuffer } from "./buffers.ts";
import { Core } from "./core.ts";
import {
  checkFinite,
  checkIndex,
  checkInfluences,
  copyChecked,
  describeValue,
  MAX_INFLUENCES,
  MAX_MESH_MAGNITUDE,
  MAX_PARTS,
  MAX_SKIN_JOINTS,
  MAX_VERTICES,
  readOnce,
  readParents,
} from "./_checks.ts";
import { MATRIX_FLOATS, VERTEX_FLOATS } from "./layout.ts";
import {
  SKIN_JOINTS,
  SKIN_NORMALS_IN,
  SKIN_PART_COUNT,
  SKIN_PARTS,
  SKIN_POSITIONS,
  SKIN_TANGENTS_IN,
  SKIN_WEIGHTS,
} from "../abi.ts";

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
  readonly #jointCount: number;

  /**
   * Copies and validates `parents`. Throws a `RangeError` naming the first
   * joint whose parent is not an integer in `-1 .. joint - 1`.
   */
  constructor(parents: ArrayLike<number>, core: Core = Core.default) {
    const list = readParents(parents);
    super(Math.max(2, list.length * 2), core);
    this.#jointCount = list.length;
    this.views().i16.set(list, this.byteOffset >> 1);
  }

  /** Number of joints. */
  get jointCount(): number {
    return this.#jointCount;
  }

  /** Parent of `joint`, `-1` for a root. */
  at(joint: number): number {
    checkIndex("joint", joint, this.#jointCount);
    return this.views().i16[(this.byteOffset >> 1) + joint];
  }

  /** A copy of the parent indices. */
  toArray(): Int16Array {
    const start = this.byteOffset >> 1;
    return this.views().i16.slice(start, start + this.#jointCount);
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
  readonly #vertexCount: number;
  readonly #influenceCount: number;
  readonly #jointCount: number;
  readonly #jointsOffset: number;
  readonly #countsOffset: number;

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
    if (!influences?.counts || typeof influences.counts.length !== "number") {
      throw new RangeError("influence counts: expected an array of counts");
    }
    const countList = readOnce("counts", influences.counts, Float64Array, {
      maxLength: MAX_VERTICES,
    });
    const ib = readOnce("inverseBind", inverseBind, Float32Array, {
      maxLength: MAX_SKIN_JOINTS * MATRIX_FLOATS,
    });
    const { vertexCount, influenceCount, jointCount, joints: jointList, weights } = checkInfluences(
      countList,
      influences.joints,
      influences.weights,
      Math.floor(ib.length / MATRIX_FLOATS),
    );
    const points = readOnce("positions", positions, Float32Array, {
      count: vertexCount * VERTEX_FLOATS,
    });
    checkFinite("positions", points, VERTEX_FLOATS, points.length, MAX_MESH_MAGNITUDE);
    checkFinite("inverseBind", ib, MATRIX_FLOATS, ib.length);
    const basesBytes = influenceCount * 16;
    const jointsBytes = Math.ceil(influenceCount * 2 / 16) * 16;
    super(basesBytes + jointsBytes + vertexCount, core);
    this.#vertexCount = vertexCount;
    this.#influenceCount = influenceCount;
    this.#jointCount = jointCount;
    this.#jointsOffset = this.byteOffset + basesBytes;
    this.#countsOffset = this.#jointsOffset + jointsBytes;
    const m = this.views();
    const joints = m.u16.subarray(
      this.#jointsOffset >> 1,
      (this.#jointsOffset >> 1) + influenceCount,
    );
    const counts = m.u8.subarray(this.#countsOffset, this.#countsOffset + vertexCount);
    joints.set(jointList);
    counts.set(countList);
    const bases = m.f32.subarray(this.byteOffset >> 2, (this.byteOffset >> 2) + influenceCount * 4);
    let k = 0;
    for (let v = 0; v < vertexCount; v++) {
      const px = points[v * 4], py = points[v * 4 + 1], pz = points[v * 4 + 2];
      for (let i = 0; i < counts[v]; i++, k++) {
        const j = joints[k] * MATRIX_FLOATS, w = weights[k];
        bases[k * 4] = w * (ib[j] * px + ib[j + 1] * py + ib[j + 2] * pz + ib[j + 3]);
        bases[k * 4 + 1] = w * (ib[j + 4] * px + ib[j + 5] * py + ib[j + 6] * pz + ib[j + 7]);
        bases[k * 4 + 2] = w * (ib[j + 8] * px + ib[j + 9] * py + ib[j + 10] * pz + ib[j + 11]);
        bases[k * 4 + 3] = w;
      }
    }
  }

  /** Number of vertices. */
  get vertexCount(): number {
    return this.#vertexCount;
  }

  /** Total number of influences. */
  get influenceCount(): number {
    return this.#influenceCount;
  }

  /** Matrices a model-matrix buffer needs: highest joint used + 1. */
  get jointCount(): number {
    return this.#jointCount;
  }

  /** @internal Offset of the joints array. */
  get jointsOffset(): number {
    return this.#jointsOffset;
  }

  /** @internal Offset of the counts array. */
  get countsOffset(): number {
    return this.#countsOffset;
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

/** The sections of a {@linkcode SkinMesh}'s block. */
interface SkinMeshOffsets {
  readonly parts: number;
  readonly joints: number;
  readonly weights: number;
  readonly positions: number;
  readonly normals: number;
  readonly tangents: number;
}

/**
 * An immutable bind mesh for collapsed-palette skinning (paper 002,
 * section 4): vertices in parts of equal influence count, with positions and
 * optional normals and tangents. Coordinates must be finite and below
 * 1e18 in magnitude, so that skinning by a checked palette stays finite.
 */
export class SkinMesh extends ImmutableBuffer {
  readonly #vertexCount: number;
  readonly #partCount: number;
  readonly #jointCount: number;
  readonly #maxInfluences: number;
  readonly #hasNormals: boolean;
  readonly #hasTangents: boolean;
  readonly #offsets: SkinMeshOffsets;

  /** Copies and validates `data` into `core`. */
  constructor(data: SkinMeshData, core: Core = Core.default) {
    // Each field read once, and each list once, before anything is checked.
    const { parts: partsGiven, joints, weights, positions, normals, tangents } = data ?? {};
    const parts = readOnce("parts", partsGiven ?? [], Float64Array, { maxLength: 2 * MAX_PARTS });
    if (parts.length % 2 !== 0) {
      throw new RangeError(
        `parts: expected [influences, vertexCount] pairs, got ${
          describeValue(parts.length)
        } numbers`,
      );
    }
    let vertexTotal = 0;
    for (let p = 0; p < parts.length; p += 2) {
      const k = parts[p], n = parts[p + 1];
      if (!Number.isInteger(k) || k < 1 || k > MAX_INFLUENCES) {
        throw new RangeError(
          `parts[${p}]: influences per vertex must be 1..${MAX_INFLUENCES}, got ${
            describeValue(k)
          }`,
        );
      }
      if (!Number.isInteger(n) || n < 0) {
        throw new RangeError(
          `parts[${p + 1}]: vertex count must be a whole number >= 0, got ${describeValue(n)}`,
        );
      }
      if (n > MAX_VERTICES - vertexTotal) {
        throw new RangeError(`parts[${p + 1}]: the parts hold more than ${MAX_VERTICES} vertices`);
      }
      vertexTotal += n;
    }
    // The streams bound the vertex count before anything is sized by it.
    const floats = vertexTotal * VERTEX_FLOATS;
    const streams = { positions, normals, tangents };
    const read = {} as Record<keyof typeof streams, Float32Array | undefined>;
    for (const name of ["positions", "normals", "tangents"] as const) {
      if (name === "positions" || streams[name]) {
        read[name] = readOnce(name, streams[name], Float32Array, { count: floats });
        checkFinite(name, read[name]!, VERTEX_FLOATS, floats, MAX_MESH_MAGNITUDE);
      }
    }
    const counts = new Uint8Array(vertexTotal);
    for (let p = 0, at = 0; p < parts.length; p += 2) counts.fill(parts[p], at, at += parts[p + 1]);
    const influences = checkInfluences(counts, joints, weights, MAX_SKIN_JOINTS);
    const { vertexCount, influenceCount, jointCount, maxInfluences } = influences;
    const pad = (bytes: number) => Math.ceil(bytes / 16) * 16;
    const sections = {
      parts: pad(parts.length * 4),
      joints: pad(influenceCount * 2),
      weights: pad(influenceCount * 4),
      positions: floats * 4,
      normals: read.normals ? floats * 4 : 0,
      tangents: read.tangents ? floats * 4 : 0,
    };
    super(Object.values(sections).reduce((a, b) => a + b, 0), core);
    let at = this.byteOffset;
    const place = (bytes: number) => {
      const start = bytes ? at : 0;
      at += bytes;
      return start;
    };
    this.#offsets = Object.freeze({
      parts: place(sections.parts),
      joints: place(sections.joints),
      weights: place(sections.weights),
      positions: place(sections.positions),
      normals: place(sections.normals),
      tangents: place(sections.tangents),
    });
    this.#vertexCount = vertexCount;
    this.#partCount = parts.length / 2;
    this.#jointCount = jointCount;
    this.#maxInfluences = maxInfluences;
    this.#hasNormals = !!read.normals;
    this.#hasTangents = !!read.tangents;
    const m = this.views(), o = this.#offsets;
    m.u32.set(parts, o.parts >> 2);
    copyChecked(m.u16, o.joints >> 1, influences.joints, influenceCount);
    copyChecked(m.f32, o.weights >> 2, influences.weights, influenceCount);
    copyChecked(m.f32, o.positions >> 2, read.positions!, floats);
    if (read.normals) copyChecked(m.f32, o.normals >> 2, read.normals, floats);
    if (read.tangents) copyChecked(m.f32, o.tangents >> 2, read.tangents, floats);
  }

  /** Number of vertices. */
  get vertexCount(): number {
    return this.#vertexCount;
  }

  /** Number of parts. */
  get partCount(): number {
    return this.#partCount;
  }

  /** Matrices a palette needs: highest joint used + 1. */
  get jointCount(): number {
    return this.#jointCount;
  }

  /** Whether the mesh has normals. */
  get hasNormals(): boolean {
    return this.#hasNormals;
  }

  /** Whether the mesh has tangents. */
  get hasTangents(): boolean {
    return this.#hasTangents;
  }

  /** Most influences of any vertex. */
  get maxInfluences(): number {
    return this.#maxInfluences;
  }

  /** @internal Offsets of the sections of the block (0 when absent). */
  get offsets(): SkinMeshOffsets {
    return this.#offsets;
  }

  /**
   * @internal The mesh's arguments of the `skinVertices` kernel, in ABI
   * order: parts, part count, joints, weights, positions, normals, tangents.
   */
  get kernelWords(): [number, number, number, number, number, number, number] {
    const words = new Uint32Array(7);
    this.writeKernelWords(words, 0);
    return [...words] as [number, number, number, number, number, number, number];
  }

  /**
   * @internal Writes {@linkcode kernelWords} into `u32` from index `at`,
   * allocating nothing (a system writes it per entity per frame).
   */
  writeKernelWords(u32: Uint32Array, at: number): void {
    const o = this.#offsets;
    // A skinning row's words SKIN_PARTS..SKIN_TANGENTS_IN, `at` the first.
    const row = at - SKIN_PARTS;
    u32[row + SKIN_PARTS] = o.parts;
    u32[row + SKIN_PART_COUNT] = this.#partCount;
    u32[row + SKIN_JOINTS] = o.joints;
    u32[row + SKIN_WEIGHTS] = o.weights;
    u32[row + SKIN_POSITIONS] = o.positions;
    u32[row + SKIN_NORMALS_IN] = o.normals;
    u32[row + SKIN_TANGENTS_IN] = o.tangents;
  }
}
