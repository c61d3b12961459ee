/**
 * A skin's morph targets in a core's memory, and the checked call of the
 * core's `morphVertices` kernel on them: every target's displacements and
 * vertex lists are copied in and validated once, when the skin is built;
 * a call checks the rest (the bind mesh, the output block, the weights)
 * before the kernel runs, so that no call can make it read or write
 * outside the skin's blocks and the caller's output block.
 *
 * @module
 */

import {
  MAX_MESH_MAGNITUDE,
  MORPH_COUNT,
  MORPH_DELTAS,
  MORPH_ENTRY_BYTES,
  MORPH_FIRST,
  MORPH_INDICES,
  MORPH_WEIGHT,
} from "../abi.ts";
import type { MorphTargetStream } from "../scalar/morph.ts";
import type { Core } from "./core.ts";
import { ImmutableBuffer, SkinMesh } from "./immutable.ts";
import { coreKernels, coreMemory } from "./_instance.ts";
import { VERTEX_FLOATS } from "./layout.ts";
import { describeValue } from "./_checks.ts";

/** The bind streams a target may displace, in `SkinMesh.offsets` names. */
const STREAMS = ["positions", "normals", "tangents"] as const;
/** Words per target stream record: deltas, indices (0: a range), first, count. */
const RECORD = 4;

/**
 * Morph targets of a skin of `vertexCount` vertices in a core's memory: per
 * stream (positions, normals, tangents), per target, its displacements,
 * and a table the kernel's entries are written to before each call.
 */
export class MorphTargetBuffer extends ImmutableBuffer {
  readonly #vertexCount: number;
  readonly #targetCount: number;
  /** Per stream, per target: {@linkcode RECORD} words (count 0: no displacement). */
  readonly #records: Uint32Array;
  /** Whether each stream is displaced by some target. */
  readonly #displaced: readonly boolean[];

  /**
   * Copies `streams` (per stream, per target: its displacements, if any)
   * into `core`. Throws a `RangeError` naming the stream, target and index
   * of a vertex list that is not increasing below `vertexCount`, a range
   * beyond it, or a displacement that is not finite or beyond ±1e18.
   */
  constructor(
    core: Core,
    vertexCount: number,
    streams: readonly (readonly (MorphTargetStream | undefined)[])[],
  ) {
    const targetCount = streams[0]?.length ?? 0;
    const records = new Uint32Array(STREAMS.length * targetCount * RECORD);
    const pad = (bytes: number) => Math.ceil(bytes / 16) * 16;
    let bytes = targetCount * MORPH_ENTRY_BYTES;
    STREAMS.forEach((name, s) => {
      const targets = streams[s] ?? [];
      if (targets.length !== targetCount) {
        throw new RangeError(
          `${name}: expected ${targetCount} targets, got ${describeValue(targets.length)}`,
        );
      }
      targets.forEach((target, t) => {
        if (target === undefined) return;
        checkTarget(`${name}[${t}]`, target, vertexCount);
        bytes += target.count * VERTEX_FLOATS * 4 + (target.indices ? pad(target.count * 4) : 0);
      });
    });
    super(bytes, core);
    this.#vertexCount = vertexCount;
    this.#targetCount = targetCount;
    this.#records = records;
    const m = this.views();
    let at = this.byteOffset + targetCount * MORPH_ENTRY_BYTES;
    STREAMS.forEach((_, s) => {
      streams[s].forEach((target, t) => {
        if (target === undefined || target.count === 0) return;
        const r = (s * targetCount + t) * RECORD, floats = target.count * VERTEX_FLOATS;
        records[r + MORPH_DELTAS] = at;
        m.f32.set(target.deltas.subarray(0, floats), at >> 2);
        for (let k = 3; k < floats; k += 4) m.f32[(at >> 2) + k] = 0;
        at += floats * 4;
        if (target.indices) {
          records[r + MORPH_INDICES] = at;
          m.u32.set(target.indices.subarray(0, target.count), at >> 2);
          at += pad(target.count * 4);
        }
        records[r + MORPH_FIRST] = target.first;
        records[r + MORPH_COUNT] = target.count;
      });
    });
    this.#displaced = STREAMS.map((_, s) => streams[s].some((t) => t !== undefined));
  }

  /** Vertices of the skin. */
  get vertexCount(): number {
    return this.#vertexCount;
  }

  /** Number of targets. */
  get targetCount(): number {
    return this.#targetCount;
  }

  /** Whether a target displaces stream `stream` (0 positions, 1 normals, 2 tangents). */
  displaces(stream: number): boolean {
    return this.#displaced[stream] === true;
  }

  /**
   * Writes stream `stream` of `mesh` (the skin's bind mesh) displaced by
   * the targets at `weights` (one per target; those of weight 0 skipped)
   * to `out`, a byte offset inside the caller's block `block`, with the
   * core's kernel. Throws a `TypeError` or `RangeError` naming the argument
   * (nothing written) when the mesh is not a live mesh of this core with
   * this vertex count and stream, `out` does not fit in `block`, `block`
   * is not an allocated block other than the mesh's and this buffer's, or a
   * weight is not a number within ±1e18 (which keeps `w * d` finite).
   * Allocates nothing.
   */
  morph(stream: number, mesh: SkinMesh, out: number, block: number, weights: Float32Array): void {
    const memory = this.views(), n = this.#vertexCount, targets = this.#targetCount;
    if (!(mesh instanceof SkinMesh) || mesh.core !== this.core || mesh.freed) {
      throw new TypeError("morph: mesh: expected a live SkinMesh of the targets' core");
    }
    const base = STREAMS[stream] === undefined ? 0 : mesh.offsets[STREAMS[stream]];
    if (mesh.vertexCount !== n || base === 0) {
      throw new RangeError(
        `morph: mesh: expected ${n} vertices with stream ${stream}, got ${
          describeValue(mesh.vertexCount)
        }`,
      );
    }
    const size = coreMemory(this.core).sizeOf(block), bytes = n * VERTEX_FLOATS * 4;
    if (
      size === undefined || block === this.byteOffset || block === mesh.byteOffset ||
      !Number.isInteger(out) || out % 16 !== 0 || out < block || out + bytes > block + size
    ) {
      throw new RangeError(
        `morph: out: ${bytes} bytes at ${out} do not fit the caller's block ${block} (${size} bytes)`,
      );
    }
    if (!(weights instanceof Float32Array) || weights.length !== targets) {
      throw new RangeError(`morph: weights: expected a Float32Array of ${targets} weights`);
    }
    const u32 = memory.u32, f32 = memory.f32, table = this.byteOffset >> 2;
    let active = 0;
    for (let t = 0; t < targets; t++) {
      const w = weights[t], r = (stream * targets + t) * RECORD;
      if (!(Math.abs(w) <= MAX_MESH_MAGNITUDE)) {
        throw new RangeError(`morph: weights[${t}] is ${w}, not a number within ±1e18`);
      }
      if (w === 0 || this.#records[r + MORPH_COUNT] === 0) continue;
      const e = table + active * (MORPH_ENTRY_BYTES >> 2);
      u32[e + MORPH_DELTAS] = this.#records[r + MORPH_DELTAS];
      u32[e + MORPH_INDICES] = this.#records[r + MORPH_INDICES];
      u32[e + MORPH_FIRST] = this.#records[r + MORPH_FIRST];
      u32[e + MORPH_COUNT] = this.#records[r + MORPH_COUNT];
      f32[e + MORPH_WEIGHT] = w;
      active++;
    }
    coreKernels(this.core).morphVertices(base, out, n, this.byteOffset, active);
  }
}

/** Checks one target stream against a skin of `vertexCount` vertices. */
function checkTarget(at: string, target: MorphTargetStream, vertexCount: number): void {
  const { indices, first, count, deltas } = target;
  if (!Number.isInteger(count) || count < 0 || count > vertexCount) {
    throw new RangeError(`${at}.count: expected 0..${vertexCount}, got ${describeValue(count)}`);
  }
  if (!(deltas instanceof Float32Array) || deltas.length < count * VERTEX_FLOATS) {
    throw new RangeError(`${at}.deltas: expected ${count * VERTEX_FLOATS} floats`);
  }
  for (let i = 0; i < count * VERTEX_FLOATS; i++) {
    if (i % 4 !== 3 && !(Math.abs(deltas[i]) < MAX_MESH_MAGNITUDE)) {
      throw new RangeError(`${at}.deltas[${i}] is ${deltas[i]}, not finite or beyond ±1e18`);
    }
  }
  if (indices === undefined) {
    if (!Number.isInteger(first) || first < 0 || first + count > vertexCount) {
      throw new RangeError(`${at}: vertices ${first}..${first + count - 1} beyond ${vertexCount}`);
    }
    return;
  }
  if (!(indices instanceof Uint32Array) || indices.length < count) {
    throw new RangeError(`${at}.indices: expected a Uint32Array of ${count} vertices`);
  }
  checkVertexList(`${at}.indices`, indices, count, vertexCount);
}

/**
 * The first `count` vertices of `list` (named `name`) must increase and
 * stay below `vertexCount`: a `RangeError` names the first that does not.
 */
export function checkVertexList(
  name: string,
  list: Uint32Array,
  count: number,
  vertexCount: number,
): void {
  for (let k = 0; k < count; k++) {
    if (!(list[k] < vertexCount) || (k > 0 && !(list[k] > list[k - 1]))) {
      throw new RangeError(
        `${name}[${k}] is ${list[k]}: vertices must increase and stay below ${vertexCount}`,
      );
    }
  }
}
