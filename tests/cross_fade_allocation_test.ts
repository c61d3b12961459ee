/**
 * Cross-fades and replays of clips played before allocate nothing, nor do
 * the frames that fade them (issue #26): in a child process
 * (`_cross_fade_allocation_scene.ts`), after a warm-up, V8's sampling heap
 * profiler finds no allocation whose stack has a frame in Marrow's own
 * modules. The zero-allocation test's heap-growth measure does not see a
 * few tens of bytes per call (its noise is 44 bytes a frame); this test
 * names the function that allocated.
 *
 * @module
 */
import { assert, assertEquals } from "@std/assert";
import { runChild } from "./_child.ts";

const CHILD = new URL("./_cross_fade_allocation_scene.ts", import.meta.url);

/**
 * On the calling thread: the calls run there whatever the frame's threads, and the
 * zero-allocation test runs the frame in every thread mode (this test's scene runs on 2 workers
 * too, `workers` or `task-parallel`, and found nothing there either).
 */
const MODES = ["single-thread"];

for (const threads of MODES) {
  Deno.test(`cross-fades and replays of clips played before allocate nothing, nor do their frames: ${threads}`, async () => {
    // Rounds of warm-up (a cross-fade of every character and 30 frames each): V8's top tier for
    // the calls and the frame, whose lower tiers box doubles.
    const out = await runChild(CHILD, "--max-semi-space-size=16", ["150", threads], [
      "--allow-sys",
    ]);
    const result = JSON.parse(out.trim().split("\n").at(-1)!) as {
      characters: number;
      layered: number;
      calls: number;
      frames: number;
      sites: { bytes: number; stack: string[] }[];
    };
    assert(result.characters >= 24, `characters: ${result.characters}`);
    assert(result.layered >= 9, `characters with a masked layer: ${result.layered}`);
    assertEquals(result.calls, result.characters * 10);
    const bytes = result.sites.reduce((sum, site) => sum + site.bytes, 0);
    const where = result.sites.toSorted((a, b) => b.bytes - a.bytes).slice(0, 8)
      .map((site) => `  ${site.bytes} bytes in ${site.stack.join(" <- ")}`).join("\n");
    assertEquals(
      bytes,
      0,
      `${bytes} bytes allocated by Marrow over ${result.calls} calls and ${result.frames} frames:\n${where}`,
    );
  });
}
