/**
 * `deno task bench:first-play`: the frame that first plays a clip, against
 * an ordinary frame, per test model, each model in a fresh process (the
 * first play of a process pays what no later play does: compiling the play
 * path, first uses of stores). The README path: `importGltf` →
 * `createCharacterAssets` → `addCharacter` → `playClip` → `animate`.
 *
 * Per model: `first` is the first `playClip` of the process plus the frame
 * after it (the README's order: no frame before it); `other` the slowest
 * first play of each other clip (`playClip` plus its frame); `ordinary` the median frame of the same characters
 * playing, after; `excess` is `max(first, other) - ordinary`, which issue 26
 * asks to be at most 1 ms. The machine is shared and noisy: each column is
 * the median of `RUNS` fresh processes (`BIG_RUNS` for the largest models),
 * and `over 1 ms` counts the processes whose excess passed 1 ms: the slow
 * path (a kernel still unoptimized, a compilation inside the frame) shows
 * there, not in a median. Where Linux reports it
 * (`/proc/thread-self/schedstat`), each time is also taken on the CPU: the
 * time the thread waited for a core (other processes on a loaded machine)
 * removed, in the `on CPU` columns. With `--child <file>` it measures one
 * model and prints one JSON line (what the parent spawns).
 *
 * @module
 */

import { addEntity, createWorld } from "bitecs";
import { addCharacter, createAnimation, createAnimationPipeline, playClip } from "../mod.ts";
import { createCharacterAssets, importGltf } from "../gltf/mod.ts";
import { findModel } from "../tests/_assets.ts";

const DT = 1 / 60;
const ORDINARY_FRAMES = 120;
/** Fresh processes per model; the table gives each column's median (the machine is noisy). */
const RUNS = 5;
/** Fresh processes for the largest models, whose first frame has the most to lose. */
const BIG_RUNS = 9;
const BIG_MODELS = new Set(["BrainStem.glb", "Soldier.glb", "Xbot.glb"]);
/** The excess issue 26 allows, ms. */
const ALLOWED_EXCESS = 1;
const MODELS = [
  "SimpleSkin.gltf",
  "RiggedSimple.glb",
  "RiggedFigure.glb",
  "CesiumMan.glb",
  "Fox.glb",
  "RecursiveSkeletons.glb",
  "RobotExpressive.glb",
  "BrainStem.glb",
  "Soldier.glb",
  "Xbot.glb",
];

interface Measure {
  readonly model: string;
  readonly clips: number;
  readonly first: number;
  readonly other: number;
  readonly ordinary: number;
  /** The same three, the thread's waits for a core removed (NaN where unknown). */
  readonly firstOnCpu: number;
  readonly otherOnCpu: number;
  readonly ordinaryOnCpu: number;
  /** `createAnimationPipeline`'s time (the first of a process warms up). */
  readonly pipelineMs: number;
}

/**
 * Milliseconds this thread has waited for a core since it started (Linux's
 * scheduler statistics), NaN where they cannot be read.
 */
function waitedMs(): number {
  try {
    return Number(Deno.readTextFileSync("/proc/thread-self/schedstat").split(" ")[1]) / 1e6;
  } catch {
    return NaN;
  }
}

/** `run`'s time, ms, and its time on the CPU (without waits for a core). */
function timed(run: () => void): [number, number] {
  // The reads inside the timed span: a wait between a read and a clock
  // reading would count in one and not the other. They add the same to
  // every frame, so the excess is theirs only as noise.
  const start = performance.now(), waited = waitedMs();
  run();
  const waitedSince = waitedMs() - waited, took = performance.now() - start;
  return [took, took - waitedSince];
}

async function measure(file: string, pipelineLast: boolean): Promise<Measure> {
  const model = await importGltf(findModel(file)!);
  const world = createWorld();
  createAnimation(world);
  // The pipeline before the assets (its warm-up's background compilations
  // have the assets' build to finish), or last, just before the first play
  // (the README's quick start: nothing runs between them).
  let pipelineMs = 0;
  const pipeline = () => {
    const start = performance.now();
    const animate = createAnimationPipeline();
    pipelineMs = performance.now() - start;
    return animate;
  };
  let animate = pipelineLast ? undefined : pipeline();
  const characters = [];
  for (const gltfSkeleton of model.skeletons) {
    if (gltfSkeleton.primitives.length === 0 || gltfSkeleton.clips.length === 0) continue;
    const { skeleton, skin } = createCharacterAssets(gltfSkeleton);
    const eid = addEntity(world);
    addCharacter(world, eid, skeleton, skin);
    characters.push({ eid, clips: gltfSkeleton.clips });
  }
  animate ??= pipeline();
  // The clock's own first calls (the first `readTextFileSync` of a process
  // takes 0.15–0.3 ms, the next 0.01) are not the first play's.
  timed(() => {}), timed(() => {});
  let first = NaN, other = 0, clips = 0, firstOnCpu = NaN, otherOnCpu = 0;
  for (const { eid, clips: list } of characters) {
    for (const clip of list) {
      const [took, onCpu] = timed(() => {
        playClip(world, eid, clip);
        animate(world, DT);
      });
      if (Number.isNaN(first)) first = took, firstOnCpu = onCpu;
      else other = Math.max(other, took), otherOnCpu = Math.max(otherOnCpu, onCpu);
      clips++;
    }
  }
  const frames: number[] = [], framesOnCpu: number[] = [];
  for (let i = 0; i < ORDINARY_FRAMES; i++) {
    const [took, onCpu] = timed(() => animate(world, DT));
    frames.push(took), framesOnCpu.push(onCpu);
  }
  return {
    model: file,
    clips,
    first,
    other,
    ordinary: median(frames),
    firstOnCpu,
    otherOnCpu,
    ordinaryOnCpu: median(framesOnCpu),
    pipelineMs,
  };
}

function median(values: number[]): number {
  return values.toSorted((a, b) => a - b)[values.length >> 1];
}

/**
 * `--pipeline-last`: `createAnimationPipeline` just before the first play;
 * `--models a.glb,b.glb`: those models only.
 */
const pipelineLast = Deno.args.includes("--pipeline-last");

async function main(): Promise<void> {
  const childAt = Deno.args.indexOf("--child");
  if (childAt >= 0) {
    console.log(JSON.stringify(await measure(Deno.args[childAt + 1], pipelineLast)));
    return;
  }
  const rows: string[] = [
    "| model | clips | runs | first play + frame (ms) | other first plays, worst (ms) | ordinary frame (ms) | " +
    "excess (ms) | excess, worst run (ms) | over 1 ms | excess on CPU (ms) | over 1 ms on CPU | " +
    "createAnimationPipeline (ms) |",
    "| --- | --: | --: | --: | --: | --: | --: | --: | --: | --: | --: | --: |",
  ];
  const only = Deno.args.indexOf("--models");
  const models = only >= 0 ? Deno.args[only + 1].split(",") : MODELS;
  for (const file of models) {
    if (findModel(file) === undefined) continue;
    const runs: Measure[] = [];
    const count = BIG_MODELS.has(file) ? BIG_RUNS : RUNS;
    for (let run = 0; run < count; run++) {
      const output = await new Deno.Command(Deno.execPath(), {
        // Deno reads /proc's per-thread files (waitedMs) with every permission only.
        args: [
          "run",
          "--allow-all",
          new URL(import.meta.url).pathname,
          "--child",
          file,
          ...(pipelineLast ? ["--pipeline-last"] : []),
        ],
        stderr: "inherit",
      }).output();
      const text = new TextDecoder().decode(output.stdout).trim();
      if (output.success && text !== "") runs.push(JSON.parse(text.split("\n").at(-1)!));
    }
    if (runs.length === 0) {
      rows.push(`| ${file} | failed | | | | | | | | | | |`);
      continue;
    }
    if (runs[0].clips === 0) continue;
    const excess = runs.map((r) => Math.max(r.first, r.other) - r.ordinary);
    const excessOnCpu = runs.map((r) => Math.max(r.firstOnCpu, r.otherOnCpu) - r.ordinaryOnCpu);
    const over = (list: number[]) => list.filter((e) => e > ALLOWED_EXCESS).length;
    const cells = [
      file,
      runs[0].clips,
      runs.length,
      median(runs.map((r) => r.first)).toFixed(2),
      median(runs.map((r) => r.other)).toFixed(2),
      median(runs.map((r) => r.ordinary)).toFixed(3),
      median(excess).toFixed(2),
      Math.max(...excess).toFixed(2),
      `${over(excess)}/${runs.length}`,
      excessOnCpu.some(Number.isNaN) ? "n/a" : median(excessOnCpu).toFixed(2),
      excessOnCpu.some(Number.isNaN) ? "n/a" : `${over(excessOnCpu)}/${runs.length}`,
      median(runs.map((r) => r.pipelineMs)).toFixed(0),
    ];
    rows.push(`| ${cells.join(" | ")} |`);
  }
  console.log(rows.join("\n"));
}

await main();
