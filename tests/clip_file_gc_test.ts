/**
 * What a load of a compact clip file leaves to the garbage collector: once
 * its clips are dropped, almost nothing of them survives a young-generation
 * collection. V8's scavenger kept WeakMap values alive whatever their
 * keys, so that a loaded clip's internals kept in WeakMaps (four per clip)
 * and a closure per load in its skeleton's set survived as about 3.3 KB a
 * Fox load, were promoted and made much of the load's mean time the
 * collector's (`animation/_private_slot.ts`, `docs/performance_notes.md`).
 * Run in a child process with `--expose-gc` (`_clip_file_gc_child.ts`),
 * which counts the heap bytes per load left after two young collections.
 */
import { assert } from "@std/assert";
import { runChild } from "./_child.ts";

/**
 * Heap bytes per Fox load still taken for noise (measured 620–630: the
 * core's allocator and V8's own tables). Planted: a compact form's
 * internals in a WeakMap again left 2,640; a closure per load in the
 * skeleton's set of releases 1,300; the loader before both, 3,300.
 */
const MAX_SURVIVED_PER_LOAD = 1_000;
const CHILD = new URL("./_clip_file_gc_child.ts", import.meta.url);

Deno.test("clip files: a dropped load's clips do not survive a young-generation collection", async () => {
  const out = await runChild(CHILD, "--expose-gc", ["Fox.glb"]);
  const { survivedPerLoad, fileBytes } = JSON.parse(out);
  assert(fileBytes > 0);
  assert(
    survivedPerLoad < MAX_SURVIVED_PER_LOAD,
    `${survivedPerLoad.toFixed(0)} bytes per load survived (at most ${MAX_SURVIVED_PER_LOAD})`,
  );
});
