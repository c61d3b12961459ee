/**
 * The harness of `clip_lifetime_programs_test.ts`: the two worlds of a
 * program (the subject, whose clips are loaded from a compact clip file and
 * disposed, and its twin), the calls made in both, refusals checked to
 * allocate nothing, loads within the budget, and the comparison of every
 * pose and marker crossed.
 *
 * @module
 */

import "../scalar.ts";
import { assert, assertEquals } from "@std/assert";
import { addEntity, createWorld } from "bitecs";
import {
  addCharacter,
  type Clip,
  createAnimation,
  createAnimationPipeline,
  getPose,
  SkeletonAsset,
} from "../mod.ts";
import {
  ClipBudgetError,
  clipBytes,
  DEFAULT_CLIP_BUDGET,
  getCrossedMarkers,
  loadCompactClips,
  saveCompactClips,
  setClipBudget,
  setClipMarkers,
} from "../clips.ts";
import { Core, type CoreBuild, type WorkerPool } from "../kernels.ts";
import { createCylinder } from "../procedural/cylinder.ts";
import { coreMemory } from "../simd/memory/_instance.ts";
import { random } from "./_scene.ts";
import { randomClip } from "./_compact.ts";

export const JOINTS = 6, ENTITIES = 3, SLOTS = 3;
const character = createCylinder({ joints: JOINTS });

/** One world of a program: its core, skeleton, entities and frame. */
export interface Side {
  readonly core: Core;
  readonly skeleton: SkeletonAsset;
  readonly world: object;
  readonly entities: number[];
  readonly animate: ReturnType<typeof createAnimationPipeline>;
  /** The core's allocated bytes before the world was made (the skeleton's). */
  readonly baseline: number;
}

/** A side on a core of its own, or on `pool`'s core with its frames on the pool's workers. */
export function side(build: CoreBuild, pool?: WorkerPool, taskParallel = false): Side {
  const core = pool?.core ?? Core.create(build);
  const skeleton = new SkeletonAsset(character.skeleton, core);
  const baseline = coreMemory(core).allocatedBytes;
  const world = createWorld();
  createAnimation(world, { core });
  const entities = Array.from({ length: ENTITIES }, () => spawn(world, skeleton));
  const animate = createAnimationPipeline(pool ? { pool, taskParallel } : {});
  return { core, skeleton, world, entities, animate, baseline };
}

export function spawn(world: object, skeleton: SkeletonAsset): number {
  const eid = addEntity(world);
  addCharacter(world, eid, skeleton);
  return eid;
}

/** A program's two worlds, the subject's clips by slot, and the model. */
export interface Harness {
  readonly subject: Side;
  readonly twin: Side;
  /** The file saved from the twin's clips (for its skeleton; the subject's has the same structure). */
  readonly file: Uint8Array;
  readonly twinClips: readonly Clip[];
  /** Per slot, the subject's clip of that slot (loaded from the file), and whether it is disposed. */
  readonly clips: Clip[];
  readonly disposed: boolean[];
  /** Every clip the subject loaded, to dispose of at the end. */
  readonly loaded: Clip[];
  /** Refused calls, for the coverage line. */
  refusals: number;
}

/** The test's clips, three of them, each a different random clip (seeded per program). */
export function harness(build: CoreBuild, seed: number, threads: Threads): Harness {
  const next = random(seed);
  const twin = side(build);
  const subject = side(build, threads?.pool, threads?.taskParallel);
  // A pool's core serves every program: the budget an earlier one set goes.
  setClipBudget(subject.core, DEFAULT_CLIP_BUDGET);
  const twinClips = [
    randomClip(JOINTS, next),
    randomClip(JOINTS, next, true),
    randomClip(JOINTS, next),
  ];
  // Markers go into the file with the clips: the subject's loaded clips cross them as the twin's do.
  twinClips.forEach((clip, i) =>
    setClipMarkers(
      clip,
      [0.1, 0.35, 0.6].map((at) => ({ name: `m${i}`, time: at * clip.duration })),
    )
  );
  const file = saveCompactClips(twin.skeleton, twinClips);
  const clips = loadCompactClips(subject.skeleton, file);
  return {
    subject,
    twin,
    file,
    twinClips,
    clips,
    disposed: clips.map(() => false),
    loaded: [...clips],
    refusals: 0,
  };
}

/** Runs `subject` and `twin` in their worlds: both succeed, or both throw errors of one class. */
export function both(subject: () => void, twin: () => void): void {
  const outcome = (run: () => void) => {
    try {
      run();
      return undefined;
    } catch (error) {
      return error as Error;
    }
  };
  const s = outcome(subject), t = outcome(twin);
  assertEquals(
    s?.constructor.name,
    t?.constructor.name,
    `subject: ${s?.message}; twin: ${t?.message}`,
  );
}

/**
 * `run` in the subject alone must throw an instance of one of `types` and
 * allocate nothing in its core (neither clip bytes nor any other block).
 */
export function refused(
  h: Harness,
  types: readonly (new (...args: never[]) => Error)[],
  run: () => void,
): void {
  const memory = coreMemory(h.subject.core);
  const bytes = clipBytes(h.subject.core), allocated = memory.allocatedBytes;
  let thrown: unknown;
  try {
    run();
  } catch (error) {
    thrown = error;
  }
  assert(
    types.some((type) => thrown instanceof type),
    `expected ${types.map((t) => t.name).join(" or ")}, got ${thrown}`,
  );
  assertEquals(clipBytes(h.subject.core), bytes, "clip bytes after a refused call");
  assertEquals(memory.allocatedBytes, allocated, "allocated bytes after a refused call");
  h.refusals++;
}

/** The file loaded into the subject, or undefined when its budget refused it (checked: nothing allocated). */
export function load(h: Harness): Clip[] | undefined {
  const { core, skeleton } = h.subject;
  const file = h.file;
  // The file's clips take more bytes than the file holds of them: a budget with less room refuses it.
  const room = clipBytes(core) + file.length * 4;
  let loaded: Clip[] | undefined;
  try {
    loaded = loadCompactClips(skeleton, file);
  } catch (error) {
    if (!(error instanceof ClipBudgetError)) throw error;
  }
  if (!loaded) {
    refused(h, [ClipBudgetError], () => loadCompactClips(skeleton, file));
    return undefined;
  }
  assert(clipBytes(core) <= room);
  h.loaded.push(...loaded);
  return loaded;
}

/** Every entity's pose has the same bits in both worlds, and it crossed the same markers. */
export function comparePoses(h: Harness): void {
  for (let e = 0; e < ENTITIES; e++) {
    const hits = (side: Side) =>
      getCrossedMarkers(side.world, side.entities[e]).map((hit) =>
        `${hit.name}@${hit.time}/${hit.layer}`
      )
        .join();
    let played = true;
    try {
      hits(h.subject);
    } catch {
      played = false; // no ClipPlayer
    }
    if (played) assertEquals(hits(h.subject), hits(h.twin), `entity ${e}: markers crossed`);
    const a = new Uint32Array(getPose(h.subject.world, h.subject.entities[e]).slice().buffer);
    const b = new Uint32Array(getPose(h.twin.world, h.twin.entities[e]).slice().buffer);
    for (let i = 0; i < a.length; i++) {
      if (a[i] !== b[i]) {
        throw new Error(`entity ${e}: pose float ${i}: subject ${a[i]} != twin ${b[i]}`);
      }
    }
  }
}

/** Where the subject's frames run: its own core on the calling thread, or a pool of 2 workers. */
export type Threads = { pool: WorkerPool; taskParallel: boolean } | undefined;
