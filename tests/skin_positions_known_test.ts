/**
 * `skinPositions`, known values worked by hand on every build: caps 1 and
 * 2, bind pose = rest.
 */

import fc from "fast-check";
import * as THREE from "three";
import { assertEquals } from "@std/assert";
import { type InfluenceLists, skinPositions } from "../kernels.ts";
import {
  affineArb,
  assertClose,
  BUILDS,
  EPSILON,
  fcParams,
  flattenInfluences,
  fromColumnMajor,
  inVertices,
  matricesArb,
  positionsArb,
  toColumnMajor,
  vertexInfluencesArb,
} from "./_arbitrary.ts";
import { I, SENTINEL, T, withArenaOf } from "./_skin_positions.ts";

// ----------------------------------------------------------- known values

for (const build of BUILDS) {
  const run = (
    model: number[],
    inverseBind: number[],
    positions: number[],
    influences: InfluenceLists,
    maxInfluences?: number,
  ) =>
    withArenaOf(build, (arena) => {
      const out = arena.vertices(
        new Array(positions.length + 4).fill(SENTINEL),
      );
      skinPositions(
        arena.matrices(model),
        arena.bases(positions, inverseBind, influences),
        out,
        { maxInfluences },
      );
      return Array.from(out.array);
    });

  Deno.test(`skinPositions (${build}): known values`, () => {
    // One influence of weight 1: p + (1, 2, 3); w is 1; the extra vertex
    // is untouched.
    assertEquals(
      run(T(1, 2, 3), I, [1, 1, 1, 1], {
        counts: [1],
        joints: [0],
        weights: [1],
      }),
      [2, 3, 4, 1, SENTINEL, SENTINEL, SENTINEL, SENTINEL],
    );
    // Halfway between T(2, 0, 0) and T(0, 4, 0): p + (1, 2, 0).
    const two = { counts: [2], joints: [0, 1], weights: [0.5, 0.5] };
    const model2 = [...T(2, 0, 0), ...T(0, 4, 0)];
    assertEquals(run(model2, [...I, ...I], [1, 1, 1, 1], two).slice(0, 4), [
      2,
      3,
      1,
      1,
    ]);
    // Cap 1: the first influence with weight 1: p + (2, 0, 0).
    assertEquals(run(model2, [...I, ...I], [1, 1, 1, 1], two, 1).slice(0, 4), [
      3,
      1,
      1,
      1,
    ]);
    // The inverse bind matrix applies first: inverseBind = T(-1, 0, 0)
    // then model T(0, 0, 5): p + (-1, 0, 5).
    assertEquals(
      run(T(0, 0, 5), T(-1, 0, 0), [1, 1, 1, 1], {
        counts: [1],
        joints: [0],
        weights: [1],
      }).slice(0, 4),
      [0, 1, 6, 1],
    );
  });

  Deno.test(`skinPositions (${build}): cap 2 renormalizes the first two weights`, () => {
    const model = [...T(4, 0, 0), ...T(0, 4, 0), ...T(0, 0, 4)];
    const three = {
      counts: [3],
      joints: [0, 1, 2],
      weights: [0.5, 0.25, 0.25],
    };
    const ib = [...I, ...I, ...I];
    // All: 0.5 (4,0,0) + 0.25 (0,4,0) + 0.25 (0,0,4) = (2, 1, 1).
    assertClose(
      run(model, ib, [0, 0, 0, 1], three).slice(0, 4),
      [2, 1, 1, 1],
      EPSILON,
      "all",
    );
    // Cap 2: ((2, 0, 0) + (0, 1, 0)) / 0.75 = (8/3, 4/3, 0).
    assertClose(
      run(model, ib, [0, 0, 0, 1], three, 2).slice(0, 4),
      [8 / 3, 4 / 3, 0, 1],
      EPSILON,
      "cap 2",
    );
    // Cap 1: the heaviest joint alone: (4, 0, 0).
    assertClose(
      run(model, ib, [0, 0, 0, 1], three, 1).slice(0, 4),
      [4, 0, 0, 1],
      EPSILON,
      "cap 1",
    );
    // A cap at or above the count changes nothing.
    assertClose(
      run(model, ib, [0, 0, 0, 1], three, 3).slice(0, 4),
      [2, 1, 1, 1],
      EPSILON,
      "cap 3",
    );
  });

  Deno.test(`skinPositions (${build}): the bind pose gives back the bind positions`, () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 6 }).chain((jointCount) =>
          fc.record({
            bind: matricesArb(affineArb(), jointCount, jointCount),
            positions: positionsArb(4),
            influences: fc.array(vertexInfluencesArb(jointCount, 6), {
              minLength: 4,
              maxLength: 4,
            }),
          })
        ),
        ({ bind, positions, influences }) => {
          // inverseBind[j] = inverse(bind[j]) (three.js, rounded to f32);
          // model = bind.
          const inverseBind = new Float32Array(bind.length);
          for (let j = 0; j < bind.length / 12; j++) {
            const inverse = new THREE.Matrix4().fromArray(
              toColumnMajor(bind, j),
            ).invert();
            inverseBind.set(fromColumnMajor(inverse.elements), j * 12);
          }
          const out = run(
            Array.from(bind),
            Array.from(inverseBind),
            Array.from(positions),
            flattenInfluences(influences),
          );
          // Positions in [-2, 2] through matrices of condition <= 4.
          assertClose(
            out.slice(0, 16),
            positions,
            1e-4,
            "bind pose",
            inVertices,
          );
        },
      ),
      fcParams(100),
    );
  });
}
