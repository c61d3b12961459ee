/**
 * Bundled and run under Node by `clip_workers_suite.ts`: a glTF file's
 * character made with `createCharacterAssetsAsync` (Node has no `Worker`:
 * the clips are built on the calling thread) and with
 * `createCharacterAssets`; prints, as one JSON line, the clip workers'
 * mode and reason, whether both characters' compact clip files are equal,
 * and how many clips saving the prepared ones built (none: they were). Usage: `node bundle.mjs MODEL`.
 *
 * @module
 */

import { readFile } from "node:fs/promises";
import process from "node:process";
import { Core } from "../../kernels.ts";
import { createClipWorkers, saveCompactClips } from "../../clips.ts";
import {
  createCharacterAssets,
  createCharacterAssetsAsync,
  type GltfSkeleton,
  parseGltf,
} from "../../gltf/mod.ts";
import { buildCounters } from "../../animation/_build_work.ts";

const bytes = new Uint8Array(await readFile(process.argv[2]));
const character = async (): Promise<GltfSkeleton> =>
  (await parseGltf(bytes)).skeletons.find((s) => s.primitives.length > 0 && s.clips.length > 0)!;

const reference = await character();
const sync = createCharacterAssets(reference, Core.create());
const expected = saveCompactClips(sync.skeleton, reference.clips);

const clipWorkers = createClipWorkers();
const prepared = await character();
const assets = await createCharacterAssetsAsync(prepared, { core: Core.create(), clipWorkers });
const before = buildCounters.builds;
const file = saveCompactClips(assets.skeleton, prepared.clips);
console.log(JSON.stringify({
  mode: clipWorkers.mode,
  fallbackReason: clipWorkers.fallbackReason,
  clips: prepared.clips.length,
  buildsAfterPreparing: buildCounters.builds - before,
  equal: file.length === expected.length && file.every((b, i) => b === expected[i]),
}));
