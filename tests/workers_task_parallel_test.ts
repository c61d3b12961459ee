/**
 * The task-parallel pipeline (`taskParallel: true`), frame by frame: after
 * every call k its skinned outputs are bit for bit the single-threaded
 * pipeline's after call k − 1 (after call 0, call 0's) and its poses and
 * palettes those of call k, at 1, 2 and 3 workers, on the README-like scene
 * and on real characters playing and cross-fading clips; the awaitable form
 * gives the same frames. The world changing between calls, errors and
 * memory: `workers_task_parallel_world_test.ts`.
 */
import { assertEquals } from "@std/assert";
import { createAnimationPipeline } from "../mod.ts";
import { Core, createWorkerPool } from "../kernels.ts";
import { skinnedOutput } from "./_workers.ts";
import { assertSameBits, bits } from "./_bits.ts";

import { assertOneFrameBehind, BUILD, DT, FRAMES, joints, run, SCENES } from "./_task_parallel.ts";

for (const [name, { make, move }] of Object.entries(SCENES)) {
  Deno.test(`task-parallel: ${name}: skinned outputs one call behind, joints current, at 1, 2 and 3 workers`, async () => {
    const plain = await run(make, move, Core.create(BUILD));
    for (const workers of [1, 2, 3]) {
      const pool = await createWorkerPool({ workers, build: BUILD });
      try {
        const animate = createAnimationPipeline({ pool, taskParallel: true });
        assertEquals(animate.mode, workers === 1 ? "single-thread" : "task-parallel");
        const task = await run(make, move, pool.core, { pool, taskParallel: true });
        assertOneFrameBehind(task, plain, `${workers} workers`);
      } finally {
        pool.close();
      }
    }
  });
}

Deno.test("task-parallel: the awaitable form gives the same frames, task-parallel or not", async () => {
  for (const name of ["wave scene", "mixed levels of detail and dual quaternions"]) {
    await awaitedFrames(SCENES[name]);
  }
});

async function awaitedFrames({ make, move }: typeof SCENES[string]): Promise<void> {
  const plain = await run(make, move, Core.create(BUILD));
  const pool = await createWorkerPool({ workers: 2, build: BUILD });
  try {
    const task = await run(make, move, pool.core, { pool, taskParallel: true, awaiting: true });
    assertOneFrameBehind(task, plain, "awaiting, task-parallel");
    const awaited = await run(make, move, pool.core, { pool, awaiting: true });
    for (let k = 0; k < FRAMES; k++) {
      assertSameBits(awaited.outputs[k], plain.outputs[k], `awaiting: call ${k}`);
      assertSameBits(awaited.joints[k], plain.joints[k], `awaiting: call ${k}: joints`);
    }
  } finally {
    pool.close();
  }
}

Deno.test("task-parallel: the game reads frame N after the call that animates N + 1, views held across calls", async () => {
  const { make, move } = SCENES["wave scene"];
  const plain = await run(make, move, Core.create(BUILD));
  const pool = await createWorkerPool({ workers: 2, build: BUILD });
  try {
    const scene = await make(pool.core);
    const animate = createAnimationPipeline({ pool, taskParallel: true });
    move!(scene, 0);
    animate(scene.world, DT);
    const views = skinnedOutput(scene); // copies; the live views are read below
    assertSameBits(bits(views), plain.outputs[0], "call 0");
    for (let n = 0; n + 1 < FRAMES; n++) {
      move!(scene, n + 1);
      animate(scene.world, DT); // animates frame n + 1, skins frame n
      assertSameBits(joints(scene), plain.joints[n + 1], `frame ${n + 1}: joints`);
      assertSameBits(bits(skinnedOutput(scene)), plain.outputs[n], `frame ${n}: skinned`);
    }
  } finally {
    pool.close();
  }
});
