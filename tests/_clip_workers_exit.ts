/**
 * A child process for `clip_workers_lifecycle_test.ts`: prepares a clip on
 * workers, with workers started for the call (`"call"`) or with clip
 * workers it never closes (`"kept"`), prints how many clips it prepared,
 * and then has nothing left to do: the process must exit by itself.
 *
 * @module
 */

import { SkeletonAsset } from "../mod.ts";
import { createClipWorkers, prepareClipsOnWorkers } from "../clips.ts";
import { createCylinder, waveClip } from "../procedural/cylinder.ts";

const skeleton = new SkeletonAsset(createCylinder({ joints: 8 }).skeleton);
const clips = [waveClip(8), waveClip(8, { keys: 20 })];
const clipWorkers = Deno.args[0] === "kept"
  ? createClipWorkers({ workers: 2, idleMilliseconds: 100 })
  : undefined;
const prepared = await prepareClipsOnWorkers(skeleton, clips, { clipWorkers });
console.log(`prepared ${prepared.length}`);
