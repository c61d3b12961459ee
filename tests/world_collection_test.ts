/**
 * The garbage-collection safety net of worlds: a world dropped without
 * `disposeAnimation` is collected and its core memory comes back, also
 * after it ran every system of the pipeline (blocking, awaited, on a
 * worker pool, task-parallel). A skinning system's job-row writer, reached
 * from the world's resources (the FinalizationRegistry's held value), held
 * the world's state, so a world that had skinned was never collected.
 *
 * The tests run without `--expose-gc` (the runner grants no `--allow-run`
 * for a child process): they drop worlds, then allocate garbage until the
 * FinalizationRegistry probes report them collected, within a bound.
 */

import "../scalar.ts";
import { assert, assertEquals } from "@std/assert";
import { addEntity, createWorld } from "bitecs";
import {
  addCharacter,
  type AnimationPipeline,
  createAnimation,
  createAnimationPipeline,
  playClip,
  SkeletonAsset,
  SkinAsset,
} from "../mod.ts";
import { Core, createWorkerPool } from "../kernels.ts";
import { createCylinder } from "../procedural/cylinder.ts";
import { wander } from "./_scene.ts";

const WORLDS = 12;

/** Drops `WORLDS` worlds that each ran `animate` once; returns how many were collected. */
async function dropWorlds(
  core: Core,
  animate: AnimationPipeline,
  awaited: boolean,
): Promise<{ held: number; first: number }> {
  const cylinder = createCylinder({ joints: 6, segments: 5, rings: 9 });
  const skeleton = new SkeletonAsset(cylinder.skeleton, core);
  const skin = new SkinAsset(skeleton, cylinder.skin);
  const clip = wander("walk", 3);
  let collected = 0;
  const probe = new FinalizationRegistry(() => collected++);
  const before = core.allocatedBytes;
  // In a function of its own: no world stays in this frame's registers.
  const drop = async () => {
    const world = createWorld();
    createAnimation(world, { core });
    for (let i = 0; i < 2; i++) {
      const eid = addEntity(world);
      addCharacter(world, eid, skeleton, skin);
      playClip(world, eid, clip);
    }
    if (awaited) await animate.async(world, 1 / 60);
    else animate(world, 1 / 60);
    probe.register(world, undefined);
  };
  await drop();
  // The first world's blocks and the clip's: what one world left behind may hold.
  const first = core.allocatedBytes - before;
  for (let i = 1; i < WORLDS; i++) await drop();
  assert(core.allocatedBytes > before, "the worlds held core memory");
  // Garbage that lives a few rounds, so that it reaches the old generation and
  // full collections run (the worlds are old by now too).
  const ballast: Uint8Array[] = [];
  for (let round = 0; round < 400 && collected < WORLDS - 1; round++) {
    const block = new Uint8Array(4 * 2 ** 20);
    block[round] = 1;
    ballast.push(block);
    if (ballast.length > 16) ballast.splice(0, 8);
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  ballast.length = 0;
  // One world may still sit in a register or on the stack.
  assert(collected >= WORLDS - 1, `${collected} of ${WORLDS} dropped worlds collected`);
  // Released by the registry's callbacks, which may run a task after the probes'.
  for (let i = 0; i < 20 && core.allocatedBytes - before > core.allocatedBytes / WORLDS; i++) {
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  const held = core.allocatedBytes - before;
  skin.dispose();
  skeleton.dispose();
  return { held, first };
}

for (const awaited of [false, true]) {
  Deno.test(`dropped worlds that ran animate${awaited ? ".async" : ""} are collected`, async () => {
    const core = Core.create("scalar");
    const animate = createAnimationPipeline();
    const { held, first } = await dropWorlds(core, animate, awaited);
    // Of WORLDS worlds of 2 skinned characters, at most one world's blocks remain.
    assert(held <= first, `${held} bytes of core memory still held (one world: ${first})`);
  });
}

Deno.test("dropped worlds on a worker pool, task-parallel or not, are collected", async () => {
  using pool = await createWorkerPool({ workers: 2 });
  for (const taskParallel of [false, true]) {
    const animate = createAnimationPipeline({ pool, taskParallel });
    const { held } = await dropWorlds(pool.core, animate, true);
    assertEquals(held < 2 ** 16, true, `${held} bytes of core memory still held`);
  }
});
