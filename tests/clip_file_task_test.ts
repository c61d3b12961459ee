/**
 * `deno task compact`: writes one compact clip file per skeleton with clips,
 * which loads for that skeleton with the model's clip names; a model of
 * several skeletons gets one file each; bad arguments exit 2.
 */
import "../scalar.ts";
import { assertEquals, assertStringIncludes } from "@std/assert";
import { SkeletonAsset } from "../mod.ts";
import { importGltf } from "../gltf/mod.ts";
import { loadCompactClips } from "../clips.ts";
import { Core } from "../kernels.ts";
import { runCompact } from "../examples/_compact_clips.ts";

const FIXTURES = new URL("./fixtures/gltf/", import.meta.url);

/** Runs the task with files written to a map; the exit code, the files and the lines. */
async function run(args: string[]) {
  const files = new Map<string, Uint8Array>(), lines: string[] = [];
  const code = await runCompact(args, {
    out: (line) => lines.push(line),
    err: (line) => lines.push(line),
    writeFile: (path, bytes) => Promise.resolve(void files.set(path, bytes)),
  });
  return { code, files, lines };
}

for (
  const [name, out, expected] of [
    ["CesiumMan.glb", "out/man.clips", ["out/man.clips"]],
    ["RecursiveSkeletons.glb", "rs.clips", [
      "rs.0.clips",
      "rs.1.clips",
      "rs.2.clips",
      "rs.3.clips",
    ]],
  ] as const
) {
  Deno.test(`compact task: ${name} gives a file per skeleton with clips, loading for it`, async () => {
    const path = decodeURIComponent(new URL(name, FIXTURES).pathname);
    const { code, files, lines } = await run([path, "-o", out]);
    assertEquals(code, 0, lines.join("\n"));
    assertEquals([...files.keys()], [...expected]);
    const model = await importGltf(path);
    const animated = model.skeletons.filter((s) => s.clips.length > 0);
    animated.forEach((character, i) => {
      using skeleton = new SkeletonAsset(character.skeleton, Core.create("scalar"));
      const clips = loadCompactClips(skeleton, files.get(expected[i])!);
      assertEquals(clips.map((c) => c.name), character.clips.map((c) => c.name));
    });
  });
}

Deno.test("compact task: no model, two models or an unknown option exit 2; a missing file exits 1", async () => {
  for (const args of [[], ["a.glb", "b.glb"], ["a.glb", "--frobnicate"]]) {
    const { code, files, lines } = await run(args);
    assertEquals([code, files.size], [2, 0], lines.join("\n"));
    assertStringIncludes(lines.join("\n"), "(see --help)");
  }
  const { code, lines } = await run(["/nonexistent/model.glb"]);
  assertEquals(code, 1);
  assertStringIncludes(lines[0], "model.glb");
});
