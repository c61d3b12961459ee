/**
 * Job rows: every batch kernel of every build reads its rows `JOB_BYTES`
 * apart and their fields where `simd/wasm/assembly/abi.ts` names them. A batch
 * of two rows (the second with other sizes and offsets) writes what the
 * single calls write, bit for bit, on each build.
 */

import "../scalar.ts";
import { assertEquals } from "@std/assert";
import { coreKernels, coreMemory } from "../simd/memory/_instance.ts";
import {
  JOB_BYTES,
  JOB_WORDS,
  POSITIONS_BASES,
  POSITIONS_COUNTS,
  POSITIONS_JOINTS,
  POSITIONS_MODEL,
  POSITIONS_OUT,
  POSITIONS_VERTEX_COUNT,
} from "../simd/abi.ts";
import { MATRIX_FLOATS, VERTEX_FLOATS } from "../simd/memory/layout.ts";
import { BUILDS, coreFor } from "./_arbitrary.ts";

/** A positions-only skin of `vertices` vertices, `influences` each, over `joints` joints. */
interface PositionsJob {
  model: number;
  bases: number;
  joints: number;
  counts: number;
  out: number;
  vertices: number;
}

for (const build of BUILDS) {
  Deno.test(`job rows (${build}): skinPositionsBatch reads each row's fields, JOB_BYTES apart`, () => {
    const core = coreFor(build);
    const memory = coreMemory(core), kernels = coreKernels(core);
    const jointCount = 3, influences = 2;
    const job = (vertices: number, seed: number): PositionsJob => {
      const model = memory.alloc(jointCount * MATRIX_FLOATS * 4);
      const bases = memory.alloc(vertices * influences * 16);
      const joints = memory.alloc(vertices * influences * 2 + 2);
      const counts = memory.alloc(vertices + 3);
      const out = memory.alloc(vertices * VERTEX_FLOATS * 4);
      const { f32, u16, u8 } = memory.views();
      for (let i = 0; i < jointCount * MATRIX_FLOATS; i++) {
        f32[(model >> 2) + i] = ((i * 7 + seed) % 11) / 4 - 1;
      }
      for (let i = 0; i < vertices * influences; i++) {
        f32.set([seed + i, i - seed, (i * seed) % 5, 0.5], (bases >> 2) + i * 4);
        u16[(joints >> 1) + i] = (i + seed) % jointCount;
      }
      u8.fill(influences, counts, counts + vertices);
      return { model, bases, joints, counts, out, vertices };
    };
    const jobs = [job(5, 1), job(3, 4)];
    const outputs = () => {
      const { f32 } = memory.views();
      return jobs.map(({ out, vertices }) =>
        Array.from(f32.subarray(out >> 2, (out >> 2) + vertices * VERTEX_FLOATS))
      );
    };
    for (const { model, bases, joints, counts, out, vertices } of jobs) {
      kernels.skinPositions(model, bases, joints, counts, out, vertices, influences);
    }
    const single = outputs();
    const table = memory.alloc(jobs.length * JOB_BYTES);
    const { u32, f32 } = memory.views();
    jobs.forEach(({ model, bases, joints, counts, out, vertices }, i) => {
      const at = (table >> 2) + i * JOB_WORDS;
      u32[at + POSITIONS_MODEL] = model;
      u32[at + POSITIONS_BASES] = bases;
      u32[at + POSITIONS_JOINTS] = joints;
      u32[at + POSITIONS_COUNTS] = counts;
      u32[at + POSITIONS_OUT] = out;
      u32[at + POSITIONS_VERTEX_COUNT] = vertices;
      f32.fill(NaN, out >> 2, (out >> 2) + vertices * VERTEX_FLOATS);
    });
    kernels.skinPositionsBatch(table, jobs.length, influences);
    assertEquals(outputs(), single);
  });
}
