/**
 * The child of `cross_fade_allocation_test.ts`: characters of the test
 * models (the free fixtures; Xbot and Soldier when `../shared` has them),
 * a third with a masked upper-body layer, cross-fade or replay a clip they
 * played before every half second, every one of them at once, for
 * `WARMUP_ROUNDS` rounds; then V8's sampling heap profiler, sampling
 * nearly every allocation (young objects collected since included), runs
 * over `MEASURED_ROUNDS` more. Prints, as one JSON line, every sampled
 * allocation whose stack has a frame in Marrow's own modules (not
 * `tests/`), with its bytes and the stack's innermost Marrow frames, and
 * the counts the test checks the scene by. Arguments: the warm-up's rounds,
 * and `single-thread` (default), `workers` or `task-parallel` (2 workers).
 *
 * The profiler names the function that allocated, where a heap-growth
 * measure only says how much: the garbage is a context, an array or a
 * boxed number per call, tens of bytes, below a frame's noise.
 *
 * @module
 */
import { Session } from "node:inspector";
import { addEntity, createWorld } from "bitecs";
import {
  addCharacter,
  createAnimation,
  createAnimationPipeline,
  crossFadeTo,
  playClip,
} from "../mod.ts";
import { createCharacterAssets, importGltf } from "../gltf/mod.ts";
import { addLayer, jointMask } from "../layers.ts";
import { Core, createWorkerPool } from "../kernels.ts";
import { findModel } from "./_assets.ts";

const MODELS = ["Fox.glb", "CesiumMan.glb", "RobotExpressive.glb", "Xbot.glb", "Soldier.glb"];
const PER_MODEL = 8;
const FRAMES_PER_ROUND = 30;
const DT = 1 / 60;
const WARMUP_ROUNDS = Number(Deno.args[0] ?? 150);
const MEASURED_ROUNDS = 10;

/** A profile node of `HeapProfiler.stopSampling`. */
interface SamplingNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: SamplingNode[];
}

const session = new Session();
session.connect();
const post = (method: string, params: object = {}) =>
  new Promise<unknown>((resolve, reject) =>
    session.post(method, params, (error, result) => error ? reject(error) : resolve(result))
  );

const threads = Deno.args[1] ?? "single-thread";
const pool = threads === "single-thread" ? undefined : await createWorkerPool({ workers: 2 });
const core = pool?.core ?? Core.create("simd");
const world = createWorld();
createAnimation(world, { core });
const animate = createAnimationPipeline({ pool, taskParallel: threads === "task-parallel" });
const characters: { eid: number; clips: readonly unknown[] }[] = [];
let layered = 0;
for (const file of MODELS) {
  const url = findModel(file);
  if (!url) continue;
  const definition = (await importGltf(url)).skeletons.find((s) => s.primitives.length > 0)!;
  const { skeleton, skin } = createCharacterAssets(definition, core);
  const clips = definition.clips;
  const upper = jointMask(skeleton, {
    joints: Array.from({ length: skeleton.jointCount >> 1 }, (_, j) => j + 1),
  });
  for (let i = 0; i < PER_MODEL; i++) {
    const eid = addEntity(world);
    addCharacter(world, eid, skeleton, skin, { normals: skin.hasNormals, tangents: false });
    for (const clip of clips) playClip(world, eid, clip);
    if (i % 3 === 0) {
      addLayer(world, eid, clips[(i + 1) % clips.length], { mask: upper, weight: 0.7 });
      layered++;
    }
    characters.push({ eid, clips });
  }
}

let calls = 0;
/** Every character cross-fades (or, one round in three, replays) a clip, then the round's frames. */
function round(r: number): void {
  for (let i = 0; i < characters.length; i++) {
    const { eid, clips } = characters[i];
    const clip = clips[(r + i) % clips.length] as Parameters<typeof playClip>[2];
    if (r % 3 === 2) playClip(world, eid, clip);
    else crossFadeTo(world, eid, clip, 0.3);
    calls++;
  }
  for (let f = 0; f < FRAMES_PER_ROUND; f++) animate(world, DT);
}

for (let r = 0; r < WARMUP_ROUNDS; r++) round(r);
const callsBefore = calls;
await post("HeapProfiler.enable");
await post("HeapProfiler.startSampling", {
  samplingInterval: 8,
  includeObjectsCollectedByMinorGC: true,
  includeObjectsCollectedByMajorGC: true,
});
for (let r = WARMUP_ROUNDS; r < WARMUP_ROUNDS + MEASURED_ROUNDS; r++) round(r);
const { profile } = await post("HeapProfiler.stopSampling") as { profile: { head: SamplingNode } };

const root = new URL("../", import.meta.url).href, tests = new URL("./", import.meta.url).href;
const ours = (url: string) => url.startsWith(root) && !url.startsWith(tests);
const sites: { bytes: number; stack: string[] }[] = [];
(function walk(node: SamplingNode, stack: string[]) {
  const { functionName, url, lineNumber } = node.callFrame;
  const here = ours(url)
    ? [...stack, `${functionName || "(anonymous)"} ${url.slice(root.length)}:${lineNumber + 1}`]
    : stack;
  if (node.selfSize > 0 && here.length > 0) {
    sites.push({ bytes: node.selfSize, stack: here.slice(-4).reverse() });
  }
  for (const child of node.children) walk(child, here);
})(profile.head, []);

pool?.close();
console.log(JSON.stringify({
  characters: characters.length,
  layered,
  calls: calls - callsBefore,
  frames: MEASURED_ROUNDS * FRAMES_PER_ROUND,
  sites,
}));
