/**
 * The per-mesh preparation behind `SkinAsset`: validation, influences sorted
 * by decreasing weight and renormalized, vertices ordered by influence count,
 * and the per-joint bind-space boxes of `SkinAsset.jointBounds`.
 *
 * @module
 */

import { MATRIX_FLOATS, VERTEX_FLOATS } from "../simd/memory/layout.ts";
import {
  checkFinite,
  checkInfluences,
  describeValue,
  MAX_MESH_MAGNITUDE,
  readOnce,
} from "../simd/memory/internal.ts";
import type { SkinDefinition } from "./definitions.ts";

/** Joint-space boxes of the vertices each joint influences (see `jointBounds`). */
export function jointSpaceBoxes(
  inverseBind: Float32Array,
  parts: readonly number[],
  joints: Uint16Array,
  positions: Float32Array,
): Float32Array {
  const boxes = new Float32Array((inverseBind.length / MATRIX_FLOATS) * 6);
  for (let j = 0; j < boxes.length; j += 6) {
    boxes.fill(Infinity, j, j + 3).fill(-Infinity, j + 3, j + 6);
  }
  let v = 0, k = 0;
  for (let p = 0; p < parts.length; p += 2) {
    const n = parts[p];
    const end = v + parts[p + 1];
    for (; v < end; v++, k += n) {
      const x = positions[v * 4], y = positions[v * 4 + 1], z = positions[v * 4 + 2];
      for (let i = 0; i < n; i++) {
        const j = joints[k + i], m = j * MATRIX_FLOATS, b = j * 6;
        for (let r = 0; r < 3; r++) {
          const e = m + r * 4;
          const c = inverseBind[e] * x + inverseBind[e + 1] * y + inverseBind[e + 2] * z +
            inverseBind[e + 3];
          if (c < boxes[b + r]) boxes[b + r] = c;
          if (c > boxes[b + 3 + r]) boxes[b + 3 + r] = c;
        }
      }
    }
  }
  return boxes;
}

/**
 * Each influence's index within its vertex in decreasing weight order
 * (stable: equal weights keep their order), and each vertex's first
 * influence.
 */
function byDecreasingWeight(
  influenceCounts: ArrayLike<number>,
  weights: ArrayLike<number>,
): { ranked: Uint8Array; starts: Uint32Array } {
  const vertexCount = influenceCounts.length;
  const starts = new Uint32Array(vertexCount);
  let total = 0;
  for (let v = 0; v < vertexCount; v++) {
    starts[v] = total;
    total += influenceCounts[v];
  }
  const ranked = new Uint8Array(total);
  // Insertion sort: a vertex has a few influences, and moving only past a
  // strictly lighter one keeps equal weights in their order.
  for (let v = 0; v < vertexCount; v++) {
    const k = starts[v];
    for (let i = 0; i < influenceCounts[v]; i++) {
      const w = weights[k + i];
      let at = i;
      for (; at > 0 && weights[k + ranked[k + at - 1]] < w; at--) {
        ranked[k + at] = ranked[k + at - 1];
      }
      ranked[k + at] = i;
    }
  }
  return { ranked, starts };
}

/**
 * The output order of one mesh's vertices: by influence count (the core runs
 * one specialised loop per count), then by joints in decreasing weight order
 * (the one- and two-influence loops keep a run's joint matrices in
 * registers, as does a vertex capped to one influence), then by source
 * index.
 */
export function outputVertexOrder(
  influenceCounts: ArrayLike<number>,
  joints: ArrayLike<number>,
  weights: ArrayLike<number>,
): Uint32Array {
  return orderByJoints(influenceCounts, joints, byDecreasingWeight(influenceCounts, weights));
}

function orderByJoints(
  influenceCounts: ArrayLike<number>,
  joints: ArrayLike<number>,
  { ranked, starts }: { ranked: Uint8Array; starts: Uint32Array },
): Uint32Array {
  const vertexCount = influenceCounts.length;
  const order = new Uint32Array(vertexCount);
  for (let v = 0; v < vertexCount; v++) order[v] = v;
  return order.sort((a, b) => {
    const n = influenceCounts[a];
    if (n !== influenceCounts[b]) return n - influenceCounts[b];
    const ka = starts[a], kb = starts[b];
    for (let i = 0; i < n; i++) {
      const d = joints[ka + ranked[ka + i]] - joints[kb + ranked[kb + i]];
      if (d) return d;
    }
    return a - b;
  });
}

/** One mesh, validated, with sorted and renormalized influences. */
interface PreparedMesh {
  /** The bind streams, as read once and checked. */
  readonly streams: {
    readonly positions: Float32Array;
    readonly normals?: Float32Array;
    readonly tangents?: Float32Array;
  };
  readonly vertexCount: number;
  readonly counts: ArrayLike<number>;
  /** Source vertices in output order (see `outputVertexOrder`). */
  readonly order: Uint32Array;
  /** First influence of each source vertex. */
  readonly starts: Uint32Array;
  readonly joints: Uint16Array;
  readonly weights: Float32Array;
  readonly maxInfluences: number;
}

export function prepareMesh(
  definition: SkinDefinition,
  jointCount: number,
  where: string,
  streams: { normals: boolean; tangents: boolean },
): PreparedMesh {
  // Each field read once, and each list once: what is checked is what is used.
  const {
    vertexCount,
    influenceCounts: countsGiven,
    joints: jointsGiven,
    weights: weightsGiven,
    positions,
    normals,
    tangents,
  } = definition ?? {};
  if (!Number.isInteger(vertexCount) || vertexCount < 0) {
    throw new RangeError(
      `${where}vertexCount: expected a whole number >= 0, got ${describeValue(vertexCount)}`,
    );
  }
  if (!countsGiven || countsGiven.length !== vertexCount) {
    throw new RangeError(
      `${where}influenceCounts: expected ${vertexCount} counts, got ${
        describeValue(countsGiven?.length)
      }`,
    );
  }
  const influenceCounts = readOnce(`${where}influenceCounts`, countsGiven, Float64Array, {
    count: vertexCount,
    exact: true,
  });
  const floats = vertexCount * VERTEX_FLOATS;
  const given = { positions, normals, tangents };
  const read: { -readonly [K in keyof PreparedMesh["streams"]]?: Float32Array } = {};
  for (const name of ["positions", "normals", "tangents"] as const) {
    const stream = given[name];
    if (name !== "positions" && !!stream !== streams[name]) {
      throw new RangeError(
        `${where}${name}: every mesh of a skin must have ${name} if the first one has, and none otherwise`,
      );
    }
    if (!stream) {
      if (name === "positions") throw new RangeError(`${where}positions: required`);
      continue;
    }
    read[name] = readOnce(`${where}${name}`, stream, Float32Array, { count: floats });
    checkFinite(`${where}${name}`, read[name]!, VERTEX_FLOATS, floats, MAX_MESH_MAGNITUDE);
  }
  const { influenceCount, maxInfluences, joints, weights } = checkInfluences(
    influenceCounts,
    jointsGiven,
    weightsGiven,
    jointCount,
    { positiveSums: true, where: where.replace(/: $/, ""), countsName: "influenceCounts" },
  );
  const sortedJoints = new Uint16Array(influenceCount);
  const sortedWeights = new Float32Array(influenceCount);
  const ranking = byDecreasingWeight(influenceCounts, weights), { ranked, starts } = ranking;
  for (let v = 0; v < vertexCount; v++) {
    const n = influenceCounts[v], k = starts[v];
    let sum = 0;
    for (let i = 0; i < n; i++) sum += weights[k + i];
    for (let i = 0; i < n; i++) {
      sortedJoints[k + i] = joints[k + ranked[k + i]];
      sortedWeights[k + i] = weights[k + ranked[k + i]] / sum;
    }
  }
  const order = orderByJoints(influenceCounts, joints, ranking);
  return {
    streams: read as PreparedMesh["streams"],
    vertexCount,
    counts: influenceCounts,
    order,
    starts,
    joints: sortedJoints,
    weights: sortedWeights,
    maxInfluences,
  };
}
