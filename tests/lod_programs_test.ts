/**
 * Model-based programs of level-of-detail calls (fast-check commands,
 * seeded) on Fox pairs (`tests/_lod.ts`: a full-rate entity and its twin
 * with a level of detail, playing the same clips): random update rates,
 * culling, pauses, influence caps (the same on both twins), removals,
 * distance bands, cross-fades and frames of random length, in the
 * blocking and task-parallel frames, on the calling thread and on two
 * workers. After every frame each twin's root motion is its full-rate
 * entity's; its joints are either the full-rate entity's (bit for bit) or
 * its own of the frame before, the former every frame at rate 1 unless
 * paused and culled, the latter while paused and culled; a culled twin
 * publishes nothing new; a twin animated and visible is skinned as its
 * full-rate entity (in the task-parallel frame, its skinned outputs are
 * the full-rate entity's of this frame or of one of the last frames, its
 * own of the frame before, or the full-rate entity's of the next frame).
 */

import { assert, assertEquals, assertThrows } from "@std/assert";
import fc from "fast-check";
import {
  type AnimationPipeline,
  ComponentError,
  createAnimationPipeline,
  crossFadeTo,
} from "../mod.ts";
import { removeLevelOfDetail, setLevelOfDetail, setLevelOfDetailByDistance } from "../lod.ts";
import { Core, createWorkerPool, type WorkerPool } from "../kernels.ts";
import { runs, SEED } from "./_arbitrary.ts";
import { createLodScene, type LodScene, type Outputs, outputsOf, sameBits } from "./_lod.ts";

const PAIRS = 4, RUNS = runs(12, 4), COMMANDS = 40;

/** The model of a twin's level of detail. */
interface Twin {
  has: boolean;
  rate: number;
  visible: boolean;
  paused: boolean;
}

interface Run {
  readonly scene: LodScene;
  readonly animate: AnimationPipeline;
  readonly late: boolean;
  readonly twins: Twin[];
  previous: Outputs[];
  /**
   * Task-parallel: skinned outputs of a twin skinned in the call that
   * animated it (one its snapshot did not hold), which the full-rate
   * entity publishes in the next call.
   */
  ahead: (Float32Array | undefined)[];
  /**
   * Task-parallel: the skinned outputs the full-rate entity published in
   * the last frames, newest first (one per update rate a twin may have): a
   * twin skinned from the palette it had in the frame before, not animated
   * in it, publishes one of them.
   */
  behind: Float32Array[][];
  /** Task-parallel: each twin's update rate in the last frames, newest first. */
  rates: number[][];
  /** Frames that included each twin since its joints were last animated, or since its settings changed. */
  waited: number[];
  /**
   * Task-parallel: frames left in which a twin's skin may be its palette of
   * a frame before its new influence cap, skinned with it (no full-rate
   * output is: the skin is not checked then).
   */
  newCap: number[];
  frames: number;
}

/** Frames of {@linkcode Run.behind}: the largest update rate the programs set. */
const MAX_RATE = 4;

type Step = (r: Run) => void;

const steps: fc.Arbitrary<[string, Step]>[] = [
  fc.tuple(fc.nat(PAIRS - 1), fc.integer({ min: 1, max: 4 }), fc.boolean(), fc.boolean(), fc.nat(3))
    .map(([pair, rate, visible, paused, cap]) => [
      `lod ${pair} ${rate} ${visible} ${paused} ${cap}`,
      (r: Run) => {
        const { world, lod, full } = r.scene;
        setLevelOfDetail(world, lod[pair], {
          updateRate: rate,
          visible,
          pausedWhenCulled: paused,
          maxInfluences: cap,
        });
        setLevelOfDetail(world, full[pair], { maxInfluences: cap });
        r.ahead[pair] = undefined; // the full-rate entity's next output has the new cap
        Object.assign(r.twins[pair], { has: true, rate, visible, paused });
        r.waited[pair] = 0, r.newCap[pair] = MAX_RATE;
      },
    ]),
  fc.nat(PAIRS - 1).map((pair) => [`remove ${pair}`, (r: Run) => {
    const { world, lod } = r.scene, twin = r.twins[pair];
    if (!twin.has) {
      assertThrows(
        () => removeLevelOfDetail(world, lod[pair]),
        ComponentError,
        `entity ${lod[pair]}`,
      );
      return;
    }
    removeLevelOfDetail(world, lod[pair]);
    Object.assign(twin, { has: false, rate: 1, visible: true, paused: false });
    r.waited[pair] = 0;
  }]),
  fc.tuple(fc.double({ min: -300, max: 300, noNaN: true }), fc.integer({ min: 1, max: 4 })).map((
    [x, rate],
  ) => [`bands ${x} ${rate}`, (r: Run) => {
    const { world, lod, full } = r.scene;
    setLevelOfDetailByDistance(world, lod, [x, 0, 0], [
      { maxDistance: 60 },
      { maxDistance: 150, updateRate: rate, maxInfluences: 2 },
    ]);
    const store = r.scene.components.LevelOfDetail, caps = r.scene.components.Skin.maxInfluences;
    lod.forEach((eid, pair) => {
      caps[full[pair]] = caps[eid];
      r.ahead[pair] = undefined;
      r.waited[pair] = 0, r.newCap[pair] = MAX_RATE;
      Object.assign(r.twins[pair], {
        has: true,
        rate: store.updateRate[eid],
        visible: store.culled[eid] === 0,
      });
    });
  }]),
  fc.tuple(fc.nat(PAIRS - 1), fc.nat(2)).map((
    [pair, clip],
  ) => [`fade ${pair} ${clip}`, (r: Run) => {
    const { world, lod, full, clips } = r.scene;
    for (const eid of [full[pair], lod[pair]]) crossFadeTo(world, eid, clips[clip], 0.1);
  }]),
  fc.constantFrom(1 / 60, 1 / 30, 0.013).map((dt) => [`frame ${dt}`, (r: Run) => frame(r, dt)]),
  // A frame on the pairs of one parity.
  fc.tuple(fc.nat(1), fc.constantFrom(1 / 60, 0.013)).map(([half, dt]) => [
    `frame half ${half} ${dt}`,
    (r: Run) => frame(r, dt, half),
  ]),
];

function frame(r: Run, dt: number, half?: number): void {
  const { world, full, lod } = r.scene;
  const inFrame = (pair: number) => half === undefined || pair % 2 === half;
  const subset = half === undefined
    ? undefined
    : full.flatMap((eid, i) => inFrame(i) ? [eid, lod[i]] : []);
  r.animate(world, dt, subset);
  r.frames++;
  const now = lod.map((eid) => outputsOf(world, eid));
  for (let pair = 0; pair < lod.length; pair++) {
    const l = now[pair], f = outputsOf(world, full[pair]), p = r.previous[pair];
    const twin = r.twins[pair], at = `pair ${pair} (${JSON.stringify(twin)})`;
    if (!inFrame(pair)) {
      assert(sameBits(l.joints, p.joints) && sameBits(l.skinned, p.skinned), `${at}: outside`);
      // Task-parallel: a frame that left it out makes its next one skin both
      // entities from their palettes of then, not the full-rate one a call late.
      r.ahead[pair] = undefined;
      continue;
    }
    assertEquals(l.motion, f.motion, `${at}: root motion`);
    const updated = sameBits(l.joints, f.joints), kept = sameBits(l.joints, p.joints);
    assert(updated || kept, `${at}: joints neither the full-rate entity's nor kept`);
    const frozen = !twin.visible && twin.paused;
    if (twin.rate === 1 && !frozen) assert(updated, `${at}: joints not animated at rate 1`);
    if (frozen) assert(kept, `${at}: joints animated while paused and culled`);
    // Animated on every rate-th frame that includes it, at the latest.
    r.waited[pair] = updated || frozen ? 0 : (r.waited[pair] ?? 0) + 1;
    assert(r.waited[pair] < twin.rate, `${at}: not animated in ${r.waited[pair]} frames`);
    const ahead = r.ahead[pair];
    r.ahead[pair] = undefined;
    if (ahead) {
      assert(sameBits(ahead, f.skinned), `${at}: skinned a call ahead, not as at full rate`);
    }
    if (!twin.visible) assert(sameBits(l.skinned, p.skinned), `${at}: culled, yet published`);
    else if (r.late && (r.newCap[pair] ?? 0) > 0) r.newCap[pair]--;
    else if (r.late) {
      // At rate N, the palette of the frame before is at most N - 1 frames
      // older than the full-rate entity's (the rate it had in those frames).
      const rate = Math.max(twin.rate, ...(r.rates[pair] ?? []));
      const behind = (r.behind[pair] ?? []).slice(0, rate - 1);
      if (
        !sameBits(l.skinned, f.skinned) && !sameBits(l.skinned, p.skinned) &&
        !behind.some((skinned) => sameBits(l.skinned, skinned))
      ) r.ahead[pair] = l.skinned;
    } else if (updated && !kept) {
      assert(sameBits(l.skinned, f.skinned), `${at}: animated, skinned not as at full rate`);
    }
  }
  r.previous = now;
  for (let pair = 0; pair < full.length; pair++) {
    if (!inFrame(pair)) continue;
    const behind = r.behind[pair] ??= [], rates = r.rates[pair] ??= [];
    behind.unshift(outputsOf(world, full[pair]).skinned), rates.unshift(r.twins[pair].rate);
    if (behind.length > MAX_RATE) behind.length = rates.length = MAX_RATE;
  }
}

const program = fc.array(
  fc.oneof(
    ...steps.slice(0, 4).map((arbitrary) => ({ arbitrary, weight: 1 })),
    { arbitrary: steps[4], weight: 4 },
    { arbitrary: steps[5], weight: 2 },
  ),
  { minLength: COMMANDS / 2, maxLength: COMMANDS },
);

const MODES = [
  { name: "blocking", workers: 0, taskParallel: false },
  { name: "task-parallel", workers: 0, taskParallel: true },
  { name: "workers", workers: 2, taskParallel: false },
  { name: "workers, task-parallel", workers: 2, taskParallel: true },
];

for (const mode of MODES) {
  Deno.test(`model-based programs of level-of-detail calls (${mode.name})`, async () => {
    const pool: WorkerPool | undefined = mode.workers
      ? await createWorkerPool({ workers: mode.workers, build: "simd" })
      : undefined;
    try {
      // Scenes are made before the property runs: fast-check's property is synchronous.
      const scenes: LodScene[] = [];
      for (let i = 0; i < RUNS; i++) {
        scenes.push(await createLodScene("simd", PAIRS, pool?.core ?? Core.create("simd")));
      }
      let run = 0, frames = 0;
      fc.assert(
        fc.property(program, (commands) => {
          const scene = scenes[run++ % RUNS];
          const r: Run = {
            scene,
            animate: createAnimationPipeline({ pool, taskParallel: mode.taskParallel }),
            late: mode.taskParallel,
            twins: scene.lod.map(() => ({ has: false, rate: 1, visible: true, paused: false })),
            previous: scene.lod.map((eid) => outputsOf(scene.world, eid)),
            ahead: [],
            waited: [],
            newCap: [],
            behind: [],
            rates: [],
            frames: 0,
          };
          for (const eid of scene.lod) {
            try {
              removeLevelOfDetail(scene.world, eid);
            } catch { /* a scene reused after a shrink: it may have none */ }
          }
          for (const [label, step] of commands) {
            try {
              step(r);
            } catch (error) {
              throw new Error(`${label}: ${(error as Error).message}`, { cause: error });
            }
          }
          frames += r.frames;
        }),
        { seed: SEED, numRuns: RUNS, endOnFailure: true },
      );
      assert(frames > RUNS * 5, `only ${frames} frames`);
    } finally {
      pool?.close();
    }
  });
}
