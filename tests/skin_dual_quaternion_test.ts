/**
 * Dual-quaternion skinning (`skinDualQuaternions`, Kavan et al. 2007).
 *
 * 1. Every build equals the scalar reference (written from the paper's
 *    formulas) on random meshes, rigid joints with uniform scales, caps and
 *    stream selections; bounds are the box of each build's own positions.
 *    Again on runs of vertices sharing a joint pair (the core's run path),
 *    with joints stored as -q (pairs more than 90 degrees apart), weights
 *    not summing to one, caps to two, and w components exact.
 * 2. Where linear and dual-quaternion skinning must agree they do: every
 *    vertex with a single used influence, and every vertex whose joints
 *    share one transform (a rigid pose of the whole mesh).
 * 3. `paletteToDualQuaternions` refuses non-uniform scale, shear, mirrors.
 */

import fc from "fast-check";
import { assert, assertEquals } from "@std/assert";
import { mat4, quat } from "gl-matrix";
import { instantiate } from "../simd/wasm/_core.ts";
import * as ref from "../simd/scalar/mod.ts";
import { positionBounds } from "../simd/scalar/skinning.ts";
import { BUILDS, fcParams, RUNS } from "./_arbitrary.ts";
import { maxDifference, random, randomQuaternion } from "./_scene.ts";
import { copyToCore, skinAt } from "./_skin_call.ts";

const JOINTS = 6;

/** A random rigid palette with uniform scales in [0.5, 2] (3x4, row-major). */
function rigidPalette(next: () => number, count: number, scaled = true): Float32Array {
  const out = new Float32Array(count * 12);
  for (let j = 0; j < count; j++) {
    const q = randomQuaternion(next);
    const s = scaled ? 0.5 + next() * 1.5 : 1;
    const m = mat4.fromRotationTranslationScale(
      mat4.create(),
      quat.fromValues(q[0], q[1], q[2], q[3]),
      [next() * 6 - 3, next() * 6 - 3, next() * 6 - 3],
      [s, s, s],
    );
    // gl-matrix is column-major: element (r, c) at c * 4 + r.
    for (let r = 0; r < 3; r++) for (let c = 0; c < 4; c++) out[j * 12 + r * 4 + c] = m[c * 4 + r];
  }
  return out;
}

interface Mesh {
  parts: number[];
  joints: Uint16Array;
  weights: Float32Array;
  streams: Float32Array[];
  vertices: number;
}

function randomMesh(next: () => number, parts: [number, number][], joints = JOINTS): Mesh {
  const vertices = parts.reduce((a, [, v]) => a + v, 0);
  const influences = parts.reduce((a, [n, v]) => a + n * v, 0);
  const stream = () => Float32Array.from({ length: vertices * 4 }, () => next() * 4 - 2);
  return {
    parts: parts.flat(),
    joints: Uint16Array.from({ length: influences }, () => Math.floor(next() * joints)),
    weights: Float32Array.from({ length: influences }, () => 0.05 + next()),
    streams: [stream(), stream(), stream()],
    vertices,
  };
}

/** Runs `kernel` of `build` and returns its three streams and bounds. */
function runCore(
  build: (typeof BUILDS)[number],
  kernel: "skinDualQuaternions" | "skinVertices",
  table: Float32Array,
  mesh: Mesh,
  flags: number,
  cap: number,
): { out: Float32Array[]; bounds: Float32Array } {
  const { memory, kernels } = instantiate(build);
  const put = (a: Float32Array | Uint16Array | Uint32Array) => copyToCore(memory, a);
  const at = [table, Uint32Array.from(mesh.parts), mesh.joints, mesh.weights, ...mesh.streams].map(
    put,
  );
  const out = [0, 1, 2].map(() => memory.alloc(mesh.vertices * 16 + 16));
  const bounds = memory.alloc(32);
  skinAt(kernels[kernel], at, mesh.parts.length / 2, out, flags, cap, bounds);
  const f32 = memory.views().f32;
  return {
    out: out.map((p) => f32.slice(p >> 2, (p >> 2) + mesh.vertices * 4)),
    bounds: f32.slice(bounds >> 2, (bounds >> 2) + 8),
  };
}

/**
 * Every build's outputs against the reference on one mesh: within rounding
 * (positions reach |s p| + |t| < 2 * 3.5 + 5.2: 1e-5 of that), bounds the
 * box of its own positions, and the w components exact (1 for positions, +0
 * for normals, the input's for tangents).
 */
function checkBuilds(table: Float32Array, mesh: Mesh, flags: number, cap: number): void {
  const expected = [0, 1, 2].map(() => new Float32Array(mesh.vertices * 4));
  ref.skinDualQuaternions(
    table,
    Uint32Array.from(mesh.parts),
    mesh.joints,
    mesh.weights,
    mesh.streams[0],
    mesh.streams[1],
    mesh.streams[2],
    expected[0],
    expected[1],
    expected[2],
    flags,
    cap,
  );
  for (const build of BUILDS) {
    const { out, bounds } = runCore(build, "skinDualQuaternions", table, mesh, flags, cap);
    assert(maxDifference(out[0], expected[0]) < 2e-4, `${build}: positions`);
    for (const [i, bit] of [[1, 1], [2, 2]]) {
      if (flags & bit) assert(maxDifference(out[i], expected[i]) < 2e-5, `${build}: ${i}`);
    }
    for (let v = 3; v < mesh.vertices * 4; v += 4) {
      assert(Object.is(out[0][v], 1), `${build}: position w`);
      if (flags & 1) assert(Object.is(out[1][v], 0), `${build}: normal w`);
      if (flags & 2) assert(Object.is(out[2][v], mesh.streams[2][v]), `${build}: tangent w`);
    }
    const box = new Float32Array(8);
    positionBounds(out[0], mesh.vertices, box);
    assertEquals(Array.from(bounds), Array.from(box), `${build}: bounds`);
  }
}

const partsArb = fc.array(
  fc.tuple(fc.integer({ min: 1, max: 6 }), fc.integer({ min: 0, max: 9 })),
  { maxLength: 4 },
);

Deno.test("skinDualQuaternions: every build equals the reference from the paper", () => {
  fc.assert(
    fc.property(
      partsArb,
      fc.integer({ min: 0, max: 3 }),
      fc.constantFrom(1, 2, 3, 4, 5, 255),
      fc.integer(),
      (parts, flags, cap, seed) => {
        const next = random(seed);
        const table = new Float32Array(JOINTS * ref.DUAL_QUATERNION_FLOATS);
        assertEquals(ref.paletteToDualQuaternions(rigidPalette(next, JOINTS), JOINTS, table), -1);
        const mesh = randomMesh(next, parts);
        checkBuilds(table, mesh, flags, cap);
      },
    ),
    fcParams(RUNS, 150),
  );
});

// Parts of 2..4 influences made of runs of vertices sharing their first two
// joints, as SkinAsset sorts them: capped to two (or uncapped at two) they
// take the core's run path for joint pairs.
const pairRunsArb = fc.array(
  fc.tuple(
    fc.constantFrom(2, 3, 4),
    fc.array(
      fc.tuple(fc.nat(JOINTS - 1), fc.nat(JOINTS - 1), fc.integer({ min: 1, max: 40 })),
      { minLength: 1, maxLength: 5 },
    ),
  ),
  { minLength: 1, maxLength: 3 },
);

Deno.test("skinDualQuaternions: runs of joint pairs equal the reference (antipodal joints, caps, scales)", () => {
  fc.assert(
    fc.property(
      pairRunsArb,
      fc.integer({ min: 0, max: 3 }),
      fc.constantFrom(2, 255),
      fc.array(fc.boolean(), { minLength: JOINTS, maxLength: JOINTS }),
      fc.integer(),
      (parts, flags, cap, negated, seed) => {
        const next = random(seed);
        const table = new Float32Array(JOINTS * ref.DUAL_QUATERNION_FLOATS);
        assertEquals(ref.paletteToDualQuaternions(rigidPalette(next, JOINTS), JOINTS, table), -1);
        // -q is the same transform as q: pairs more than 90 degrees apart.
        negated.forEach((flip, j) => {
          if (flip) { for (let i = 0; i < 8; i++) table[j * ref.DUAL_QUATERNION_FLOATS + i] *= -1; }
        });
        const joints: number[] = [], weights: number[] = [], partWords: [number, number][] = [];
        for (const [n, runs] of parts) {
          let vertices = 0;
          for (const [a, b, length] of runs) {
            vertices += length;
            for (let v = 0; v < length; v++) {
              for (let i = 0; i < n; i++) {
                joints.push(i === 0 ? a : i === 1 ? b : Math.floor(next() * JOINTS));
                // Not summing to one: the kernels divide by the used weights.
                weights.push(0.05 + next());
              }
            }
          }
          partWords.push([n, vertices]);
        }
        const mesh = randomMesh(next, partWords);
        mesh.joints.set(joints);
        mesh.weights.set(weights);
        checkBuilds(table, mesh, flags, cap);
      },
    ),
    fcParams(200, 50),
  );
});

Deno.test("skinDualQuaternions equals linear skinning for rigid vertices and rigid poses", () => {
  fc.assert(
    fc.property(partsArb, fc.integer({ min: 0, max: 3 }), fc.integer(), (parts, flags, seed) => {
      const next = random(seed);
      // Rigid: linear skinning scales directions by a joint's scale, which
      // dual quaternions (a rotation) do not.
      const palette = rigidPalette(next, JOINTS, false);
      const table = new Float32Array(JOINTS * ref.DUAL_QUATERNION_FLOATS);
      ref.paletteToDualQuaternions(palette, JOINTS, table);
      const mesh = randomMesh(next, parts);
      // Weights summing to one, as a SkinAsset makes them (linear skinning
      // applies them as they are).
      for (let p = 0, k = 0; p < parts.length; p++) {
        const [n, count] = parts[p];
        for (let v = 0; v < count; v++, k += n) {
          const sum = mesh.weights.subarray(k, k + n).reduce((a, b) => a + b, 0);
          for (let i = 0; i < n; i++) mesh.weights[k + i] /= sum;
        }
      }
      // (a) One used influence per vertex: each vertex follows its joint.
      // (b) Every joint the same transform: the mesh moves rigidly.
      const shared = palette.slice(0, 12);
      const samePalette = new Float32Array(JOINTS * 12).map((_, i) => shared[i % 12]);
      const sameTable = new Float32Array(JOINTS * ref.DUAL_QUATERNION_FLOATS);
      ref.paletteToDualQuaternions(samePalette, JOINTS, sameTable);
      for (const [p, t, cap] of [[palette, table, 1], [samePalette, sameTable, 255]] as const) {
        for (const build of BUILDS) {
          const dq = runCore(build, "skinDualQuaternions", t, mesh, flags, cap);
          const linear = runCore(build, "skinVertices", p, mesh, flags, cap);
          assert(maxDifference(dq.out[0], linear.out[0]) < 1e-4, `${build} cap ${cap}: positions`);
          for (const [i, bit] of [[1, 1], [2, 2]]) {
            if (flags & bit) assert(maxDifference(dq.out[i], linear.out[i]) < 1e-5);
          }
        }
      }
    }),
    fcParams(25),
  );
});

Deno.test("paletteToDualQuaternions refuses what is not a rotation times a uniform scale", () => {
  const next = random(3);
  const palette = rigidPalette(next, 4);
  const out = new Float32Array(4 * ref.DUAL_QUATERNION_FLOATS);
  assertEquals(ref.paletteToDualQuaternions(palette, 4, out), -1);
  const stretched = palette.slice();
  for (let r = 0; r < 3; r++) stretched[2 * 12 + r * 4] *= 1.5; // joint 2: x column longer
  assertEquals(ref.paletteToDualQuaternions(stretched, 4, out), 2);
  const mirrored = palette.slice();
  for (let r = 0; r < 3; r++) mirrored[1 * 12 + r * 4] *= -1;
  assertEquals(ref.paletteToDualQuaternions(mirrored, 4, out), 1);
  const sheared = palette.slice();
  sheared[3 * 12 + 1] += 0.3 * Math.hypot(sheared[36], sheared[40], sheared[44]);
  assertEquals(ref.paletteToDualQuaternions(sheared, 4, out), 3);
  assertEquals(ref.paletteToDualQuaternions(new Float32Array(12), 1, out), 0);
});
