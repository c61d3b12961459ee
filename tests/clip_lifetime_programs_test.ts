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
import { removeEntity } from "bitecs";
import {
  type Clip,
  ClipError,
  ComponentError,
  crossFadeTo,
  disposeAnimation,
  playClip,
  removeClipPlayer,
} from "../mod.ts";
import { ClipBudgetError, clipBytes, disposeClip, setClipBudget } from "../clips.ts";
import { addLayer, removeLayer, setLayerWeight } from "../layers.ts";
import { type CoreBuild, createWorkerPool } from "../kernels.ts";
import { coreMemory } from "../simd/memory/_instance.ts";
import { BUILDS, runs, SEED } from "./_arbitrary.ts";
import { random } from "./_scene.ts";
import { randomClip } from "./_compact.ts";
import {
  both,
  comparePoses,
  ENTITIES,
  type Harness,
  harness,
  JOINTS,
  load,
  refused,
  SLOTS,
  spawn,
  type Threads,
} from "./_clip_lifetime.ts";

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
