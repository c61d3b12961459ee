/**
 * `deno task bench:session`: the game-session benchmark (group `session:`).
 * 200 characters of the test models, mixed (Fox, CesiumMan,
 * RobotExpressive; Xbot and Soldier when `../shared` has them), each
 * switching clip every 1–4 s (seeded) with a 0.3 s cross-fade; a third
 * carry a masked upper-body layer; the humans (Xbot, Soldier) run foot IK;
 * 3,000 frames of 1/60 s. Marrow runs its whole frame (sampling, layers,
 * IK, skinning with normals) single-threaded and on 2 threads; beside it,
 * three.js's `AnimationMixer` animates the same 200 characters (animation
 * and world matrices, no skinning) as the floor of what a JavaScript game
 * pays today. Every frame is timed, the game's clip switches included;
 * printed per row: mean, median, p99 and worst frame after a warm-up of
 * `WARMUP` frames, bytes allocated per frame (heap used over a run of
 * frames in a young generation large enough that nothing is collected:
 * the task passes `--min-semi-space-size`), and per Marrow cross-fade. A
 * last two rows time a fixed arithmetic loop the same way, on one thread
 * (about the single-threaded median frame) and split over two (the calling
 * thread and a worker, joined each frame; about the 2-thread median): the
 * machine's own noise, to read each Marrow row's worst frames against.
 * The rows run interleaved, frame by frame, in an order that turns each
 * frame: a shared, noisy machine's slow minutes fall on every row alike,
 * where rows run one after the other compared different minutes (three.js's
 * mean moved 2× between two such runs).
 *
 * @module
 */

import { addEntity, createWorld } from "bitecs";
import * as THREE from "three";
import { clone as cloneScene } from "three/examples/jsm/utils/SkeletonUtils.js";
import {
  addCharacter,
  type Clip,
  createAnimation,
  createAnimationPipeline,
  crossFadeTo,
  playClip,
  type SkeletonAsset,
} from "../mod.ts";
import { createCharacterAssets, importGltf } from "../gltf/mod.ts";
import { addLayer, jointMask } from "../layers.ts";
import { Core, createWorkerPool, type WorkerPool } from "../kernels.ts";
import { findModel } from "../tests/_assets.ts";
import { loadThree } from "../tests/_three_gltf.ts";
import { random } from "../tests/_scene.ts";
import { addFootIK } from "./_foot_ik.ts";
import { noiseRun, twoThreadNoiseRun } from "./_session_noise.ts";

const CHARACTERS = 200;
const FRAMES = 3000;
const WARMUP = 120;
/** Frames over which the bytes a frame are measured, after the timed frames. */
const FRAMES_MEASURED = 300;
const DT = 1 / 60;
const FADE = 0.3;
const SEED = 26;
const MODELS = ["Fox.glb", "CesiumMan.glb", "RobotExpressive.glb", "Xbot.glb", "Soldier.glb"]
  .filter((file) => findModel(file) !== undefined);
const HUMANS = new Set(["Xbot.glb", "Soldier.glb"]);

/** One row of the table. */
export interface SessionRow {
  readonly name: string;
  readonly mean: number;
  readonly median: number;
  readonly p99: number;
  readonly worst: number;
  readonly bytesPerFrame: number;
  readonly bytesPerCrossFade?: number;
}

/** The seeded schedule every row follows: which model each character is, and when it switches. */
function schedule() {
  const next = random(SEED);
  return Array.from({ length: CHARACTERS }, (_, i) => ({
    model: MODELS[i % MODELS.length],
    layered: i % 3 === 0,
    first: Math.floor(next() * 1000),
    /** Frames until each switch: 1–4 s. */
    intervals: Array.from({ length: 64 }, () => Math.round((1 + next() * 3) / DT)),
  }));
}

/** A row of the session: its frame, and what it allocates, measured after the frames. */
export interface SessionRun {
  readonly name: string;
  readonly frame: (f: number) => void;
  readonly bytes: () => Pick<SessionRow, "bytesPerFrame" | "bytesPerCrossFade">;
}

/** Statistics in ms of one row's frame times after the warm-up. */
function statistics(times: Float64Array): Omit<SessionRow, "name" | "bytesPerFrame"> {
  const steady = Array.from(times.subarray(WARMUP)).sort((a, b) => a - b);
  const at = (q: number) => steady[Math.min(steady.length - 1, Math.floor(q * steady.length))];
  return {
    mean: steady.reduce((s, t) => s + t, 0) / steady.length,
    median: at(0.5),
    p99: at(0.99),
    worst: steady[steady.length - 1],
  };
}

/**
 * Times `FRAMES` frames of every run, interleaved: frame `f` of each in
 * turn, starting with run `f mod runs` (no row always follows the same
 * one). `afterWarmUp` runs once, untimed, when the warm-up ends.
 */
function timeInterleaved(
  runs: readonly SessionRun[],
  afterWarmUp: (times: readonly Float64Array[]) => void,
): Float64Array[] {
  const times = runs.map(() => new Float64Array(FRAMES));
  for (let f = 0; f < FRAMES; f++) {
    if (f === WARMUP) afterWarmUp(times);
    for (let k = 0; k < runs.length; k++) {
      const r = (f + k) % runs.length;
      const start = performance.now();
      runs[r].frame(f);
      times[r][f] = performance.now() - start;
    }
  }
  return times;
}

/** Heap bytes per call of `fn` over `count` calls (none collected: see the module doc). */
function bytesPer(count: number, fn: (i: number) => void): number {
  const before = Deno.memoryUsage().heapUsed;
  for (let i = 0; i < count; i++) fn(i);
  const grown = Deno.memoryUsage().heapUsed - before;
  // A heap that shrank was collected: no figure rather than a wrong one.
  return grown >= 0 ? grown / count : NaN;
}

/** Upper-body joints: a Mixamo spine's subtree, else the later half of the joints. */
function upperBody(skeleton: SkeletonAsset): Float32Array {
  const names = skeleton.names;
  if (names.includes("mixamorig:Spine")) {
    return jointMask(skeleton, { subtree: "mixamorig:Spine", falloff: 2 });
  }
  const n = skeleton.jointCount;
  return jointMask(skeleton, {
    joints: Array.from({ length: n - (n >> 1) }, (_, j) => j + (n >> 1)),
  });
}

/** Marrow's session on `pool` (or one thread). */
async function marrowSession(name: string, pool?: WorkerPool): Promise<SessionRun> {
  const core = pool?.core ?? Core.create();
  const world = createWorld();
  createAnimation(world, { core });
  const assets = new Map<
    string,
    {
      skeleton: SkeletonAsset;
      clips: readonly Clip[];
      skin: ReturnType<typeof createCharacterAssets>["skin"];
    }
  >();
  for (const file of MODELS) {
    const model = await importGltf(findModel(file)!);
    const definition = model.skeletons.find((s) => s.primitives.length > 0)!;
    const { skeleton, skin } = createCharacterAssets(definition, core);
    assets.set(file, { skeleton, skin, clips: definition.clips });
  }
  const animate = createAnimationPipeline({ pool });
  const plan = schedule();
  const entities = plan.map((p) => {
    const { skeleton, skin, clips } = assets.get(p.model)!;
    const eid = addEntity(world);
    addCharacter(world, eid, skeleton, skin, { normals: skin.hasNormals, tangents: false });
    playClip(world, eid, clips[p.first % clips.length], { time: (p.first % 97) / 97 });
    if (p.layered && clips.length > 1) {
      addLayer(world, eid, clips[(p.first + 1) % clips.length], {
        mask: upperBody(skeleton),
        weight: 0.7,
      });
    }
    return eid;
  });
  // Clips ready before the session: every clip played once, one frame.
  for (const [i, p] of plan.entries()) {
    for (const clip of assets.get(p.model)!.clips) playClip(world, entities[i], clip);
  }
  animate(world, DT);
  plan.forEach((p, i) => {
    const { clips } = assets.get(p.model)!;
    playClip(world, entities[i], clips[p.first % clips.length]);
  });
  animate(world, DT);
  plan.forEach((p, i) => {
    if (HUMANS.has(p.model)) addFootIK(world, entities[i], assets.get(p.model)!.skeleton);
  });
  const due = plan.map((p) => p.intervals[0]), switches = plan.map(() => 0);
  const frame = (f: number) => {
    for (let i = 0; i < plan.length; i++) {
      if (f < due[i]) continue;
      const p = plan[i], clips = assets.get(p.model)!.clips, k = ++switches[i];
      due[i] = f + p.intervals[k % p.intervals.length];
      crossFadeTo(world, entities[i], clips[(p.first + k) % clips.length], FADE);
    }
    animate(world, DT);
  };
  const bytes = () => {
    const bytesPerFrame = bytesPer(FRAMES_MEASURED, (f) => frame(FRAMES + f));
    // A cross-fade of every character, measured, then frames (not measured) that end the
    // fades, five times: as a game cross-fades. Bursts of cross-fades with no frame between
    // would hold more playbacks at once than the session ever does. A first round, not
    // measured: a character whose fade a cross-fade interrupts for the first time makes its
    // third playback then (once), and a playback's cache grows to the largest clip it has held.
    let total = 0, f = FRAMES + FRAMES_MEASURED;
    for (let round = 0; round < 6; round++) {
      const bytes = bytesPer(plan.length, (i) => {
        const clips = assets.get(plan[i].model)!.clips;
        crossFadeTo(world, entities[i], clips[(round + i) % clips.length], FADE);
      });
      if (round > 0) total += bytes * plan.length;
      for (const end = f + 30; f < end; f++) animate(world, DT);
    }
    return { bytesPerFrame, bytesPerCrossFade: total / (5 * plan.length) };
  };
  return { name, frame, bytes };
}

/** three.js's mixer on the same characters: animation and world matrices, no skinning. */
async function threeSession(): Promise<SessionRun> {
  const sources = new Map<string, { scene: THREE.Object3D; clips: THREE.AnimationClip[] }>();
  for (const file of MODELS) {
    const three = await loadThree(Deno.readFileSync(findModel(file)!));
    sources.set(file, { scene: three.gltf.scene, clips: three.gltf.animations });
  }
  const plan = schedule();
  const characters = plan.map((p) => {
    const { scene, clips } = sources.get(p.model)!;
    const root = cloneScene(scene) as THREE.Object3D;
    const mixer = new THREE.AnimationMixer(root);
    let action = mixer.clipAction(clips[p.first % clips.length]);
    action.time = (p.first % 97) / 97;
    action.play();
    if (p.layered && clips.length > 1) {
      // three.js's masked layer: the clip with only the upper body's tracks.
      const upper = new Set<string>();
      const spine = root.getObjectByName("mixamorigSpine") ??
        root.getObjectByName("mixamorig:Spine");
      (spine ?? root).traverse((o: THREE.Object3D) => upper.add(o.name));
      const layer = clips[(p.first + 1) % clips.length].clone();
      layer.tracks = layer.tracks.filter((t: THREE.KeyframeTrack) =>
        upper.has(t.name.split(".")[0])
      );
      mixer.clipAction(layer).setEffectiveWeight(0.7).play();
    }
    return {
      root,
      mixer,
      clips,
      get action() {
        return action;
      },
      set action(a) {
        action = a;
      },
    };
  });
  // Every action made once before the session, as Marrow's clips are built.
  for (const c of characters) for (const clip of c.clips) c.mixer.clipAction(clip);
  const due = plan.map((p) => p.intervals[0]), switches = plan.map(() => 0);
  const frame = (f: number) => {
    for (let i = 0; i < characters.length; i++) {
      const c = characters[i];
      if (f >= due[i]) {
        const p = plan[i], k = ++switches[i];
        due[i] = f + p.intervals[k % p.intervals.length];
        const next = c.mixer.clipAction(c.clips[(p.first + k) % c.clips.length]);
        if (next !== c.action) {
          next.reset().play();
          c.action.crossFadeTo(next, FADE, false);
          c.action = next;
        }
      }
      c.mixer.update(DT);
      c.root.updateMatrixWorld(true);
    }
  };
  return {
    name: "three.js AnimationMixer (animation only)",
    frame,
    // 60 frames: its 80–120 KB a frame over more would fill the young generation.
    bytes: () => ({ bytesPerFrame: bytesPer(60, (f) => frame(FRAMES + f)) }),
  };
}

/** The table, as the README's Performance section shows it. */
export function sessionTable(group: string, rows: readonly SessionRow[]): string {
  const ms = (v: number) => v.toFixed(2);
  const bytes = (v: number) => Number.isNaN(v) ? "collected" : Math.round(v).toLocaleString("en");
  const lines = [
    `**${group}** (${
      FRAMES.toLocaleString("en")
    } frames; times in ms, after ${WARMUP} frames of warm-up)`,
    "",
    "| row | mean | median | p99 | worst | bytes / frame | bytes / cross-fade |",
    "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ...rows.map((r) =>
      `| ${r.name} | ${ms(r.mean)} | ${ms(r.median)} | ${ms(r.p99)} | ${ms(r.worst)} | ${
        bytes(r.bytesPerFrame)
      } | ${r.bytesPerCrossFade === undefined ? "" : bytes(r.bytesPerCrossFade)} |`
    ),
  ];
  return lines.join("\n");
}

if (import.meta.main) {
  const group = `session: ${CHARACTERS} × ${MODELS.map((m) => m.replace(".glb", "")).join(", ")}`;
  const pool = await createWorkerPool({ workers: 2 });
  try {
    const noise = noiseRun(), twoThreadNoise = twoThreadNoiseRun();
    const runs: SessionRun[] = [
      await threeSession(),
      await marrowSession("Marrow, single-threaded"),
      await marrowSession(`Marrow, 2 threads (${pool.mode})`, pool),
      noise,
      twoThreadNoise,
    ];
    // Each noise loop is sized to its Marrow row's median over the warm-up's second half.
    const times = timeInterleaved(runs, (warm) => {
      const median = (row: number) => warm[row].slice(WARMUP / 2, WARMUP).sort()[WARMUP / 4];
      noise.calibrate(median(1));
      twoThreadNoise.calibrate(median(2));
    });
    twoThreadNoise.close();
    const rows = runs.map((run, r) => ({
      name: run.name,
      ...statistics(times[r]),
      ...run.bytes(),
    }));
    console.log(sessionTable(group, rows));
  } finally {
    pool.close();
  }
}
