/**
 * Loading compact clip files (`animation/clip_file.ts`): group "clip file
 * load, FILE" per model, the file of its first skeleton with clips
 * (BrainStem and Xbot from `../shared/assets/gltf/` when it is there).
 * Baseline: a plain copy of the file's bytes into a buffer (memcpy). Then
 * `loadCompactClips` (every check, the copy into the core, the clips made)
 * and the xxHash32 of the file alone.
 *
 * The figure to read is each row's mean (`avg`), not its best: every
 * iteration handles the file `LOADS` times (about 2 MB, so that a small
 * file's iteration is not a few microseconds of timer noise), keeps the
 * clips loaded until its end and disposes of them after it, untimed; 200
 * iterations after 100 of warm-up. The collections the loads cause land in
 * the mean, as they would in a game's. MB/s is `LOADS` × the file's bytes
 * (both in the row's name) over the mean.
 *
 * `deno bench --import-map=import_map.dev.json -A bench/clip_file_bench.ts`
 *
 * `CLIP_FILE_BEFORE=<another checkout of Marrow>` adds that checkout's
 * `loadCompactClips` row to each group (its skeleton asset, core and
 * loader, the same file), in the same run, interleaved with this one's.
 */
import * as mod from "../mod.ts";
import * as clips from "../clips.ts";
import * as kernels from "../kernels.ts";
import type { Clip } from "../mod.ts";
import { importGltf } from "../gltf/mod.ts";
import { xxhash32 } from "../animation/_clip_file_format.ts";
import { assetUrl } from "../tests/_three_gltf.ts";
import { missingTestOnlyModels } from "../tests/_assets.ts";

const missing = missingTestOnlyModels();
const MODELS = ["BrainStem.glb", "Xbot.glb", "RobotExpressive.glb", "Fox.glb"]
  .filter((m) => !missing.includes(m));
/** Bytes each iteration handles, at least (whole files). */
const ITERATION_BYTES = 2e6;
/** Each row warms up on its own: with 20 iterations, the first loader row of the run paid V8's tiering. */
const ITERATIONS = { n: 200, warmup: 100 };

/** What the rows need of a checkout. */
interface Checkout {
  readonly mod: Pick<typeof mod, "SkeletonAsset">;
  readonly clips: Pick<typeof clips, "disposeClip" | "loadCompactClips" | "saveCompactClips">;
  readonly kernels: Pick<typeof kernels, "Core">;
}

const checkouts: [string, Checkout][] = [["", { mod, clips, kernels }]];
const before = Deno.env.get("CLIP_FILE_BEFORE");
if (before) {
  const root = new URL(`file://${before.replace(/\/?$/, "/")}`);
  const load = (path: string) => import(new URL(path, root).href);
  checkouts.push([
    "before: ",
    { mod: await load("mod.ts"), clips: await load("clips.ts"), kernels: await load("kernels.ts") },
  ]);
}

for (const name of MODELS) {
  const model = await importGltf(assetUrl(name));
  const character = model.skeletons.find((s) => s.clips.length > 0)!;
  const skeletons = checkouts.map(([, checkout]) =>
    new checkout.mod.SkeletonAsset(character.skeleton, checkout.kernels.Core.create("relaxed-simd"))
  );
  const file = clips.saveCompactClips(skeletons[0], character.clips);
  const loads = Math.ceil(ITERATION_BYTES / file.length);
  // Untimed: the first loader row of the run otherwise grew V8's young generation for the rows
  // after it (BrainStem's first row, whichever checkout's, measured 10–20 % slower).
  checkouts.forEach(([, checkout], c) => {
    for (let i = 0; i < 50 * loads; i++) {
      for (const clip of checkout.clips.loadCompactClips(skeletons[c], file)) {
        checkout.clips.disposeClip(clip);
      }
    }
  });
  const group = `clip file load, ${name}`;
  const size = `${loads} × ${(file.length / 1e6).toFixed(3)} MB`;
  const target = new Uint8Array(file.length);
  Deno.bench({
    name: `memcpy of the file (${size})`,
    group,
    baseline: true,
    ...ITERATIONS,
    fn: () => {
      for (let i = 0; i < loads; i++) target.set(file);
    },
  });
  const loaded: Clip[][] = [];
  checkouts.forEach(([prefix, checkout], c) => {
    const { loadCompactClips, disposeClip } = checkout.clips, skeleton = skeletons[c];
    Deno.bench({
      name: `${prefix}loadCompactClips (${size}, ${character.clips.length} clips)`,
      group,
      ...ITERATIONS,
      fn: (b) => {
        b.start();
        for (let i = 0; i < loads; i++) loaded.push(loadCompactClips(skeleton, file));
        b.end();
        for (const clips of loaded) for (const clip of clips) disposeClip(clip);
        loaded.length = 0;
      },
    });
  });
  Deno.bench({
    name: `xxHash32 of the file (${size})`,
    group,
    ...ITERATIONS,
    fn: () => {
      for (let i = 0; i < loads; i++) xxhash32(file);
    },
  });
}
