/**
 * Two-influence positions without runs of a joint pair, from the palette
 * transposed into the kernel's `columns` scratch: every build equals the
 * scalar reference on random meshes, caps and bounds; w exact; the bounds
 * are the box of the written positions; the scratch holds the palette's
 * columns exactly when the kernel took that path, is untouched otherwise,
 * and nothing is written past it or past the mesh.
 */

import "../scalar.ts";
import fc from "fast-check";
import { assert, assertEquals } from "@std/assert";
import { JOINT_COLUMN_BYTES, SKIN_NORMALS } from "../simd/abi.ts";
import { instantiate } from "../simd/wasm/_core.ts";
import { positionBounds } from "../simd/scalar/skinning.ts";
import { BUILDS, fcParams, RUNS, SIMD_BUILDS } from "./_arbitrary.ts";
import { random } from "./_scene.ts";
import { copyToCore, paletteColumns, referenceOutputs, skinAt } from "./_skin_call.ts";

const SENTINEL = 12345.5;

const caseArb = fc.record({
  joints: fc.integer({ min: 2, max: 24 }),
  // Per part: influences stored per vertex, vertices, and whether they are
  // sorted by joint pair (runs) or in random order.
  parts: fc.array(
    fc.tuple(fc.integer({ min: 1, max: 5 }), fc.nat(160), fc.boolean()),
    { minLength: 1, maxLength: 3 },
  ),
  cap: fc.constantFrom(2, 2, 4),
  normals: fc.boolean(),
  bounded: fc.boolean(),
  seed: fc.integer(),
});

Deno.test("skinVertices with a columns scratch: every build equals the reference on two-influence parts", () => {
  let transposed = 0, untouched = 0;
  fc.assert(
    fc.property(caseArb, ({ joints: jointCount, parts, cap, normals, bounded, seed }) => {
      const next = random(seed);
      const partWords: number[] = [], joints: number[] = [], weights: number[] = [];
      for (const [n, count, sorted] of parts) {
        const tuples = Array.from(
          { length: count },
          () => Array.from({ length: n }, () => Math.floor(next() * jointCount)),
        );
        if (sorted) tuples.sort((a, b) => a[0] - b[0] || (a[1] ?? 0) - (b[1] ?? 0));
        for (const tuple of tuples) {
          const w = Array.from({ length: n }, () => 0.05 + next()).sort((a, b) => b - a);
          const sum = w.reduce((a, b) => a + b, 0);
          for (let i = 0; i < n; i++) {
            joints.push(tuple[i]);
            weights.push(w[i] / sum);
          }
        }
        partWords.push(n, count);
      }
      const vertexCount = partWords.reduce((a, c, i) => i % 2 ? a + c : a, 0);
      const palette = Float32Array.from({ length: jointCount * 12 }, () => next() * 8 - 4);
      const stream = (w: number) =>
        Float32Array.from({ length: vertexCount * 4 }, (_, i) => i % 4 === 3 ? w : next() * 10 - 5);
      const inputs = [stream(1), stream(0), stream(0)];
      const flags = normals ? SKIN_NORMALS : 0;
      const words = Uint32Array.from(partWords);
      const jointArray = Uint16Array.from(joints), weightArray = Float32Array.from(weights);
      const expected = referenceOutputs(
        "skinVertices",
        palette,
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
        const fill = (floats: number) => {
          const ptr = memory.alloc(floats * 4);
          memory.views().f32.fill(SENTINEL, ptr >> 2, (ptr >> 2) + floats);
          return ptr;
        };
        const at = [palette, words, jointArray, weightArray, ...inputs].map(put);
        // One vertex and one joint more than the mesh, filled with a sentinel.
        const out = [0, 1, 2].map(() => fill(vertexCount * 4 + 4));
        const columns = fill((jointCount + 1) * (JOINT_COLUMN_BYTES / 4));
        const bounds = bounded ? memory.alloc(32) : 0;
        skinAt(
          kernels.skinVertices,
          at,
          words.length / 2,
          out,
          flags,
          cap,
          bounds,
          columns,
          jointCount,
        );
        const f32 = memory.views().f32;
        const positions = f32.slice(out[0] >> 2, (out[0] >> 2) + vertexCount * 4 + 4);
        for (let i = 0; i < vertexCount * 4 + 4; i++) {
          const got = positions[i], want = i < vertexCount * 4 ? expected[0][i] : SENTINEL;
          const where = `${build}: positions[${i}] (vertex ${i >> 2})`;
          if (build === "scalar" || i % 4 === 3 || want === SENTINEL) {
            assert(Object.is(got, want), `${where}: ${got}, expected ${want}`);
          } else {
            assert(
              Math.abs(got - want) <= 1e-4 * (1 + Math.abs(want)),
              `${where}: ${got}, expected ${want}`,
            );
          }
        }
        if (bounded) {
          const box = new Float32Array(8);
          positionBounds(positions, vertexCount, box);
          assertEquals(
            Array.from(f32.slice(bounds >> 2, (bounds >> 2) + 8)),
            Array.from(box),
            `${build}: bounds of its output`,
          );
        }
        const scratch = f32.slice(columns >> 2, (columns >> 2) + (jointCount + 1) * 16);
        const past = scratch.subarray(jointCount * 16);
        assert(past.every((x) => x === SENTINEL), `${build}: written past the scratch's joints`);
        if (scratch[0] === SENTINEL) {
          assert(scratch.every((x) => x === SENTINEL), `${build}: the scratch half written`);
          if (SIMD_BUILDS.includes(build)) untouched++;
        } else {
          assertEquals(
            Array.from(scratch.subarray(0, jointCount * 16)),
            Array.from(paletteColumns(palette, jointCount)),
            `${build}: the scratch holds the palette's columns`,
          );
          assert(!normals, `${build}: columns with normals (no loop reads them)`);
          transposed++;
        }
      }
    }),
    fcParams(RUNS, 150),
  );
  // Both paths were taken: the SIMD builds read columns on random
  // two-influence parts long enough to pay for them, rows otherwise.
  assert(transposed >= 10, `the columns path taken ${transposed} times`);
  assert(untouched >= 10, `the rows path taken ${untouched} times`);
});
