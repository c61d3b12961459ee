/**
 * The child of `clip_file_gc_test.ts`, run with `--expose-gc`: loads the
 * compact clip file of `Deno.args[0]` (a test model) `LOADS` times, drops
 * the clips (disposed, as the load bench does), runs two young-generation
 * collections and prints, as JSON, the heap bytes per load that survived
 * them: the least of `ROUNDS` rounds, after a warm-up.
 */
import { type Clip, SkeletonAsset } from "../mod.ts";
import { importGltf } from "../gltf/mod.ts";
import { disposeClip, loadCompactClips, saveCompactClips } from "../clips.ts";
import { Core } from "../kernels.ts";
import { assetUrl } from "./_three_gltf.ts";

const LOADS = 64, ROUNDS = 5;
const gc = (globalThis as unknown as { gc: (options?: { type: string }) => void }).gc;
const model = await importGltf(assetUrl(Deno.args[0]));
const character = model.skeletons.find((s) => s.clips.length > 0)!;
const skeleton = new SkeletonAsset(character.skeleton, Core.create("relaxed-simd"));
const file = saveCompactClips(skeleton, character.clips);
const loaded: Clip[][] = [];
function round(): number {
  gc();
  gc({ type: "minor" });
  const before = Deno.memoryUsage().heapUsed;
  for (let i = 0; i < LOADS; i++) loaded.push(loadCompactClips(skeleton, file));
  for (const clips of loaded) for (const clip of clips) disposeClip(clip);
  loaded.length = 0;
  gc({ type: "minor" });
  gc({ type: "minor" });
  return (Deno.memoryUsage().heapUsed - before) / LOADS;
}
for (let i = 0; i < 20; i++) round();
let least = Infinity;
for (let i = 0; i < ROUNDS; i++) least = Math.min(least, round());
console.log(JSON.stringify({ survivedPerLoad: least, fileBytes: file.length }));
