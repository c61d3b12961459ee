/**
 * How long the calling thread is blocked while a character's clips are
 * prepared: `prepareClips` (every clip built here, in one call) against an
 * awaited `prepareClipsOnWorkers` (clips built on worker threads), and
 * `createCharacterAssets` against an awaited `createCharacterAssetsAsync`
 * (the skeleton and skin are made on this thread in both), per model, one
 * run each, as ratios to the synchronous call.
 *
 * The awaited call's time on this thread is measured where it runs: its
 * synchronous start (skeleton, skin, the clips' keys copied to the
 * workers), then each task a worker's reply runs here, up to the end of its
 * microtasks (the last one loads every built clip into the core). Workers
 * are wrapped to time their message handlers (`Worker` is replaced before
 * any starts). `longest` is the longest of those pieces (what a frame
 * would wait for at worst), `total` their sum, `wall` the time until the
 * assets are ready; with workers started for the call (`cold`) and with
 * workers kept from an earlier preparation (`warm`). Each call is made once
 * before it is measured (this thread's code compiled), each on a fresh
 * import and its own core.
 *
 * Run: `deno run --import-map=import_map.dev.json --allow-read --allow-env bench/_prepare_blocked.ts [model...]`
 *
 * @module
 */

import {
  createCharacterAssets,
  createCharacterAssetsAsync,
  type GltfSkeleton,
  importGltf,
} from "../gltf/mod.ts";
import { Core } from "../kernels.ts";
import { prepareClips, SkeletonAsset } from "../mod.ts";
import { createClipWorkers, prepareClipsOnWorkers } from "../clips.ts";
import { findModel } from "../tests/_assets.ts";

const MODELS = Deno.args.length > 0 ? Deno.args : ["BrainStem.glb", "Xbot.glb"];
/** Pieces of this thread's time spent in workers' message tasks, while recording. */
let pieces: number[] | undefined;

/** Workers whose message handlers are timed to the end of their microtasks. */
class TimedWorker extends Worker {
  #handler: ((event: MessageEvent) => void) | null = null;
  override get onmessage(): ((event: MessageEvent) => void) | null {
    return this.#handler;
  }
  override set onmessage(handler: ((event: MessageEvent) => void) | null) {
    this.#handler = handler;
    super.onmessage = handler && ((event: MessageEvent) => {
      const start = performance.now();
      handler.call(this, event);
      // Queued after the handler's own microtasks (the preparation's end among them).
      queueMicrotask(() => pieces?.push(performance.now() - start));
    });
  }
}
globalThis.Worker = TimedWorker;

/** This thread's time in `start()` (until it returns its promise) and in the message tasks after. */
async function blockedDuring(start: () => Promise<unknown>) {
  pieces = [];
  const t0 = performance.now();
  const promise = start();
  pieces.push(performance.now() - t0);
  await promise;
  const wall = performance.now() - t0;
  const measured = pieces;
  pieces = undefined;
  return {
    longest: Math.max(...measured),
    total: measured.reduce((a, b) => a + b, 0),
    wall,
  };
}

function characterOf(skeletons: readonly GltfSkeleton[]): GltfSkeleton {
  return skeletons.find((s) => s.primitives.length > 0 && s.clips.length > 0)!;
}

const fmt = (ms: number) => ms.toFixed(1);
const ratio = (ms: number, base: number) => `${fmt(ms)} (${(ms / base).toFixed(3)}×)`;
const clipRows: string[] = [], assetRows: string[] = [];
for (const file of MODELS) {
  const url = findModel(file);
  if (!url) {
    console.error(`${file}: not found (test-only models are read from ../shared)`);
    continue;
  }
  // Each measured call on its own import: its clips built nowhere yet.
  const fresh = async () => characterOf((await importGltf(url)).skeletons);
  const skeletonOf = (g: GltfSkeleton) => new SkeletonAsset(g.skeleton, Core.create());
  using clipWorkers = createClipWorkers({ idleMilliseconds: 60_000 });

  // The clips alone, on a skeleton made before.
  const first = await fresh();
  prepareClips(skeletonOf(first), first.clips);
  const syncClips = await fresh(), syncSkeleton = skeletonOf(syncClips);
  const sync = await blockedDuring(() =>
    Promise.resolve(prepareClips(syncSkeleton, syncClips.clips))
  );
  const warmUp = await fresh();
  await prepareClipsOnWorkers(skeletonOf(warmUp), warmUp.clips);
  const cold = await fresh(), coldSkeleton = skeletonOf(cold);
  const onCold = await blockedDuring(() => prepareClipsOnWorkers(coldSkeleton, cold.clips));
  const keep = await fresh();
  await prepareClipsOnWorkers(skeletonOf(keep), keep.clips, { clipWorkers });
  const warm = await fresh(), warmSkeleton = skeletonOf(warm);
  const onWarm = await blockedDuring(() =>
    prepareClipsOnWorkers(warmSkeleton, warm.clips, { clipWorkers })
  );
  const base = sync.total;
  clipRows.push(
    `| ${file} | ${fmt(base)} | ${ratio(onCold.longest, base)} | ${ratio(onCold.total, base)} | ${
      fmt(onCold.wall)
    } | ${ratio(onWarm.longest, base)} | ${ratio(onWarm.total, base)} | ${fmt(onWarm.wall)} |`,
  );

  // The whole call: skeleton and skin too (made on this thread either way).
  createCharacterAssets(await fresh(), Core.create());
  const syncAssets = await fresh();
  const whole = await blockedDuring(() =>
    Promise.resolve(createCharacterAssets(syncAssets, Core.create()))
  );
  const asyncAssets = await fresh();
  const wholeAsync = await blockedDuring(() =>
    createCharacterAssetsAsync(asyncAssets, { core: Core.create(), clipWorkers })
  );
  assetRows.push(
    `| ${file} | ${fmt(whole.total)} | ${ratio(wholeAsync.longest, whole.total)} | ${
      ratio(wholeAsync.total, whole.total)
    } | ${fmt(wholeAsync.wall)} |`,
  );
}
console.log(`clip workers: ${createClipWorkers().workers}\n`);
console.log(
  "| clips of | prepareClips ms | workers, cold: longest | cold: total | cold: wall ms | warm: longest | warm: total | warm: wall ms |",
);
console.log("|---|---:|---:|---:|---:|---:|---:|---:|");
for (const row of clipRows) console.log(row);
console.log(
  "\n| assets of | createCharacterAssets ms | Async (warm): longest | total | wall ms |",
);
console.log("|---|---:|---:|---:|---:|");
for (const row of assetRows) console.log(row);
