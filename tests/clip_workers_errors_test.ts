/**
 * A preparation on worker threads that fails attaches nothing and says
 * why with a `ClipPreparationError`: a worker module that cannot load, a
 * worker that crashes mid-build, a clip whose build throws on the worker
 * (its error's name and message kept, the clip's index in the list given),
 * workers closed during the preparation; an abort rejects with the
 * signal's reason. Nothing attached means: the core's bytes and clip bytes
 * are what they were, and each clip still builds from its keys here.
 * `createCharacterAssetsAsync` disposes the skeleton and skin it made.
 */
import { assert, assertEquals, assertInstanceOf, assertRejects, assertThrows } from "@std/assert";
import { createClip, SkeletonAsset } from "../mod.ts";
import {
  clipBytes,
  ClipPreparationError,
  type ClipPreparationError as ClipPreparationErrorType,
  compactClip,
  createClipWorkers,
  prepareClipsOnWorkers,
  setClipBudget,
} from "../clips.ts";
import { Core } from "../kernels.ts";
import { createCharacterAssetsAsync, importGltf } from "../gltf/mod.ts";
import { createCylinder, waveClip } from "../procedural/cylinder.ts";
import { buildCounters } from "../animation/_build_work.ts";
import { assetUrl } from "./_three_gltf.ts";
import type { Clip } from "../animation/clip.ts";

const CRASHING = new URL("./_crashing_build_worker.ts", import.meta.url);

function scene() {
  const core = Core.create();
  const skeleton = new SkeletonAsset(createCylinder({ joints: 12 }).skeleton, core);
  const clips = [waveClip(12), waveClip(12, { keys: 48, duration: 3 })];
  return { core, skeleton, clips, bytes: core.allocatedBytes, clipBytes: clipBytes(core) };
}

/** Nothing of a failed preparation is left: memory as before, each clip builds here. */
function assertNothingAttached(s: ReturnType<typeof scene>, clips: readonly Clip[], where: string) {
  assertEquals(s.core.allocatedBytes, s.bytes, `${where}: core bytes`);
  assertEquals(clipBytes(s.core), s.clipBytes, `${where}: clip bytes`);
  setClipBudget(s.core, 256 * 2 ** 20);
  for (const clip of clips) {
    const before = buildCounters.builds;
    compactClip(clip, s.skeleton);
    assertEquals(buildCounters.builds, before + 1, `${where}: "${clip.name}" builds from its keys`);
  }
}

async function rejection(promise: Promise<unknown>): Promise<ClipPreparationErrorType> {
  const error = await assertRejects(() => promise);
  assertInstanceOf(error, ClipPreparationError);
  return error;
}

Deno.test("a worker module that cannot load: reason worker, nothing attached", async () => {
  const s = scene();
  using clipWorkers = createClipWorkers({
    workers: 2,
    moduleUrl: new URL("./no_such_worker.ts", import.meta.url),
  });
  const error = await rejection(prepareClipsOnWorkers(s.skeleton, s.clips, { clipWorkers }));
  assertEquals(error.reason, "worker");
  assertNothingAttached(s, s.clips, "unloadable worker");
});

Deno.test("a worker the runtime cannot create (a bad URL): reason worker, nothing attached", async () => {
  const s = scene();
  using clipWorkers = createClipWorkers({ workers: 2, moduleUrl: "http://[bad" });
  const error = await rejection(prepareClipsOnWorkers(s.skeleton, s.clips, { clipWorkers }));
  assertEquals(error.reason, "worker");
  assert(error.message.includes("could not be created"), error.message);
  assertNothingAttached(s, s.clips, "bad URL");
});

Deno.test("a worker that crashes mid-build: reason worker, nothing attached", async () => {
  const s = scene();
  using clipWorkers = createClipWorkers({ workers: 1, moduleUrl: CRASHING });
  const error = await rejection(prepareClipsOnWorkers(s.skeleton, s.clips, { clipWorkers }));
  assertEquals(error.reason, "worker");
  assert(error.message.includes("planted crash"), error.message);
  assertNothingAttached(s, s.clips, "crashed worker");
});

Deno.test("a clip the worker's build refuses: its error's name, the clip's index; nothing attached", async () => {
  const s = scene();
  using clipWorkers = createClipWorkers({ workers: 2 });
  // Joint 12 of a 12-joint skeleton: valid as a clip, refused by the build.
  const outside = createClip({
    name: "outside",
    channels: [{
      joint: 12,
      path: "translation",
      interpolation: "LINEAR",
      times: Float32Array.of(0, 1),
      values: Float32Array.of(0, 0, 0, 1, 0, 0),
    }],
  });
  const clips = [s.clips[0], outside, s.clips[1]];
  const error = await rejection(prepareClipsOnWorkers(s.skeleton, clips, { clipWorkers }));
  assertEquals([error.reason, error.clipIndex, error.clip], ["build", 1, "outside"]);
  assertEquals((error.cause as Error).name, "ClipError");
  assertNothingAttached(s, s.clips, "refused build");

  // Over the clip budget: the calling thread's budget applies on the workers.
  const t = scene();
  setClipBudget(t.core, 64);
  const budget = await rejection(prepareClipsOnWorkers(t.skeleton, t.clips, { clipWorkers }));
  assertEquals(budget.reason, "build");
  assertEquals((budget.cause as Error).name, "ClipBudgetError");
  assertNothingAttached(t, t.clips, "over budget");

  // Each clip fits the budget, not both: the second is refused as it is
  // loaded here, and the first, loaded already, is given back.
  const u = scene();
  const sizes = scene();
  const [a, b] = u.clips.map((clip) => compactClip(clip, sizes.skeleton).bytes);
  setClipBudget(u.core, clipBytes(u.core) + a + b - 1);
  const both = await rejection(prepareClipsOnWorkers(u.skeleton, u.clips, { clipWorkers }));
  assertEquals([both.reason, both.clipIndex], ["build", 1]);
  assertEquals((both.cause as Error).name, "ClipBudgetError");
  assertNothingAttached(u, u.clips, "over budget together");
});

Deno.test("workers closed during a preparation: reason closed, nothing attached; closed workers refuse", async () => {
  const s = scene();
  const clipWorkers = createClipWorkers({ workers: 1 });
  const preparing = prepareClipsOnWorkers(s.skeleton, s.clips, { clipWorkers });
  clipWorkers.close();
  assertEquals(clipWorkers.closed, true);
  assertEquals((await rejection(preparing)).reason, "closed");
  const again = await rejection(prepareClipsOnWorkers(s.skeleton, s.clips, { clipWorkers }));
  assertEquals(again.reason, "closed");
  assertNothingAttached(s, s.clips, "closed");
});

Deno.test("an aborted preparation rejects with the signal's reason and attaches nothing", async () => {
  const s = scene();
  using clipWorkers = createClipWorkers({ workers: 1 });
  const abort = new AbortController();
  const preparing = prepareClipsOnWorkers(s.skeleton, s.clips, {
    clipWorkers,
    signal: abort.signal,
  });
  abort.abort(new Error("level unloaded"));
  const error = await assertRejects(() => preparing, Error, "level unloaded");
  assert(!(error instanceof ClipPreparationError));
  assertNothingAttached(s, s.clips, "aborted");
});

Deno.test("createCharacterAssetsAsync disposes what it made when a worker fails", async () => {
  const model = await importGltf(assetUrl("CesiumMan.glb"));
  const core = Core.create();
  const bytes = core.allocatedBytes;
  using clipWorkers = createClipWorkers({ workers: 1, moduleUrl: CRASHING });
  const error = await rejection(
    createCharacterAssetsAsync(model.skeletons[0], { core, clipWorkers }),
  );
  assertEquals(error.reason, "worker");
  assertEquals(core.allocatedBytes, bytes, "skeleton and skin disposed");
});

Deno.test("createClipWorkers refuses bad options with a RangeError", () => {
  for (const workers of [0, 1.5, 17, NaN]) {
    assertThrows(() => createClipWorkers({ workers }), RangeError, "options.workers");
  }
  for (const idleMilliseconds of [-1, Infinity, NaN]) {
    assertThrows(() => createClipWorkers({ idleMilliseconds }), RangeError, "idleMilliseconds");
  }
});
