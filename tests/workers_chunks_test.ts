/**
 * How the worker pool cuts a batch call into chunks: each row's cost (read
 * from its job row, with no call per row) equals a reference written from
 * the job layout; the chunks cover the rows in order, none empty, at most
 * the pool's count, a joined row never starting one; they are guided
 * (large first, each at most its share of the cost not yet cut, plus one
 * row), so the last ones are small. The row costs read the memory through
 * a fixed-length view that follows the memory's growth.
 */
import { assert, assertEquals } from "@std/assert";
import {
  BATCH_NAMES,
  type BatchName,
  chunkBoundsInto,
  fixedWords,
  rowCostsInto,
} from "../simd/pool/_parallel_kernels.ts";
import { createWorkerPool } from "../kernels.ts";
import { coreMemory } from "../simd/memory/_instance.ts";
import {
  BLEND_JOINT_COUNT,
  CONVERT_COUNT,
  HIERARCHY_COUNT,
  JOB_WORDS,
  MULTIPLY_COUNT,
  POSITIONS_VERTEX_COUNT,
  SAMPLE_GROUP_COUNT,
  SCAN_COUNT,
  SKIN_FLAGS,
  SKIN_NORMALS,
  SKIN_PART_COUNT,
  SKIN_PARTS,
  SKIN_TANGENTS,
} from "../simd/abi.ts";
import { random } from "./_scene.ts";

/** The cost of one row, from the job layout: what the kernel's work grows with. */
function referenceCost(name: BatchName, u32: Uint32Array, at: number, cap: number): number {
  switch (name) {
    case "firstBeyondBatch":
      return u32[at + SCAN_COUNT];
    case "quatToMatBatch":
    case "matToQuatBatch":
      return u32[at + CONVERT_COUNT];
    case "localToModelBatch":
    case "modelToLocalBatch":
      return u32[at + HIERARCHY_COUNT];
    case "multiplyMatricesBatch":
    case "multiplyMatricesCheckedBatch":
      return u32[at + MULTIPLY_COUNT];
    case "blendPosesBatch":
      return u32[at + BLEND_JOINT_COUNT];
    case "sampleCompactBatch":
      return 4 * u32[at + SAMPLE_GROUP_COUNT];
    case "skinPositionsBatch":
      return cap * u32[at + POSITIONS_VERTEX_COUNT];
    default: {
      // Each part: its vertices times (influences at the cap + 1), per stream skinned.
      const flags = u32[at + SKIN_FLAGS], parts = u32[at + SKIN_PARTS] / 4;
      let sum = 0;
      for (let p = 0; p < u32[at + SKIN_PART_COUNT]; p++) {
        sum += u32[parts + 2 * p + 1] * (1 + Math.min(cap, u32[parts + 2 * p]));
      }
      return sum * (1 + (flags & SKIN_NORMALS ? 1 : 0) + (flags & SKIN_TANGENTS ? 1 : 0));
    }
  }
}

Deno.test("workers: each row's cost is the reference's, runs of rows sharing a skin included", () => {
  const next = random(5), int = (n: number) => Math.floor(next() * n);
  for (let trial = 0; trial < 300; trial++) {
    const name = BATCH_NAMES[trial % BATCH_NAMES.length];
    const count = 1 + int(30), partTables = 1 + int(3);
    // Job rows first, then parts tables (influences, vertices) that rows point to.
    const tablesAt = (8 + count * JOB_WORDS) * 4;
    const u32 = new Uint32Array(tablesAt / 4 + partTables * 8);
    const tables = Array.from({ length: partTables }, (_, t) => {
      const parts = 1 + int(4);
      for (let p = 0; p < parts; p++) {
        u32[tablesAt / 4 + t * 8 + 2 * p] = 1 + int(8),
          u32[tablesAt / 4 + t * 8 + 2 * p + 1] = int(500);
      }
      return [tablesAt + t * 32, parts];
    });
    const jobs = 32;
    for (let r = 0; r < count; r++) {
      const at = jobs / 4 + r * JOB_WORDS;
      for (let w = 0; w < JOB_WORDS; w++) u32[at + w] = int(1000);
      // Runs of rows of one skin, and rows that differ only in their flags or part count.
      const [parts, partCount] = tables[int(3) === 0 ? int(partTables) : r % partTables];
      u32[at + SKIN_PARTS] = parts, u32[at + SKIN_PART_COUNT] = 1 + int(partCount);
      u32[at + SKIN_FLAGS] = int(4);
    }
    const cap = 1 + int(8), costs = new Float64Array(count);
    const total = rowCostsInto(name, costs, u32, jobs, count, cap);
    const expected = Array.from(
      { length: count },
      (_, r) => referenceCost(name, u32, jobs / 4 + r * JOB_WORDS, cap),
    );
    assertEquals([...costs], expected, `${name}, cap ${cap}`);
    assertEquals(total, expected.reduce((a, b) => a + b, 0));
  }
});

/** {@linkcode chunkBoundsInto} of `costs`, with row `r` joined when `joined(r)`. */
function chunks(
  costs: readonly number[],
  threads: number,
  maxChunks: number,
  joined?: (row: number) => boolean,
): number[] {
  const out: number[] = [];
  const join = joined && ((_: Uint32Array, at: number) => joined(at / JOB_WORDS));
  chunkBoundsInto(out, costs, costs.length, threads, maxChunks, join, new Uint32Array(0), 0);
  return out;
}

Deno.test("workers: chunks are guided: large first, the last small, joined rows kept together", () => {
  // 2 threads: a quarter of what is left, until an even share of it over the chunks left is more.
  assertEquals(
    chunks(Array(64).fill(1), 2, 16),
    [0, 16, 28, 37, 44, 49, 53, 56, 58, 60, 61, 62, 63, 64],
  );
  assertEquals(chunks([1, 1], 2, 16), [0, 1, 2]);
  assertEquals(chunks([10, 1, 1], 2, 16), [0, 1, 2, 3]);
  assertEquals(chunks([1, 1, 1, 1], 1, 2), [0, 2, 4]);
  assertEquals(chunks([1, 1, 1, 1, 1, 1], 2, 16, (row) => row % 2 === 1), [0, 2, 4, 6]);
  assertEquals(chunks([0, 0, 0], 2, 16), [0, 3]);
  assertEquals(chunks([], 2, 16), [0]);
  const next = random(11), int = (n: number) => Math.floor(next() * n);
  for (let trial = 0; trial < 500; trial++) {
    const count = 1 + int(200), threads = 1 + int(16), maxChunks = threads * (1 + int(8));
    const costs = Array.from({ length: count }, () => int(3) === 0 ? int(1000) : 100 + int(10));
    const joined = Array.from({ length: count }, () => next() < 0.3);
    const bounds = chunks(costs, threads, maxChunks, (row) => joined[row]);
    const what = `${count} rows, ${threads} threads, ${maxChunks} chunks`;
    assertEquals([bounds[0], bounds.at(-1)], [0, count], what);
    assert(bounds.length - 1 <= maxChunks, `${what}: ${bounds.length - 1} chunks`);
    let left = costs.reduce((a, b) => a + b, 0);
    for (let c = 0; c + 1 < bounds.length; c++) {
      assert(bounds[c] < bounds[c + 1], `${what}: chunk ${c} is empty`);
      assert(c === 0 || !joined[bounds[c]], `${what}: chunk ${c} starts at joined row`);
      const rows = costs.slice(bounds[c], bounds[c + 1]);
      const cost = rows.reduce((a, b) => a + b, 0);
      const share = Math.max(left / (2 * threads), left / (maxChunks - c));
      // A chunk ends once its next row's middle is past its share, unless that row is joined or
      // the chunks ran out (the last one takes the rest).
      const last = bounds[c + 1] - 1, free = c + 2 < bounds.length || bounds.length - 1 < maxChunks;
      if (rows.length > 1 && !joined[last] && free) {
        assert(
          cost - costs[last] / 2 <= share,
          `${what}: chunk ${c} costs ${cost}, share ${share}`,
        );
      }
      left -= cost;
    }
  }
});

Deno.test("workers: the row costs' fixed-length view of the core's memory follows its growth", async () => {
  using pool = await createWorkerPool({ workers: 2 });
  const memory = coreMemory(pool.core);
  const u32 = () => memory.views().u32;
  const before = fixedWords(u32());
  assertEquals(before.length, memory.byteLength / 4);
  assert(fixedWords(u32()) === before, "kept while the memory does not grow");
  // Past the current end: the memory grows, and a row written there is read.
  const at = memory.alloc(memory.byteLength + 1024);
  u32()[at / 4 + 3] = 12345;
  const after = fixedWords(u32());
  assertEquals(after.length, memory.byteLength / 4);
  assertEquals(after[at / 4 + 3], 12345);
});
