/**
 * Job tables keep rows for several lists at once (a level of detail's
 * staggered lists come round in turn), and a list's rows hold only while
 * the list is the one they were written for: the same object, length,
 * version and variant. Random programs of the systems' calls (look up,
 * write and keep, rewrite a list in place, drop) against a model that
 * remembers what each kept set was written from; the rows a table holds
 * must be those written for the list as it is now, and the table's memory
 * stays bounded.
 */

import "../scalar.ts";
import { assert, assertEquals } from "@std/assert";
import fc from "fast-check";
import { JobTable } from "../components/_job_table.ts";
import { type EntityList, entityList, rewritten } from "../systems/_lod.ts";
import { coreMemory } from "../simd/memory/_instance.ts";
import { Core } from "../kernels.ts";
import { fcParams } from "./_arbitrary_numbers.ts";

const WORDS = 2;
const LISTS = 6;

/** The row words a system writes for entity `eid` of a list, under `variant`. */
function rowOf(eid: number, variant: number): [number, number] {
  return [eid * 7 + 1, variant];
}

type Step =
  | { op: "frame"; list: number; variant: number }
  | { op: "rewrite"; list: number; entities: number[] }
  | { op: "drop" };

const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      op: fc.constant("frame" as const),
      list: fc.nat(LISTS - 1),
      variant: fc.nat(2),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constant("rewrite" as const),
      list: fc.nat(LISTS - 1),
      // Mostly the same lengths, so that only the version tells a rewrite apart.
      entities: fc.array(fc.nat(40), { minLength: 2, maxLength: 3 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("drop" as const) }) },
);

Deno.test("job table: rows held are those written for the list as it is, for up to 4 lists; memory bounded", () => {
  fc.assert(
    fc.property(fc.array(step, { minLength: 1, maxLength: 80 }), (steps) => {
      const memory = coreMemory(Core.create("scalar"));
      const table = new JobTable(memory);
      const lists: EntityList[] = [];
      for (let l = 0; l < LISTS; l++) {
        const list = entityList();
        list.length = 0;
        for (let i = 0; i < 3; i++) list[list.length++] = l * 10 + i;
        lists.push(list);
      }
      const start = memory.allocatedBytes;
      for (const s of steps) {
        if (s.op === "drop") table.drop();
        else if (s.op === "rewrite") {
          const list = lists[s.list];
          list.length = 0;
          for (const eid of s.entities) list[list.length++] = eid;
          rewritten(list);
        } else {
          const list = lists[s.list];
          if (table.holds(list, s.variant)) {
            const u32 = memory.views().u32;
            for (let i = 0; i < list.length; i++) {
              const at = (table.ptr >> 2) + i * WORDS;
              assertEquals(
                [u32[at], u32[at + 1]],
                rowOf(list[i], s.variant),
                `row ${i} of list ${s.list}`,
              );
            }
            continue;
          }
          table.begin(list.length, WORDS);
          const rows = table.staging(list.length * WORDS);
          for (let i = 0; i < list.length; i++) rows.set(rowOf(list[i], s.variant), i * WORDS);
          table.commit(list.length * WORDS);
          table.keep(list, s.variant);
          assert(table.holds(list, s.variant), "rows just kept hold");
        }
      }
      // Four sets of at most 256 bytes each (the smallest a set takes).
      assert(memory.allocatedBytes - start <= 4 * 256, `${memory.allocatedBytes - start} bytes`);
      table.free();
      assertEquals(memory.allocatedBytes, start, "freed");
    }),
    fcParams(300, 100),
  );
});

Deno.test("job table: two lists in turn keep their rows (a staggered crowd writes each once)", () => {
  const memory = coreMemory(Core.create("scalar"));
  const table = new JobTable(memory);
  const a = entityList(), b = entityList();
  a[a.length++] = 1, b[b.length++] = 2;
  let writes = 0;
  for (let frame = 0; frame < 10; frame++) {
    const list = frame % 2 ? b : a;
    if (table.holds(list, 0)) continue;
    writes++;
    table.begin(list.length, WORDS);
    table.keep(list, 0);
  }
  assertEquals(writes, 2);
  rewritten(a);
  assert(!table.holds(a, 0), "a list written over in place holds no rows");
  assert(table.holds(b, 0));
  table.free();
});

Deno.test("job table: floatsView is the table's first floats in the core's memory, one kept view per count for up to 4 counts, none made after", () => {
  const memory = coreMemory(Core.create("scalar"));
  const table = new JobTable(memory);
  table.begin(16, 8);
  // A block after the table's: growing it moves it.
  memory.alloc(16);
  const f32 = memory.views().f32;
  for (let i = 0; i < 128; i++) f32[(table.ptr >> 2) + i] = i + 0.5;
  const views = [8, 16, 24, 32].map((floats) => table.floatsView(floats)!);
  views.forEach((view, k) => {
    assertEquals(view.length, 8 * (k + 1));
    assertEquals(view.byteOffset, table.ptr);
    assertEquals([...view], Array.from({ length: view.length }, (_, i) => i + 0.5));
    // The same count again: the same view, nothing new.
    assert(table.floatsView(view.length) === view);
  });
  // A fifth count: no view made (the caller copies otherwise).
  assertEquals(table.floatsView(40), undefined);
  assert(table.floatsView(16) === views[1]);
  // The table moved (grown): views of its new place.
  const ptr = table.ptr;
  table.begin(1024, 8);
  assert(table.ptr !== ptr);
  const moved = table.floatsView(16)!;
  assertEquals(moved.byteOffset, table.ptr);
});
