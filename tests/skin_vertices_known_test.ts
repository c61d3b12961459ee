/**
 * `skinVertices`, known values on every build: identity, rotations, scale
 * with and without renormalize, zero vectors, caps 1 and 2, tangent
 * handedness, parts in order.
 */

import "../scalar.ts";
import { assertEquals } from "@std/assert";
import { skinVertices, type SkinVerticesOptions } from "../kernels.ts";
import { Arena, assertClose, BUILDS, coreFor, EPSILON } from "./_arbitrary.ts";
import type { Known } from "./_skin_vertices.ts";

// ----------------------------------------------------------- known values

/** T(x, y, z). */
const T = (
  x: number,
  y: number,
  z: number,
) => [1, 0, 0, x, 0, 1, 0, y, 0, 0, 1, z];
const I = T(0, 0, 0);
/** Rz(90°): x -> y, y -> -x. */
const RZ = [0, -1, 0, 0, 1, 0, 0, 0, 0, 0, 1, 0];
/** S(2). */
const S2 = [2, 0, 0, 0, 0, 2, 0, 0, 0, 0, 2, 0];
const ZERO = new Array(12).fill(0);

for (const build of BUILDS) {
  /** Skins `mesh` with every stream; returns the three outputs. */
  const run = (
    palette: number[],
    mesh: Known,
    options: SkinVerticesOptions = {},
  ) => {
    const arena = new Arena(coreFor(build));
    try {
      const m = arena.mesh(mesh);
      const n = mesh.positions.length / 4;
      const out = {
        positions: arena.vertices(n),
        normals: arena.vertices(n),
        tangents: arena.vertices(n),
      };
      skinVertices(arena.matrices(palette), m, out, options);
      return {
        positions: Array.from(out.positions.array),
        normals: Array.from(out.normals.array),
        tangents: Array.from(out.tangents.array),
      };
    } finally {
      arena.free();
    }
  };
  const one = (
    positions: number[],
    normals: number[],
    tangents: number[],
  ): Known => ({
    parts: [1, 1],
    joints: [0],
    weights: [1],
    positions,
    normals,
    tangents,
  });

  Deno.test(`skinVertices (${build}): identity, rotation and handedness`, () => {
    const mesh = one([1, 2, 3, 1], [0, 0, 1, 0], [1, 0, 0, -1]);
    assertEquals(run(I, mesh), {
      positions: [1, 2, 3, 1],
      normals: [0, 0, 1, 0],
      tangents: [1, 0, 0, -1],
    });
    // Rz90: (1, 2, 3) -> (-2, 1, 3); x -> y; the handedness stays -1.
    assertEquals(run(RZ, one([1, 2, 3, 1], [1, 0, 0, 0], [0, 1, 0, -1])), {
      positions: [-2, 1, 3, 1],
      normals: [0, 1, 0, 0],
      tangents: [-1, 0, 0, -1],
    });
    // Translation moves positions only.
    assertEquals(
      run(T(5, 6, 7), one([1, 2, 3, 1], [1, 0, 0, 0], [0, 1, 0, 1])),
      {
        positions: [6, 8, 10, 1],
        normals: [1, 0, 0, 0],
        tangents: [0, 1, 0, 1],
      },
    );
  });

  Deno.test(`skinVertices (${build}): renormalize`, () => {
    const mesh = one([1, 0, 0, 1], [1, 0, 0, 0], [0, 0, 3, 1]);
    // S(2) doubles directions, unless renormalized.
    assertEquals(run(S2, mesh), {
      positions: [2, 0, 0, 1],
      normals: [2, 0, 0, 0],
      tangents: [0, 0, 6, 1],
    });
    assertEquals(run(S2, mesh, { renormalize: true }), {
      positions: [2, 0, 0, 1],
      normals: [1, 0, 0, 0],
      tangents: [0, 0, 1, 1],
    });
    // A zero matrix gives zero directions, not NaN.
    assertEquals(run(ZERO, mesh, { renormalize: true }), {
      positions: [0, 0, 0, 1],
      normals: [0, 0, 0, 0],
      tangents: [0, 0, 0, 1],
    });
  });

  Deno.test(`skinVertices (${build}): weights, caps 1 and 2`, () => {
    // Halfway between T(2, 0, 0) and T(0, 4, 0): p + (1, 2, 0).
    const two: Known = {
      parts: [2, 1],
      joints: [0, 1],
      weights: [0.5, 0.5],
      positions: [1, 1, 1, 1],
      normals: [0, 1, 0, 0],
      tangents: [1, 0, 0, 1],
    };
    assertEquals(run([...T(2, 0, 0), ...T(0, 4, 0)], two).positions, [
      2,
      3,
      1,
      1,
    ]);
    // Cap 1: the heaviest influence alone, its weight taken as 1.
    assertEquals(
      run([...T(2, 0, 0), ...T(0, 4, 0)], two, { maxInfluences: 1 }).positions,
      [3, 1, 1, 1],
    );
    const twoScaled = { ...two, weights: [0.6, 0.4] };
    assertEquals(run([...S2, ...I], twoScaled, { maxInfluences: 1 }), {
      positions: [2, 2, 2, 1],
      normals: [0, 2, 0, 0],
      tangents: [2, 0, 0, 1],
    });
    // Three influences 0.5, 0.25, 0.25 of T(4,0,0), T(0,4,0), T(0,0,4).
    const three: Known = {
      parts: [3, 1],
      joints: [0, 1, 2],
      weights: [0.5, 0.25, 0.25],
      positions: [0, 0, 0, 1],
      normals: [0, 0, 1, 0],
      tangents: [0, 1, 0, -1],
    };
    const palette = [...T(4, 0, 0), ...T(0, 4, 0), ...T(0, 0, 4)];
    assertClose(run(palette, three).positions, [2, 1, 1, 1], EPSILON, "all");
    // Cap 2: ((2, 0, 0) + (0, 1, 0)) / 0.75.
    assertClose(
      run(palette, three, { maxInfluences: 2 }).positions,
      [8 / 3, 4 / 3, 0, 1],
      EPSILON,
      "cap 2",
    );
    assertClose(
      run(palette, three, { maxInfluences: 1 }).positions,
      [4, 0, 0, 1],
      EPSILON,
      "cap 1",
    );
  });

  Deno.test(`skinVertices (${build}): parts in order, empty parts skipped`, () => {
    // Part 1: one vertex, one influence (joint 1); part 2: none; part 3:
    // one vertex, two influences (joints 0 and 1, halves).
    const mesh: Known = {
      parts: [1, 1, 4, 0, 2, 1],
      joints: [1, 0, 1],
      weights: [1, 0.5, 0.5],
      positions: [0, 0, 0, 1, 0, 0, 0, 1],
      normals: [1, 0, 0, 0, 1, 0, 0, 0],
      tangents: [0, 1, 0, 1, 0, 1, 0, -1],
    };
    const result = run([...T(2, 0, 0), ...T(0, 2, 0)], mesh);
    assertEquals(result.positions, [0, 2, 0, 1, 1, 1, 0, 1]);
    assertEquals(result.tangents, [0, 1, 0, 1, 0, 1, 0, -1]);
  });
}
