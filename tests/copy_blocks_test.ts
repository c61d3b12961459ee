/**
 * `copyBlocksBatch` (the task-parallel frame's palette snapshot): on every
 * build, random rows of blocks of random sizes at random places copy
 * exactly their bytes, and nothing else of the memory changes; against a
 * copy made in plain JavaScript arrays.
 */

import "../scalar.ts";
import { assertEquals } from "@std/assert";
import fc from "fast-check";
import { coreKernels, coreMemory } from "../simd/memory/_instance.ts";
import { COPY_BYTES, COPY_FROM, COPY_TO, JOB_BYTES, JOB_WORDS } from "../simd/abi.ts";
import { BUILDS, coreFor, fcParams } from "./_arbitrary.ts";

/** Bytes of the arena the blocks are copied within. */
const ARENA = 4096;

const blocks = fc.array(
  fc.record({ from: fc.nat(ARENA / 2 - 1), bytes: fc.nat(ARENA / 4), to: fc.nat(ARENA / 4 - 1) }),
  { minLength: 0, maxLength: 8 },
);

for (const build of BUILDS) {
  Deno.test(`copyBlocksBatch (${build}): each row's bytes copied, nothing else written`, () => {
    const core = coreFor(build);
    const memory = coreMemory(core), kernels = coreKernels(core);
    const arena = memory.alloc(ARENA), jobs = memory.alloc(8 * JOB_BYTES);
    fc.assert(
      fc.property(blocks, fc.integer(), (rows, seed) => {
        const u8 = memory.views().u8;
        for (let i = 0; i < ARENA; i++) u8[arena + i] = (seed + i * 131) & 255;
        const expected = Array.from(u8.subarray(arena, arena + ARENA));
        // Sources in the first half, destinations packed one after another in the second: no overlap.
        let next = ARENA / 2;
        const u32 = memory.views().u32;
        rows.forEach((row, r) => {
          const bytes = Math.min(row.bytes, ARENA / 2 - row.from, ARENA - next);
          const to = next;
          next += bytes;
          const at = (jobs >> 2) + r * JOB_WORDS;
          u32[at + COPY_FROM] = arena + row.from;
          u32[at + COPY_TO] = arena + to;
          u32[at + COPY_BYTES] = bytes;
          for (let k = 0; k < bytes; k++) expected[to + k] = expected[row.from + k];
        });
        kernels.copyBlocksBatch(jobs, rows.length);
        assertEquals(Array.from(memory.views().u8.subarray(arena, arena + ARENA)), expected);
      }),
      fcParams(200, 50),
    );
  });
}
