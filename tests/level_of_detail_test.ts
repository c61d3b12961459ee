/**
 * Level of detail on Foxes playing, cross-fading, layered and with root
 * motion (`tests/_lod.ts`): an entity at update rate N equals its
 * full-rate twin bit for bit on the frames it is animated and keeps its
 * last outputs between, animated first on its first frame and then every
 * Nth, staggered; culled entities publish nothing new and keep animating
 * (or not, when paused); in the blocking, awaited and task-parallel frames,
 * on one thread and on workers.
 */

import { assert, assertEquals } from "@std/assert";
import {
  type AnimationPipeline,
  type AnimationPipelineOptions,
  createAnimationPipeline,
} from "../mod.ts";
import { setLevelOfDetail } from "../lod.ts";
import { Core, createWorkerPool } from "../kernels.ts";
import { BUILDS } from "./_scene.ts";
import { createLodScene, type LodScene, outputsOf, sameBits, stepScene } from "./_lod.ts";

const DT = 1 / 60, FRAMES = 26;
const RATES = [2, 2, 3, 4, 2, 3];

/** Runs `FRAMES` frames; returns, per LOD entity, the frames its joints were animated. */
async function run(
  scene: LodScene,
  animate: AnimationPipeline,
  awaiting: boolean,
  late: boolean,
): Promise<number[][]> {
  const { world, full, lod } = scene;
  let previous = lod.map((eid) => outputsOf(world, eid));
  const updates: number[][] = lod.map(() => []);
  for (let frame = 0; frame < FRAMES; frame++) {
    stepScene(scene, frame);
    if (awaiting) await animate.async(world, DT);
    else animate(world, DT);
    const now = lod.map((eid) => outputsOf(world, eid));
    const fullNow = full.map((eid) => outputsOf(world, eid));
    for (let i = 0; i < lod.length; i++) {
      const l = now[i], f = fullNow[i], p = previous[i], at = `frame ${frame}, pair ${i}`;
      // Clocks, markers and root motion run every frame.
      assertEquals(l.motion, f.motion, `${at}: root motion`);
      const updated = sameBits(l.joints, f.joints), kept = sameBits(l.joints, p.joints);
      assert(updated !== kept, `${at}: joints updated ${updated}, kept ${kept}`);
      if (updated) updates[i].push(frame);
      // Task-parallel: skinned outputs are a frame behind, the twin's as the
      // full-rate entity's: skinned in the call after the one that animated it.
      // On the first call every entity is skinned in that call.
      const skinnedNow = late ? frame === 0 || updates[i].includes(frame - 1) : updated;
      const expected = skinnedNow ? f.skinned : p.skinned;
      assert(sameBits(l.skinned, expected), `${at}: skinned outputs`);
    }
    previous = now;
  }
  return updates;
}

/** Checks each entity's update frames: frame 0, then every Nth, and the stagger. */
function checkUpdates(updates: number[][], what: string): void {
  updates.forEach((frames, i) => {
    const rate = RATES[i];
    assertEquals(frames[0], 0, `${what}: pair ${i} animated on its first frame`);
    assert(frames[1] <= rate, `${what}: pair ${i} second update at ${frames[1]}`);
    for (let k = 2; k < frames.length; k++) {
      assertEquals(frames[k] - frames[k - 1], rate, `${what}: pair ${i}: ${frames}`);
    }
  });
  // Pairs 0, 1 and 4 are at rate 2: never all three on the same frame, never none.
  for (let frame = 1; frame < FRAMES; frame++) {
    const count = [0, 1, 4].filter((i) => updates[i].includes(frame)).length;
    assert(count === 1 || count === 2, `${what}: frame ${frame}: ${count} of 3 rate-2 pairs`);
  }
}

for (const build of BUILDS) {
  for (const awaiting of [false, true]) {
    Deno.test(`update rate (${build}${awaiting ? ", awaited" : ""}): full-rate outputs bit for bit when animated, the last ones kept between`, async () => {
      const scene = await createLodScene(build, RATES.length);
      RATES.forEach((rate, i) => setLevelOfDetail(scene.world, scene.lod[i], { updateRate: rate }));
      const updates = await run(scene, createAnimationPipeline(), awaiting, false);
      checkUpdates(updates, build);
    });
  }
}

for (const workers of [0, 2]) {
  Deno.test(`update rate, task-parallel on ${workers} workers: joints as at full rate when animated, skinned a frame behind`, async () => {
    const pool = workers ? await createWorkerPool({ workers, build: "simd" }) : undefined;
    try {
      const scene = await createLodScene("simd", RATES.length, pool?.core ?? Core.create("simd"));
      RATES.forEach((rate, i) => setLevelOfDetail(scene.world, scene.lod[i], { updateRate: rate }));
      const options: AnimationPipelineOptions = { pool, taskParallel: true };
      checkUpdates(await run(scene, createAnimationPipeline(options), false, true), "task");
    } finally {
      pool?.close();
    }
  });
}

for (const taskParallel of [false, true]) {
  Deno.test(`culling${taskParallel ? ", task-parallel" : ""}: a culled entity publishes nothing new and keeps animating; paused, it stops; visible again, it is skinned`, async () => {
    const scene = await createLodScene("simd", 3);
    const { world, full, lod } = scene;
    const animate = createAnimationPipeline({ taskParallel });
    // Two calls: the task-parallel frame's snapshot holds a pose not yet skinned.
    animate(world, DT);
    animate(world, DT);
    setLevelOfDetail(world, lod[0], { visible: false });
    setLevelOfDetail(world, lod[1], { visible: false, pausedWhenCulled: true });
    setLevelOfDetail(world, lod[2], { visible: false, updateRate: 2 });
    const culledAt = lod.map((eid) => outputsOf(world, eid));
    for (let frame = 1; frame < 8; frame++) {
      animate(world, DT);
      const [a, b, c] = lod.map((eid) => outputsOf(world, eid));
      const at = `frame ${frame}`;
      assert(sameBits(a.skinned, culledAt[0].skinned), `${at}: culled, nothing new`);
      assert(sameBits(a.joints, outputsOf(world, full[0]).joints), `${at}: still animated`);
      assert(sameBits(b.skinned, culledAt[1].skinned), `${at}: paused, nothing new`);
      assert(sameBits(b.joints, culledAt[1].joints), `${at}: paused, not animated`);
      assert(sameBits(c.skinned, culledAt[2].skinned), `${at}: culled at rate 2`);
    }
    // Visible again: skinned from the pose it has (at rate 2, animated this frame or not),
    // in this call, or the next one in the task-parallel frame.
    for (const eid of lod) setLevelOfDetail(world, eid, { visible: true });
    animate(world, DT);
    if (taskParallel) animate(world, DT);
    const [a, b, c] = lod.map((eid) => outputsOf(world, eid));
    assert(sameBits(a.skinned, outputsOf(world, full[0]).skinned), "visible: as at full rate");
    assert(!sameBits(b.skinned, culledAt[1].skinned), "paused: skinned again");
    assert(!sameBits(c.skinned, culledAt[2].skinned), "rate 2: skinned again");
  });
}
