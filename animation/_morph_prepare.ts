/**
 * A skin's morph targets checked and laid out for the morph kernel: every
 * mesh's targets one after the other (mesh 0's first), each stream of each
 * target in the skin's output vertex order, with 4 floats per displaced
 * vertex, and copied once into the skin's core (a {@linkcode MorphTargetBuffer}
 * the skin frees with its mesh), where the kernel reads them.
 *
 * @module
 */

import {
  checkVertexList,
  describeValue,
  MAX_MESH_MAGNITUDE,
  MorphTargetBuffer,
} from "../simd/memory/internal.ts";
import type { Core } from "../simd/memory/core.ts";
import { MATRIX_FLOATS } from "../simd/memory/layout.ts";
import type { MorphTargetStream as MorphStream } from "../simd/scalar/morph.ts";
import type { SkinDefinition } from "./definitions.ts";
import type { MorphDisplacements, MorphTargetDefinition } from "./morph.ts";

/** The morph streams' names, in the order of {@linkcode PreparedMorph.streams}. */
const STREAMS = ["positions", "normals", "tangents"] as const;

/** A skin's morph targets, prepared. */
export interface PreparedMorph {
  /** Every target's name, mesh by mesh. */
  readonly names: readonly string[];
  /** Mesh of each target. */
  readonly meshes: Uint32Array;
  /** Per stream (positions, normals, tangents), per target: its displacements, if any. */
  readonly streams: readonly (readonly (MorphStream | undefined)[])[];
  /**
   * Per target, per joint, 6 floats (min xyz, max xyz): the box, in the
   * joint's bind space (`inverseBind[j]`'s linear part), of the position
   * displacements of the vertices the joint influences, 0 included. The
   * joint's box of `SkinAsset.jointBounds` plus the weighted sum of these
   * holds its vertices at any weights.
   */
  readonly jointBoxes: Float32Array;
  /**
   * Per stream, the skin's bind stream (output order, 4 floats per vertex)
   * when a target displaces it, else undefined: the stream is not morphed.
   */
  readonly bases: readonly (Float32Array | undefined)[];
  /** The targets in the skin's core, where the kernel reads them; freed with the skin. */
  readonly targets: MorphTargetBuffer;
}

/** The skin's influences in output order, for {@linkcode prepareMorph}'s joint boxes. */
interface MorphInfluences {
  /** Pairs of (influences per vertex, vertices), in output order. */
  readonly parts: readonly number[];
  /** Joint of each influence. */
  readonly joints: Uint16Array;
  /** Inverse bind matrices, 3x4 row-major. */
  readonly inverseBind: Float32Array;
  /** The bind streams in output order (positions, normals, tangents; undefined for none). */
  readonly streams: readonly (Float32Array | undefined)[];
}

/**
 * The targets of `definitions` (meshes starting at `firstVertices`, output
 * vertex `outputIndex[first + v]` for source vertex `v`), checked; undefined
 * when no mesh has any, copied into `core` once all are checked. Throws a
 * `RangeError` naming the mesh, target, field and index of the first problem.
 */
export function prepareMorph(
  definitions: readonly SkinDefinition[],
  firstVertices: readonly number[],
  outputIndex: Uint32Array,
  has: { readonly normals: boolean; readonly tangents: boolean },
  influences: MorphInfluences,
  core: Core,
): PreparedMorph | undefined {
  if (!definitions.some((d) => d.morphTargets !== undefined && d.morphTargets.length > 0)) {
    return undefined;
  }
  const names: string[] = [], meshOf: number[] = [];
  const streams: (MorphStream | undefined)[][] = [[], [], []];
  definitions.forEach((definition, m) => {
    const targets = definition.morphTargets;
    if (targets === undefined) return;
    const where = definitions.length > 1 ? `meshes[${m}].morphTargets` : "morphTargets";
    if (!Array.isArray(targets)) throw new RangeError(`${where}: expected an array`);
    targets.forEach((target: MorphTargetDefinition, t) => {
      const at = `${where}[${t}]`;
      if (target === null || typeof target !== "object") {
        throw new RangeError(`${at}: expected a morph target`);
      }
      if (target.name !== undefined && typeof target.name !== "string") {
        throw new RangeError(`${at}.name: expected a string`);
      }
      names.push(target.name ?? "");
      meshOf.push(m);
      STREAMS.forEach((name, s) => {
        const displacements = target[name];
        if (displacements === undefined) return streams[s].push(undefined);
        if (name !== "positions" && !has[name]) {
          throw new RangeError(`${at}.${name}: the skin has no ${name} to displace`);
        }
        streams[s].push(
          layOut(
            displacements,
            definition.vertexCount,
            firstVertices[m],
            outputIndex,
            `${at}.${name}`,
          ),
        );
      });
    });
  });
  const jointBoxes = displacementBoxes(streams[0], influences, outputIndex.length);
  const bases = streams.map((targets, s) =>
    targets.some((t) => t !== undefined) ? influences.streams[s] : undefined
  );
  const targets = new MorphTargetBuffer(core, outputIndex.length, streams);
  return { names, meshes: Uint32Array.from(meshOf), streams, jointBoxes, bases, targets };
}

/** {@linkcode PreparedMorph.jointBoxes} of the position streams `positions`. */
function displacementBoxes(
  positions: readonly (MorphStream | undefined)[],
  { parts, joints, inverseBind }: MorphInfluences,
  vertexCount: number,
): Float32Array {
  const jointCount = inverseBind.length / MATRIX_FLOATS;
  const boxes = new Float32Array(positions.length * jointCount * 6);
  // First influence of each output vertex, and its count.
  const starts = new Uint32Array(vertexCount + 1);
  for (let p = 0, v = 0, k = 0; p < parts.length; p += 2) {
    for (let i = 0; i < parts[p + 1]; i++, v++) starts[v + 1] = k += parts[p];
  }
  positions.forEach((stream, t) => {
    if (!stream) return;
    for (let e = 0; e < stream.count; e++) {
      const v = stream.indices ? stream.indices[e] : stream.first + e;
      const x = stream.deltas[e * 4], y = stream.deltas[e * 4 + 1], z = stream.deltas[e * 4 + 2];
      for (let k = starts[v]; k < starts[v + 1]; k++) {
        const m = joints[k] * MATRIX_FLOATS, b = (t * jointCount + joints[k]) * 6;
        for (let r = 0; r < 3; r++) {
          const c = inverseBind[m + r * 4] * x + inverseBind[m + r * 4 + 1] * y +
            inverseBind[m + r * 4 + 2] * z;
          if (c < boxes[b + r]) boxes[b + r] = c;
          if (c > boxes[b + 3 + r]) boxes[b + 3 + r] = c;
        }
      }
    }
  });
  return boxes;
}

/** One stream of one target in output order, checked. */
function layOut(
  displacements: MorphDisplacements,
  vertexCount: number,
  first: number,
  outputIndex: Uint32Array,
  at: string,
): MorphStream {
  if (displacements === null || typeof displacements !== "object") {
    throw new RangeError(`${at}: expected { vertices?, deltas }`);
  }
  const { vertices, deltas } = displacements;
  if (vertices !== undefined && !(vertices instanceof Uint32Array)) {
    throw new RangeError(`${at}.vertices: expected a Uint32Array`);
  }
  const count = vertices ? vertices.length : vertexCount;
  if (!(deltas instanceof Float32Array) || deltas.length !== count * 3) {
    throw new RangeError(
      `${at}.deltas: expected a Float32Array of ${count * 3} values, got ${
        describeValue(deltas?.length)
      }`,
    );
  }
  for (let i = 0; i < deltas.length; i++) {
    if (!(Math.abs(deltas[i]) < MAX_MESH_MAGNITUDE)) {
      throw new RangeError(`${at}.deltas[${i}] is ${deltas[i]}, not finite or beyond ±1e18`);
    }
  }
  if (!vertices) {
    const out = new Float32Array(count * 4);
    for (let v = 0; v < count; v++) {
      out.set(deltas.subarray(v * 3, v * 3 + 3), (outputIndex[first + v] - first) * 4);
    }
    return { first, count, deltas: out };
  }
  checkVertexList(`${at}.vertices`, vertices, count, vertexCount);
  // Sorted by output vertex, so that the kernel's writes move forward.
  const order = Uint32Array.from({ length: count }, (_, k) => k)
    .sort((a, b) => outputIndex[first + vertices[a]] - outputIndex[first + vertices[b]]);
  const indices = new Uint32Array(count), out = new Float32Array(count * 4);
  order.forEach((k, i) => {
    indices[i] = outputIndex[first + vertices[k]];
    out.set(deltas.subarray(k * 3, k * 3 + 3), i * 4);
  });
  return { indices, first: 0, count, deltas: out };
}
