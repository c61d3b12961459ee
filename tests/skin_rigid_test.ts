/**
 * The one- to four-influence loops on vertices sorted by joints, as
 * `SkinAsset` writes them (runs of vertices sharing their joints: the core
 * holds the joints' columns in registers, or without runs of a whole tuple
 * the first joint's rows), and unsorted (the row form): every build equals
 * the scalar reference on random runs, stream selections, renormalize
 * flags and caps (a part of several influences capped to one is rigid
 * too); w components exact; the fused bounds are the box of the written
 * positions; nothing written past the mesh.
 */

import "../scalar.ts";
import fc from "fast-check";
import { assert, assertEquals } from "@std/assert";
import { instantiate } from "../simd/wasm/_core.ts";
import * as ref from "../simd/scalar/mod.ts";
import { positionBounds } from "../simd/scalar/skinning.ts";
import { BUILDS, fcParams, RUNS } from "./_arbitrary.ts";
import { random, randomQuaternion } from "./_scene.ts";
import { copyToCore, referenceOutputs, skinAt } from "./_skin_call.ts";

const JOINTS = 7;
const SENTINEL = 12345.5;

/** Rotation × uniform scale + translation: directions stay well conditioned. */
function palette(next: () => number): Float32Array {
  const m = new Float32Array(JOINTS * 12);
  for (let j = 0; j < JOINTS; j++) {
    const [x, y, z, w] = randomQuaternion(next);
    const s = 0.5 + next() * 1.5;
    m.set([
      (1 - 2 * (y * y + z * z)) * s,
      2 * (x * y - z * w) * s,
      2 * (x * z + y * w) * s,
      next() * 8 - 4,
      2 * (x * y + z * w) * s,
      (1 - 2 * (x * x + z * z)) * s,
      2 * (y * z - x * w) * s,
      next() * 8 - 4,
      2 * (x * z - y * w) * s,
      2 * (y * z + x * w) * s,
      (1 - 2 * (x * x + y * y)) * s,
      next() * 8 - 4,
    ], j * 12);
  }
  return m;
}

const caseArb = fc.record({
  // Per part: influences per vertex and runs of [joint, vertices].
  parts: fc.array(
    fc.tuple(
      fc.integer({ min: 1, max: 4 }),
      fc.array(fc.tuple(fc.nat(JOINTS - 1), fc.integer({ min: 1, max: 24 })), { maxLength: 8 }),
    ),
    { minLength: 1, maxLength: 3 },
  ),
  flags: fc.integer({ min: 0, max: 7 }),
  cap: fc.constantFrom(1, 2, 255),
  seed: fc.integer(),
});

Deno.test("skinVertices, skinDualQuaternions one- and two-influence loops: every build equals the reference on runs of joints", () => {
  fc.assert(
    fc.property(caseArb, ({ parts, flags, cap, seed }) => {
      const next = random(seed);
      const partWords: number[] = [], joints: number[] = [], weights: number[] = [];
      for (const [n, runs] of parts) {
        let vertices = 0;
        for (const [joint, length] of runs) {
          vertices += length;
          // The run's joints: the heaviest given, the others random.
          const tuple = Array.from(
            { length: n },
            (_, i) => i ? Math.floor(next() * JOINTS) : joint,
          );
          for (let v = 0; v < length; v++) {
            // Decreasing weights, as SkinAsset stores them.
            const w = Array.from({ length: n }, () => 0.05 + next()).sort((a, b) => b - a);
            const sum = w.reduce((a, b) => a + b, 0);
            for (let i = 0; i < n; i++) {
              joints.push(tuple[i]);
              weights.push(w[i] / sum);
            }
          }
        }
        partWords.push(n, vertices);
      }
      const vertexCount = partWords.reduce((a, c, i) => i % 2 ? a + c : a, 0);
      const matrices = palette(next);
      const stream = (w: () => number) =>
        Float32Array.from(
          { length: vertexCount * 4 },
          (_, i) => i % 4 === 3 ? w() : next() * 10 - 5,
        );
      const inputs = [stream(() => 1), stream(() => 0), stream(() => next() < 0.5 ? -1 : 1)];
      const words = Uint32Array.from(partWords), jointArray = Uint16Array.from(joints);
      const weightArray = Float32Array.from(weights);
      const table = new Float32Array(JOINTS * ref.DUAL_QUATERNION_FLOATS);
      assertEquals(ref.paletteToDualQuaternions(matrices, JOINTS, table), -1, "rigid palette");
      for (const kernel of ["skinVertices", "skinDualQuaternions"] as const) {
        check(
          kernel,
          kernel === "skinVertices" ? matrices : table,
          words,
          jointArray,
          weightArray,
          inputs,
          vertexCount,
          flags,
          cap,
        );
      }
    }),
    fcParams(RUNS, 150),
  );
});

/** `kernel` of every build against its reference on one case. */
function check(
  kernel: "skinVertices" | "skinDualQuaternions",
  transforms: Float32Array,
  words: Uint32Array,
  jointArray: Uint16Array,
  weightArray: Float32Array,
  inputs: Float32Array[],
  vertexCount: number,
  flags: number,
  cap: number,
): void {
  const expected = referenceOutputs(
    kernel,
    transforms,
    words,
    jointArray,
    weightArray,
    inputs,
    vertexCount,
    flags,
    cap,
  );
  for (const build of BUILDS) {
    const { memory, kernels } = instantiate(build);
    const put = (a: Float32Array | Uint16Array | Uint32Array) => copyToCore(memory, a);
    const at = [transforms, words, jointArray, weightArray, ...inputs].map(put);
    // One vertex more than the mesh, filled with a sentinel.
    const out = [0, 1, 2].map(() => {
      const ptr = memory.alloc(vertexCount * 16 + 16);
      memory.views().f32.fill(SENTINEL, ptr >> 2, (ptr >> 2) + vertexCount * 4 + 4);
      return ptr;
    });
    const bounds = memory.alloc(32);
    skinAt(kernels[kernel], at, words.length / 2, out, flags, cap, bounds);
    const f32 = memory.views().f32;
    const written = out.map((p) => f32.slice(p >> 2, (p >> 2) + vertexCount * 4 + 4));
    ["positions", "normals", "tangents"].forEach((name, s) => {
      const wanted = s === 0 || (flags & s) !== 0;
      for (let i = 0; i < vertexCount * 4 + 4; i++) {
        const got = written[s][i],
          want = wanted && i < vertexCount * 4 ? expected[s][i] : SENTINEL;
        const where = `${kernel} ${build}: ${name}[${i}] (vertex ${i >> 2})`;
        if (build === "scalar" || i % 4 === 3 || want === SENTINEL) {
          assert(Object.is(got, want), `${where}: ${got}, expected ${want}`);
        } else {
          assert(
            Math.abs(got - want) <= 1e-4 * (1 + Math.abs(want)),
            `${where}: ${got}, expected ${want}`,
          );
        }
      }
    });
    const box = new Float32Array(8);
    positionBounds(written[0], vertexCount, box);
    assertEquals(
      Array.from(f32.slice(bounds >> 2, (bounds >> 2) + 8)),
      Array.from(box),
      `${kernel} ${build}: bounds of its output`,
    );
  }
}
