/**
 * `copyVertices`, the benches' memory-limit baseline (`skin limit` groups):
 * every build copies the requested streams exactly, writes nothing else,
 * and returns the scalar reference's XOR of the joint and weight words.
 */

import "../scalar.ts";
import fc from "fast-check";
import { assertEquals } from "@std/assert";
import { instantiate } from "../simd/wasm/_core.ts";
import { SkinFlags, VERTEX_FLOATS } from "../simd/memory/layout.ts";
import { BUILDS, fcParams, RUNS } from "./_arbitrary.ts";

const partsArb = fc.array(
  fc.tuple(fc.integer({ min: 1, max: 9 }), fc.integer({ min: 0, max: 7 })),
  {
    maxLength: 4,
  },
);

Deno.test("copyVertices: every build copies the streams and folds joints and weights alike", () => {
  fc.assert(
    fc.property(partsArb, fc.integer({ min: 0, max: 3 }), fc.integer(), (parts, flags, seed) => {
      const vertices = parts.reduce((a, [, v]) => a + v, 0);
      const influences = parts.reduce((a, [n, v]) => a + n * v, 0);
      const results = BUILDS.map((build) => {
        const { memory, kernels } = instantiate(build);
        let s = seed;
        const fill = (bytes: number) => {
          const ptr = memory.alloc(bytes);
          const u8 = memory.views().u8;
          for (let i = 0; i < bytes; i++) {
            u8[ptr + i] = (s = Math.imul(s, 1664525) + 1013904223) >>> 24;
          }
          return ptr;
        };
        const streamBytes = vertices * VERTEX_FLOATS * 4;
        const at = {
          parts: fill(parts.length * 8),
          joints: fill(influences * 2),
          weights: fill(influences * 4),
          streams: [0, 1, 2].map(() => fill(streamBytes)),
          out: [0, 1, 2].map(() => fill(streamBytes)),
        };
        memory.views().u32.set(parts.flat(), at.parts >> 2);
        const fold = kernels.copyVertices(
          at.parts,
          parts.length,
          at.joints,
          at.weights,
          at.streams[0],
          at.streams[1],
          at.streams[2],
          at.out[0],
          at.out[1],
          at.out[2],
          flags,
        ) | 0;
        const u8 = memory.views().u8;
        const bytes = (ptr: number) => Array.from(u8.subarray(ptr, ptr + streamBytes));
        const wanted = [true, !!(flags & SkinFlags.NORMALS), !!(flags & SkinFlags.TANGENTS)];
        for (let i = 0; i < 3; i++) {
          if (wanted[i]) {
            assertEquals(bytes(at.out[i]), bytes(at.streams[i]), `${build}: stream ${i}`);
          }
        }
        return { fold, out: at.out.map(bytes) };
      });
      for (const r of results.slice(1)) assertEquals(r, results[0]);
    }),
    fcParams(RUNS, 150),
  );
});
