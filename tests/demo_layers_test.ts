/**
 * The demo's layered mode on a real file: it runs, names its layers, and
 * its instances' poses differ from the unlayered scene's; without a file,
 * or on a file with too few clips, it is a one-line error.
 */
import { assertEquals, assertGreater, assertMatch } from "@std/assert";
import { runDemo } from "../examples/demo.ts";
import { Crowd } from "../examples/crowd.ts";
import { gltfCharacter } from "../examples/gltf_character.ts";
import { layeredCharacter } from "../examples/_layers.ts";
import { getPose } from "../mod.ts";
import { importGltf } from "../gltf/mod.ts";
import { maxDifference } from "./_scene.ts";

const FOX = "tests/fixtures/gltf/Fox.glb";

async function demo(...args: string[]): Promise<{ code: number; out: string[]; err: string[] }> {
  const out: string[] = [], err: string[] = [];
  const code = await runDemo(args, { out: (l) => out.push(l), err: (l) => err.push(l) });
  return { code, out, err };
}

Deno.test("demo --layers plays a layered crowd of a glTF character", async () => {
  const { code, out, err } = await demo(FOX, "--layers", "--frames", "3", "--count", "2");
  assertEquals([code, err], [0, []]);
  assertMatch(
    out.join("\n"),
    /layers: "Walk" on the subtree of "b_Spine01_02" \(0\.7\), "Run" additive/,
  );
  const model = await importGltf(FOX);
  const plain = new Crowd(gltfCharacter(model), 1, "simd");
  const layered = new Crowd(layeredCharacter(model, gltfCharacter(model)), 1, "simd");
  plain.frame(0.5), layered.frame(0.5);
  const a = getPose(plain.world, plain.entities[0]),
    b = getPose(layered.world, layered.entities[0]);
  assertGreater(maxDifference(a, b), 1e-3);
  plain.dispose(), layered.dispose();
});

Deno.test("demo --layers without a file, or on a file of one clip, is a one-line error", async () => {
  const none = await demo("--layers");
  assertEquals(none.code, 2);
  assertMatch(none.err[0], /^error: --layers needs a glTF file/);
  const few = await demo("tests/fixtures/gltf/CesiumMan.glb", "--layers", "--frames", "1");
  assertEquals(few.code, 1);
  assertMatch(few.err[0], /--layers needs a file with at least 3 clips/);
});
