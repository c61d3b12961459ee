/**
 * Arbitraries of skins for the kernel tests: per-vertex influences (distinct
 * joints, `f32` weights summing to one, heaviest first, some zero), bind
 * positions and unit directions, and bind meshes in parts of equal influence
 * count as `SkinMesh` takes them.
 *
 * @module
 */

import fc from "fast-check";
import { real } from "./_arbitrary_numbers.ts";
import { quatArb } from "./_arbitrary_transforms.ts";

// ------------------------------------------------------------------- skins

/** Influences of one vertex: joints and weights, heaviest first. */
export interface VertexInfluences {
  joints: number[];
  weights: number[];
}

/**
 * Influences of one vertex: `count` (or 1..`maxPer`) distinct joints below
 * `jointCount` with `f32` weights that sum to one (up to rounding), sorted
 * by decreasing weight: the first positive, later ones sometimes zero.
 */
export function vertexInfluencesArb(
  jointCount: number,
  maxPer: number,
  count?: number,
): fc.Arbitrary<VertexInfluences> {
  const n = count === undefined
    ? fc.integer({ min: 1, max: Math.min(maxPer, jointCount) })
    : fc.constant(Math.min(count, jointCount));
  return n.chain((k) =>
    fc.tuple(
      fc.uniqueArray(fc.integer({ min: 0, max: jointCount - 1 }), {
        minLength: k,
        maxLength: k,
      }),
      // Some zero weights, as glTF pads its four influences with them.
      fc.array(
        fc.oneof(
          { weight: 6, arbitrary: real(0.01, 1) },
          { weight: 1, arbitrary: fc.constant<number>(0) },
        ),
        { minLength: k, maxLength: k },
      ),
    )
  ).map(([joints, raw]) => {
    if (Math.max(...raw) === 0) raw[0] = 1;
    const sum = raw.reduce((a, b) => a + b, 0);
    const weights = raw.map((w) => Math.fround(w / sum)).sort((a, b) => b - a);
    return { joints, weights };
  });
}

/** Influence lists of many vertices, as `WeightedBases` takes them. */
export interface Influences {
  counts: number[];
  joints: number[];
  weights: Float32Array;
}

/** Flattens per-vertex influences. */
export function flattenInfluences(
  list: readonly VertexInfluences[],
): Influences {
  return {
    counts: list.map((v) => v.joints.length),
    joints: list.flatMap((v) => v.joints),
    weights: Float32Array.from(list.flatMap((v) => v.weights)),
  };
}

/** Points `(x, y, z, 1)` with coordinates in `[-extent, extent]`. */
export function positionsArb(
  vertexCount: number,
  extent = 2,
): fc.Arbitrary<Float32Array> {
  const x = real(-extent, extent);
  return fc.array(fc.tuple(x, x, x), {
    minLength: vertexCount,
    maxLength: vertexCount,
  }).map((points) => Float32Array.from(points.flatMap(([a, b, c]) => [a, b, c, 1])));
}

/** Unit directions `(x, y, z, w)`, `w` from `ws` (0 for normals). */
export function directionsArb(
  vertexCount: number,
  ws: fc.Arbitrary<number> = fc.constant(0),
): fc.Arbitrary<Float32Array> {
  return fc.array(fc.tuple(quatArb, ws), {
    minLength: vertexCount,
    maxLength: vertexCount,
  }).map((list) =>
    Float32Array.from(list.flatMap(([[x, y, z], w]) => {
      const n = Math.hypot(x, y, z);
      return n < 1e-3 ? [0, 0, 1, w] : [x / n, y / n, z / n, w];
    }))
  );
}

/** A bind mesh as `SkinMesh` takes it, every stream present. */
export interface MeshData {
  parts: number[];
  joints: number[];
  weights: Float32Array;
  positions: Float32Array;
  normals: Float32Array;
  tangents: Float32Array;
}

/** Ranges of {@linkcode meshArb}. */
export interface MeshOptions {
  /** Joints the influences may use. */
  jointCount: number;
  /** Most influences per vertex. */
  maxPer: number;
  /** Most parts. Default 4. */
  maxParts?: number;
  /** Most vertices per part (parts may be empty). Default 5. */
  maxVertices?: number;
}

/**
 * Bind meshes in parts of equal influence count: positions in `[-2, 2]`,
 * unit normals, unit tangents with handedness `±1`.
 */
export function meshArb(options: MeshOptions): fc.Arbitrary<MeshData> {
  const { jointCount, maxPer, maxParts = 4, maxVertices = 5 } = options;
  const perVertex = fc.integer({ min: 1, max: Math.min(maxPer, jointCount) });
  return fc.array(
    fc.tuple(perVertex, fc.integer({ min: 0, max: maxVertices })),
    { minLength: 0, maxLength: maxParts },
  ).chain((pairs) => layoutMeshArb(pairs.flat(), jointCount));
}

/**
 * Bind meshes with the part layout `parts` (`[influences, vertices]`
 * pairs; influences above `jointCount` are lowered to it).
 */
export function layoutMeshArb(
  parts: readonly number[],
  jointCount: number,
): fc.Arbitrary<MeshData> {
  const pairs: [number, number][] = [];
  for (let p = 0; p < parts.length; p += 2) {
    pairs.push([Math.min(parts[p], jointCount), parts[p + 1]]);
  }
  const vertexCount = pairs.reduce((a, [, n]) => a + n, 0);
  return fc.record({
    influences: fc.tuple(
      ...pairs.map(([k, n]) =>
        fc.array(vertexInfluencesArb(jointCount, k, k), {
          minLength: n,
          maxLength: n,
        })
      ),
    ),
    positions: positionsArb(vertexCount),
    normals: directionsArb(vertexCount),
    tangents: directionsArb(vertexCount, fc.constantFrom(1, -1)),
  }).map(({ influences, positions, normals, tangents }) => {
    const flat = flattenInfluences(influences.flat());
    return {
      parts: pairs.flat(),
      joints: flat.joints,
      weights: flat.weights,
      positions,
      normals,
      tangents,
    };
  });
}
