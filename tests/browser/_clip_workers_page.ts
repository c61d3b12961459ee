/// <reference lib="dom" />
/**
 * Browser entry of the clip workers suite: fetches the glTF file named by
 * the page's `?model=` parameter and prepares its clips three ways: built
 * on the page's thread (the reference), on workers without a `moduleUrl`
 * (a bundle: the calling thread, saying why), and on workers running the
 * clip build worker's own bundle (`/clip_build_worker.js`). Reports the
 * modes, whether each way's compact clip files equal the reference's, and
 * the builds run on the page's thread while the workers prepared. The test
 * reads the result from `globalThis.clipWorkersReport`, a promise.
 *
 * @module
 */

import { SkeletonAsset } from "../../mod.ts";
import { createClipWorkers, prepareClipsOnWorkers, saveCompactClips } from "../../clips.ts";
import { Core } from "../../kernels.ts";
import { parseGltf } from "../../gltf/mod.ts";
import { buildCounters } from "../../animation/_build_work.ts";

/** What the page reports. */
export interface ClipWorkersReport {
  readonly clips: number;
  readonly bundledMode: string;
  readonly bundledReason: string | undefined;
  readonly bundledEqual: boolean;
  readonly workersMode: string;
  readonly workersEqual: boolean;
  readonly buildsHereWhileOnWorkers: number;
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((byte, i) => byte === b[i]);
}

async function main(): Promise<ClipWorkersReport> {
  const model = new URL(location.href).searchParams.get("model") ?? "CesiumMan.glb";
  const response = await fetch(`/${model}`);
  if (!response.ok) throw new Error(`/${model}: HTTP ${response.status}`);
  const bytes = new Uint8Array(await response.arrayBuffer());
  const character = async () => (await parseGltf(bytes)).skeletons.find((s) => s.clips.length > 0)!;

  const reference = await character();
  const here = new SkeletonAsset(reference.skeleton, Core.create());
  const expected = saveCompactClips(here, reference.clips);

  const bundled = await character();
  const bundledWorkers = createClipWorkers({ workers: 2 });
  const onBundled = new SkeletonAsset(bundled.skeleton, Core.create());
  await prepareClipsOnWorkers(onBundled, bundled.clips, { clipWorkers: bundledWorkers });
  bundledWorkers.close();

  const threaded = await character();
  using clipWorkers = createClipWorkers({ workers: 2, moduleUrl: "/clip_build_worker.js" });
  const onWorkers = new SkeletonAsset(threaded.skeleton, Core.create());
  const before = buildCounters.builds;
  await prepareClipsOnWorkers(onWorkers, threaded.clips, { clipWorkers });
  const buildsHereWhileOnWorkers = buildCounters.builds - before;

  return {
    clips: reference.clips.length,
    bundledMode: bundledWorkers.mode,
    bundledReason: bundledWorkers.fallbackReason,
    bundledEqual: sameBytes(saveCompactClips(onBundled, bundled.clips), expected),
    workersMode: clipWorkers.mode,
    workersEqual: sameBytes(saveCompactClips(onWorkers, threaded.clips), expected),
    buildsHereWhileOnWorkers,
  };
}

(globalThis as { clipWorkersReport?: Promise<ClipWorkersReport> }).clipWorkersReport = main();
