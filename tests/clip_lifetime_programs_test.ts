/**
 * Model-based test of clip lifetimes (fast-check, seeded): random programs
 * of playing, cross-fading and layering clips, disposing them while they
 * play, loading them again from a compact clip file (and loading files
 * only to dispose of them, so that freed blocks are handed out again),
 * playing clips never built before (built in the play), clip budgets that
 * refuse loads and builds, layer weights, removing players and entities,
 * and frames, plain or awaited with clips disposed and files loaded while
 * they are out; on every build, and with the subject's frames on a pool of
 * 2 workers (plain and task-parallel).
 *
 * Two worlds run each program: the subject, whose clips are loaded from a
 * compact clip file and disposed as the program says, and a twin on a core
 * of its own, which plays the clips the file was saved from and never
 * disposes of one. A loaded clip samples bit for bit as the clip it was
 * saved from, with the markers it was saved with, and disposing a clip
 * must not change what a player still holding it samples: after every
 * frame each entity's pose has the same bits in both worlds, and it
 * crossed the same markers. A block freed while a playback still read it, and
 * handed out to a clip loaded since, would show there. A call the model
 * says must fail (playing a disposed clip, a load over the budget) throws
 * its typed error and allocates nothing. At the end, with the world and
 * every clip disposed, the subject's core holds exactly what it held before
 * the program.
 */

import "../scalar.ts";
import { assert, assertEquals } from "@std/assert";
import fc from "fast-check";
import { addEntity, createWorld, removeEntity } from "bitecs";
import {
  addCharacter,
  type Clip,
  ClipError,
  ComponentError,
  createAnimation,
  createAnimationPipeline,
  crossFadeTo,
  disposeAnimation,
  getPose,
  playClip,
  removeClipPlayer,
  SkeletonAsset,
} from "../mod.ts";
import {
  ClipBudgetError,
  clipBytes,
  DEFAULT_CLIP_BUDGET,
  disposeClip,
  getCrossedMarkers,
  loadCompactClips,
  saveCompactClips,
  setClipBudget,
  setClipMarkers,
} from "../clips.ts";
import { addLayer, removeLayer, setLayerWeight } from "../layers.ts";
import { Core, type CoreBuild, createWorkerPool, type WorkerPool } from "../kernels.ts";
import { createCylinder } from "../procedural/cylinder.ts";
import { coreMemory } from "../simd/memory/_instance.ts";
import { BUILDS, runs, SEED } from "./_arbitrary.ts";
import { random } from "./_scene.ts";
import { randomClip } from "./_compact.ts";

const JOINTS = 6, ENTITIES = 3, SLOTS = 3;
const character = createCylinder({ joints: JOINTS });

/** One world of a program: its core, skeleton, entities and frame. */
interface Side {
  readonly core: Core;
  readonly skeleton: SkeletonAsset;
  readonly world: object;
  readonly entities: number[];
  readonly animate: ReturnType<typeof createAnimationPipeline>;
  /** The core's allocated bytes before the world was made (the skeleton's). */
  readonly baseline: number;
}

/** A side on a core of its own, or on `pool`'s core with its frames on the pool's workers. */
function side(build: CoreBuild, pool?: WorkerPool, taskParallel = false): Side {
  const core = pool?.core ?? Core.create(build);
  const skeleton = new SkeletonAsset(character.skeleton, core);
  const baseline = coreMemory(core).allocatedBytes;
  const world = createWorld();
  createAnimation(world, { core });
  const entities = Array.from({ length: ENTITIES }, () => spawn(world, skeleton));
  const animate = createAnimationPipeline(pool ? { pool, taskParallel } : {});
  return { core, skeleton, world, entities, animate, baseline };
}

function spawn(world: object, skeleton: SkeletonAsset): number {
  const eid = addEntity(world);
  addCharacter(world, eid, skeleton);
  return eid;
}

/** A program's two worlds, the subject's clips by slot, and the model. */
interface Harness {
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
function harness(build: CoreBuild, seed: number, threads: Threads): Harness {
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
function both(subject: () => void, twin: () => void): void {
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
function refused(
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

type Step = readonly [string, (h: Harness) => void | Promise<void>];

const entity = fc.nat(ENTITIES - 1), slot = fc.nat(SLOTS - 1);

/** A clip call on entity `e` with slot `s`'s clip in each world. */
function withClip(
  h: Harness,
  e: number,
  s: number,
  call: (world: object, eid: number, clip: Clip) => void,
): void {
  const { subject, twin } = h;
  const run = () => call(subject.world, subject.entities[e], h.clips[s]);
  // A disposed clip is refused, or the entity first (a layer on an entity that plays nothing).
  if (h.disposed[s]) return refused(h, [ClipError, ComponentError], run);
  both(run, () => call(twin.world, twin.entities[e], h.twinClips[s]));
}

/** Frames of both worlds, each followed by the comparison of every pose. */
const frame: fc.Arbitrary<Step> = fc.integer({ min: 1, max: 4 }).map((
  frames,
): Step => [`frame ×${frames}`, (h) => {
  for (let f = 0; f < frames; f++) {
    for (const side of [h.subject, h.twin]) side.animate(side.world, 1 / 60);
    comparePoses(h);
  }
}]);

/**
 * Calls on the subject alone (the twin never disposes of a clip, nor loads
 * one): they change no playback's samples, so they may also run while an
 * awaitable frame is out ({@linkcode asyncFrame}).
 */
const subjectSteps: fc.Arbitrary<Step>[] = [
  slot.map((s): Step => [`dispose ${s}`, (h) => {
    disposeClip(h.clips[s]);
    h.disposed[s] = true;
  }]),
  // The slot's clip loaded again; the file's other clips disposed at once.
  slot.map((s): Step => [`reload ${s}`, (h) => {
    const loaded = load(h);
    if (!loaded) return;
    loaded.forEach((clip, i) => i === s ? (h.clips[s] = clip) : disposeClip(clip));
    h.disposed[s] = false;
  }]),
  // A whole file loaded and disposed: its blocks are freed for the next allocation.
  fc.constant<Step>(["churn", (h) => load(h)?.forEach(disposeClip)]),
  fc.constantFrom(0, 1, 2).map((tight): Step => [`budget ${tight}`, (h) => {
    // 0: the default; 1: no room for another file; 2: room for nothing.
    const used = clipBytes(h.subject.core);
    setClipBudget(h.subject.core, [1 << 30, used + 16, 0][tight]);
  }]),
];

/**
 * A frame awaited (on the pool's workers where the subject has a pool)
 * with subject calls made while it is out: disposing a clip it samples,
 * loading files into blocks freed meanwhile. The frame's poses are those
 * of the twin's frame.
 */
const asyncFrame = fc.array(fc.oneof(...subjectSteps), { maxLength: 4 }).map((during): Step => [
  `async frame, during it: ${during.map(([label]) => label).join(", ") || "nothing"}`,
  async (h) => {
    const pending = h.subject.animate.async(h.subject.world, 1 / 60);
    for (const [, step] of during) step(h);
    await pending;
    h.twin.animate(h.twin.world, 1 / 60);
    comparePoses(h);
  },
]);

const steps: fc.Arbitrary<Step>[] = [
  fc.tuple(entity, slot, fc.integer({ min: 0, max: 9 })).map(([e, s, tenths]): Step => [
    `play ${e} ${s} ${tenths / 10}`,
    (h) =>
      withClip(h, e, s, (world, eid, clip) => playClip(world, eid, clip, { time: tenths / 10 })),
  ]),
  fc.tuple(entity, slot, fc.integer({ min: 1, max: 20 })).map(([e, s, frames]): Step => [
    `fade ${e} ${s} ${frames}`,
    (h) => withClip(h, e, s, (world, eid, clip) => crossFadeTo(world, eid, clip, frames / 60)),
  ]),
  fc.tuple(
    entity,
    slot,
    fc.constantFrom("override", "additive") as fc.Arbitrary<
      "override" | "additive"
    >,
  ).map(([e, s, mode]): Step => [
    `layer ${e} ${s} ${mode}`,
    (h) =>
      withClip(h, e, s, (world, eid, clip) => addLayer(world, eid, clip, { weight: 0.5, mode })),
  ]),
  entity.map((e): Step => [`removeLayer ${e}`, (h) => {
    both(
      () => removeLayer(h.subject.world, h.subject.entities[e], 1),
      () => removeLayer(h.twin.world, h.twin.entities[e], 1),
    );
  }]),
  // Layer weights, good and bad (layer 0 is the base's; 2 is often missing; 2 is no weight).
  fc.tuple(entity, fc.nat(2), fc.constantFrom(0.3, 2)).map(([e, layer, weight]): Step => [
    `setLayerWeight ${e} ${layer} ${weight}`,
    (h) =>
      both(
        () => setLayerWeight(h.subject.world, h.subject.entities[e], layer, weight),
        () => setLayerWeight(h.twin.world, h.twin.entities[e], layer, weight),
      ),
  ]),
  entity.map((e): Step => [`removeClipPlayer ${e}`, (h) => {
    both(
      () => removeClipPlayer(h.subject.world, h.subject.entities[e]),
      () => removeClipPlayer(h.twin.world, h.twin.entities[e]),
    );
  }]),
  entity.map((e): Step => [`respawn ${e}`, (h) => {
    for (const side of [h.subject, h.twin]) {
      removeEntity(side.world, side.entities[e]);
      side.entities[e] = spawn(side.world, side.skeleton);
    }
  }]),
  // A clip never played before, built in the play (within the subject's budget), and its copy
  // in the twin; disposed at the end.
  fc.tuple(entity, fc.nat(1 << 20)).map(([e, seed]): Step => [`playFresh ${e} ${seed}`, (h) => {
    const fresh = randomClip(JOINTS, random(seed)), copy = randomClip(JOINTS, random(seed));
    h.loaded.push(fresh);
    const memory = coreMemory(h.subject.core);
    const bytes = clipBytes(h.subject.core), allocated = memory.allocatedBytes;
    try {
      playClip(h.subject.world, h.subject.entities[e], fresh);
    } catch (error) {
      if (!(error instanceof ClipBudgetError)) throw error;
      // Over the budget: refused before anything was allocated.
      assertEquals(clipBytes(h.subject.core), bytes, "clip bytes after a refused build");
      assertEquals(memory.allocatedBytes, allocated, "allocated bytes after a refused build");
      h.refusals++;
      return;
    }
    playClip(h.twin.world, h.twin.entities[e], copy);
  }]),
  ...subjectSteps,
  frame,
];

/** The file loaded into the subject, or undefined when its budget refused it (checked: nothing allocated). */
function load(h: Harness): Clip[] | undefined {
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
function comparePoses(h: Harness): void {
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
type Threads = { pool: WorkerPool; taskParallel: boolean } | undefined;

const RUNS = runs(150, 30), STEPS = 60;

/** The programs on `build`, the subject's frames on `threads`. */
async function programs(build: CoreBuild, threads: Threads, name: string): Promise<void> {
  let refusals = 0, frames = 0;
  await fc.assert(
    fc.asyncProperty(
      fc.nat(),
      fc.array(fc.oneof(...steps, frame, frame, asyncFrame), {
        minLength: STEPS / 2,
        maxLength: STEPS,
        size: "max",
      }),
      async (seed, program) => {
        const h = harness(build, seed, threads);
        const memory = coreMemory(h.subject.core);
        for (const [label, step] of program) {
          try {
            await step(h);
          } catch (error) {
            throw new Error(`${label}: ${(error as Error).message}`, { cause: error });
          }
          if (label.startsWith("frame") || label.startsWith("async frame")) frames++;
        }
        refusals += h.refusals;
        // Everything given back: the world's blocks, then every clip ever loaded.
        disposeAnimation(h.subject.world);
        h.loaded.forEach(disposeClip);
        assertEquals(clipBytes(h.subject.core), 0, "clip bytes at the end");
        assertEquals(memory.allocatedBytes, h.subject.baseline, "allocated bytes at the end");
        h.subject.skeleton.dispose();
      },
    ),
    { seed: SEED, numRuns: RUNS, endOnFailure: true },
  );
  console.log(`${name}: ${RUNS} programs, ${frames} frame steps, ${refusals} refused calls`);
  assert(refusals > 0 && frames > 0);
}

for (const build of BUILDS) {
  Deno.test(`model-based programs of clip lifetimes (${build})`, async () => {
    await programs(build, undefined, build);
  });
}

for (const taskParallel of [false, true]) {
  const mode = taskParallel ? "2 workers, task-parallel" : "2 workers";
  Deno.test(`model-based programs of clip lifetimes (simd, ${mode})`, async () => {
    const pool = await createWorkerPool({ workers: 2, build: "simd" });
    try {
      await programs("simd", { pool, taskParallel }, `simd, ${mode}`);
    } finally {
      pool.close();
    }
  });
}
