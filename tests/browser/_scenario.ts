/**
 * The run the browser suite compares across runtimes: the demo crowd
 * (generated cylinders playing the generated wave clip) and a glTF
 * character playing its clip, animated by the full pipeline on one core
 * build, with a SHA-256 digest of every entity's skinned positions and
 * normals after each frame. The same code runs in Deno and, bundled, in
 * the page, so equal digests mean bit-identical output.
 *
 * @module
 */

import "../../scalar.ts";
import { createAnimationPipeline } from "../../mod.ts";
import { parseGltf } from "../../gltf/mod.ts";
import { Core, type CoreBuild, createWorkerPool, type ThreadMode } from "../../kernels.ts";
import { Crowd, cylinderCharacter, type DemoCharacter } from "../../examples/crowd.ts";
import { gltfCharacter } from "../../examples/gltf_character.ts";

/** Digests of one character on one build. */
export interface ScenarioRun {
  readonly character: string;
  readonly build: CoreBuild;
  /** SHA-256 (hex) of all entities' positions then normals, after each frame. */
  readonly frames: readonly string[];
  /** Floats of the first entity's positions that changed from the first frame to the last. */
  readonly moved: number;
  /** Whether every output float is finite. */
  readonly finite: boolean;
}

/** What a runtime reports: its builds and every run. */
export interface ScenarioReport {
  /** The core builds this runtime can instantiate. */
  readonly builds: readonly CoreBuild[];
  /** The build `Core.default` picked. */
  readonly defaultBuild: CoreBuild;
  readonly runs: readonly ScenarioRun[];
}

/** The page's report: the scenario's and the page's isolation state. */
export interface PageReport extends ScenarioReport {
  readonly crossOriginIsolated: boolean;
  readonly sharedArrayBuffer: boolean;
  /** The cylinder crowd on 2 workers, task-parallel, each frame awaited (`animate.async`). */
  readonly taskParallel: TaskParallelRun;
}

/** Digests of the task-parallel run, and the mode it ran in. */
export interface TaskParallelRun {
  readonly mode: ThreadMode;
  readonly frames: readonly string[];
}

const ENTITIES = 6;
const FRAMES = 8;
const ALL_BUILDS: readonly CoreBuild[] = ["relaxed-simd", "simd", "scalar"];

/** The builds `Core.create` accepts here (it throws a TypeError for the others). */
export function runnableBuilds(): CoreBuild[] {
  return ALL_BUILDS.filter((build) => {
    try {
      Core.create(build);
      return true;
    } catch (error) {
      if (error instanceof TypeError) return false;
      throw error;
    }
  });
}

async function sha256(bytes: Uint8Array<ArrayBuffer>): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  return Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** Every entity's skinned positions and normals, in one array. */
function outputOf(crowd: Crowd): Float32Array<ArrayBuffer> {
  const streams = crowd.entities.flatMap((_, i) => [
    crowd.positions(i),
    crowd.normals(i) ?? new Float32Array(),
  ]);
  const all = new Float32Array(streams.reduce((n, s) => n + s.length, 0));
  streams.reduce((at, s) => (all.set(s, at), at + s.length), 0);
  return all;
}

/**
 * The cylinder crowd of {@linkcode runScenario} on a pool of 2 workers,
 * animated by the task-parallel pipeline's awaitable form (a page's main
 * thread may not block): its digests after each call.
 */
export async function runTaskParallel(build: CoreBuild): Promise<TaskParallelRun> {
  const pool = await createWorkerPool({ workers: 2, build });
  const crowd = new Crowd(cylinderCharacter(), ENTITIES, build, pool);
  try {
    const animate = createAnimationPipeline({ pool, taskParallel: true });
    const frames: string[] = [];
    for (let frame = 0; frame < FRAMES; frame++) {
      await animate.async(crowd.world, 1 / 30);
      frames.push(await sha256(new Uint8Array(outputOf(crowd).buffer)));
    }
    return { mode: animate.mode, frames };
  } finally {
    crowd.dispose();
    pool.close();
  }
}

async function runCharacter(character: DemoCharacter, build: CoreBuild): Promise<ScenarioRun> {
  const crowd = new Crowd(character, ENTITIES, build);
  try {
    const frames: string[] = [];
    let first: Float32Array | undefined;
    let last = new Float32Array();
    let finite = true;
    for (let frame = 0; frame < FRAMES; frame++) {
      crowd.frame(1 / 30);
      const all = outputOf(crowd);
      finite &&= all.every(Number.isFinite);
      frames.push(await sha256(new Uint8Array(all.buffer)));
      last = crowd.positions(0).slice();
      first ??= last;
    }
    const moved = last.filter((v, i) => v !== first![i]).length;
    return { character: character.name, build, frames, moved, finite };
  } finally {
    crowd.dispose();
  }
}

/** Runs both characters on every runnable build; `glb` is the glTF file's bytes. */
export async function runScenario(glb: Uint8Array, name: string): Promise<ScenarioReport> {
  const characters = [cylinderCharacter(), gltfCharacter(await parseGltf(glb, { name }))];
  const builds = runnableBuilds();
  const runs: ScenarioRun[] = [];
  for (const build of builds) {
    for (const character of characters) runs.push(await runCharacter(character, build));
  }
  return { builds, defaultBuild: Core.default.build, runs };
}
