/**
 * The task-parallel pipeline (`taskParallel: true`) as the world changes:
 * entities added, removed, re-skinned or given another skeleton between
 * calls are skinned from their own current palette, never from another's
 * copy; an error surfaces typed with the single-threaded message and
 * publishes nothing of its frame; without SharedArrayBuffer the same frames
 * run on one thread; the snapshot's memory is bounded and given back; the
 * game may change the world while `animate.async` awaits.
 */
import { assert, assertEquals, assertRejects, assertThrows } from "@std/assert";
import { addEntity, removeEntity, resetWorld } from "bitecs";
import {
  addCharacter,
  addSkin,
  createAnimation,
  createAnimationPipeline,
  disposeAnimation,
  getPose,
  PoseError,
  removeSkeleton,
  removeSkin,
  SkeletonAsset,
  SkinAsset,
} from "../mod.ts";
import { Core, createWorkerPool, type WorkerPool } from "../kernels.ts";
import { skinnedOutput, type WorkerScene } from "./_workers.ts";
import { assertSameBits, bits } from "./_bits.ts";
import { createScene, random } from "./_scene.ts";
import { createCylinder } from "../procedural/cylinder.ts";

import { assertOneFrameBehind, BUILD, DT, run, SCENES, SHAPE } from "./_task_parallel.ts";

/**
 * A random program of frames and changes between them (remove an entity,
 * add one, re-skin one with another asset, swap a skeleton): after each
 * call, every entity the call found unchanged since the last shows its
 * previous-call output, every changed or new one its output of this call,
 * both as the single-threaded pipeline computes them on the same program.
 */
Deno.test("task-parallel: entities added, removed, re-skinned between calls are never skinned from a copy not theirs", async () => {
  for (const workers of [1, 2]) {
    for (let seed = 1; seed <= 4; seed++) {
      const pool = await createWorkerPool({ workers, build: BUILD });
      try {
        const worlds = [
          createScene(BUILD, 6, SHAPE, { normals: true }),
          createScene(BUILD, 6, SHAPE, { normals: true }, pool.core),
        ];
        // Other assets: a second skin on the same skeleton, and a second skeleton and its skin.
        const others = worlds.map((w) => {
          const cylinder = createCylinder(SHAPE);
          const skeleton = new SkeletonAsset(cylinder.skeleton, w.core);
          return {
            skin: new SkinAsset(w.skeleton, cylinder.skin),
            skeleton,
            skeletonSkin: new SkinAsset(skeleton, cylinder.skin),
          };
        });
        const animators = [
          createAnimationPipeline(),
          createAnimationPipeline({ pool, taskParallel: true }),
        ];
        const next = random(seed);
        const alive = [...worlds[0].entities];
        const reskeletoned = new Set<number>();
        let previous = new Map<number, Uint32Array[]>();
        for (let call = 0; call < 10; call++) {
          const changed = new Set<number>();
          const action = Math.floor(next() * 6);
          const pick = alive[Math.floor(next() * alive.length)];
          if (action === 0 && alive.length > 2) {
            for (const w of worlds) removeEntity(w.world, pick);
            alive.splice(alive.indexOf(pick), 1);
            reskeletoned.delete(pick);
          } else if (action === 1) {
            const eids = worlds.map((w) => {
              const eid = addEntity(w.world);
              addCharacter(w.world, eid, w.skeleton, w.skin, { normals: true });
              return eid;
            });
            assertEquals(eids[0], eids[1]);
            alive.push(eids[0]);
            changed.add(eids[0]);
          } else if (action === 2) {
            worlds.forEach((w, i) => {
              removeSkin(w.world, pick);
              const skin = reskeletoned.has(pick) ? others[i].skeletonSkin : w.skin;
              addSkin(w.world, pick, skin, { normals: false });
            });
            changed.add(pick);
          } else if (action === 3 && !reskeletoned.has(pick)) {
            // Another skin asset on the entity's (the scene's) skeleton.
            worlds.forEach((w, i) => {
              removeSkin(w.world, pick);
              addSkin(w.world, pick, others[i].skin, { normals: true });
            });
            changed.add(pick);
          } else if (action === 4) {
            reskeletoned.add(pick);
            worlds.forEach((w, i) => {
              removeSkeleton(w.world, pick);
              addCharacter(w.world, pick, others[i].skeleton, others[i].skeletonSkin, {
                normals: true,
              });
            });
            changed.add(pick);
          }
          for (const [i, w] of worlds.entries()) {
            for (const eid of alive) getPose(w.world, eid)[4] = Math.sin(call + eid);
            animators[i](w.world, DT);
          }
          const current = new Map<number, Uint32Array[]>();
          for (const eid of alive) {
            const [single, task] = worlds.map((w) =>
              bits(skinnedOutput({ world: w.world, entities: [eid] }))
            );
            current.set(eid, single);
            const fresh = call === 0 || changed.has(eid) || !previous.has(eid);
            assertSameBits(
              task,
              fresh ? single : previous.get(eid)!,
              `workers ${workers}, seed ${seed}, call ${call}, entity ${eid}`,
            );
          }
          previous = current;
        }
      } finally {
        pool.close();
      }
    }
  }
});

Deno.test("task-parallel: a PoseError in the joint work is the single-threaded error, after the join, and publishes nothing of its frame", async () => {
  const poison = (scene: WorkerScene) => {
    getPose(scene.world, scene.entities[scene.entities.length - 2])[0] = 1e30;
  };
  const { make, move } = SCENES["wave scene"];
  const plainScene = await make(Core.create(BUILD));
  createAnimation(plainScene.world, { faults: "throw" });
  const plainAnimate = createAnimationPipeline();
  move!(plainScene, 0);
  plainAnimate(plainScene.world, DT);
  move!(plainScene, 1);
  plainAnimate(plainScene.world, DT);
  const plainFrame1 = bits(skinnedOutput(plainScene));
  poison(plainScene);
  const expected = assertThrows(() => plainAnimate(plainScene.world, DT), PoseError);
  for (const workers of [1, 2]) {
    const pool = await createWorkerPool({ workers, build: BUILD });
    try {
      const scene = await make(pool.core);
      createAnimation(scene.world, { faults: "throw" });
      const animate = createAnimationPipeline({ pool, taskParallel: true });
      move!(scene, 0);
      animate(scene.world, DT);
      move!(scene, 1);
      animate(scene.world, DT);
      poison(scene);
      const error = assertThrows(() => animate(scene.world, DT), PoseError);
      assertEquals(error.message, expected.message);
      // The outputs and bounds hold frame 1 (the last frame whose joint work succeeded, skinned
      // during the failing call), nothing of frame 2.
      assertSameBits(
        bits(skinnedOutput(scene)),
        plainFrame1,
        `${workers} workers: after the error`,
      );
      await assertRejects(() => animate.async(scene.world, DT), PoseError, expected.message);
      // Unpoisoned, the next call starts over like a first: it skins its own frame.
      getPose(scene.world, scene.entities[scene.entities.length - 2])[0] = 0;
      getPose(plainScene.world, plainScene.entities[plainScene.entities.length - 2])[0] = 0;
      animate(scene.world, DT);
      plainAnimate(plainScene.world, DT);
      assertSameBits(bits(skinnedOutput(scene)), bits(skinnedOutput(plainScene)), "after the fix");
    } finally {
      pool.close();
    }
  }
});

Deno.test("task-parallel: without SharedArrayBuffer the same frames, one call behind, on one thread", async () => {
  const { make, move } = SCENES["wave scene"];
  const plain = await run(make, move, Core.create(BUILD));
  const saved = globalThis.SharedArrayBuffer;
  // deno-lint-ignore no-explicit-any
  delete (globalThis as any).SharedArrayBuffer;
  let pool: WorkerPool;
  try {
    pool = await createWorkerPool({ workers: 2, build: BUILD });
  } finally {
    globalThis.SharedArrayBuffer = saved;
  }
  assertEquals(createAnimationPipeline({ pool, taskParallel: true }).mode, "single-thread");
  assertOneFrameBehind(
    await run(make, move, pool.core, { pool, taskParallel: true }),
    plain,
    "fallback",
  );
  const awaited = await run(make, move, pool.core, { pool, taskParallel: true, awaiting: true });
  assertOneFrameBehind(awaited, plain, "fallback, awaiting");
});

Deno.test("task-parallel: the snapshot's memory is bounded and given back with the world (dispose, reset)", async () => {
  const pool = await createWorkerPool({ workers: 2, build: BUILD });
  try {
    const core = pool.core;
    const animate = createAnimationPipeline({ pool, taskParallel: true });
    const scene = createScene(BUILD, 8, SHAPE, {}, core);
    const start = core.allocatedBytes;
    // Churn: an entity removed and one added every call; the live set stays 8 entities.
    let warm = 0;
    for (let call = 0; call < 200; call++) {
      removeEntity(scene.world, scene.entities.shift()!);
      const eid = addEntity(scene.world);
      addCharacter(scene.world, eid, scene.skeleton, scene.skin);
      scene.entities.push(eid);
      animate(scene.world, DT);
      if (call === 10) warm = core.allocatedBytes;
    }
    assertEquals(core.allocatedBytes, warm, "allocation grew under churn");
    assert(warm > start, "the snapshot takes memory");
    for (const reset of [false, true]) {
      const before = core.allocatedBytes;
      for (let w = 0; w < 20; w++) {
        const other = createScene(BUILD, 4, SHAPE, {}, core);
        animate(other.world, DT);
        animate(other.world, DT);
        if (reset) resetWorld(other.world);
        else disposeAnimation(other.world);
        if (reset) disposeAnimation(other.world);
        other.skin[Symbol.dispose]();
        other.skeleton[Symbol.dispose]();
      }
      assertEquals(core.allocatedBytes, before, reset ? "after resets" : "after disposals");
    }
  } finally {
    pool.close();
  }
});

Deno.test("task-parallel: while animate.async awaits, the game may change the world; frames wait their turn; a closed pool rejects", async () => {
  const pool = await createWorkerPool({ workers: 2, build: BUILD });
  try {
    for (const taskParallel of [true, false]) {
      const scene = createScene(BUILD, 30, SHAPE, { normals: true }, pool.core);
      const animate = createAnimationPipeline({ pool, taskParallel });
      await animate.async(scene.world, DT);
      await animate.async(scene.world, DT);
      const allocated = pool.core.allocatedBytes;
      const pending = animate.async(scene.world, DT);
      // The frame is out: another frame on the pool is refused, and writes nothing.
      const other = createAnimationPipeline({ pool, taskParallel: true });
      assertThrows(() => other(scene.world, DT), Error, "a frame is still running");
      const refused = animate.async(scene.world, DT); // awaited below: an await here lets the frame settle
      // The game removes entities: their blocks stay allocated until the frame settles.
      const removed = scene.entities.splice(0, 10);
      for (const eid of removed) removeEntity(scene.world, eid);
      assertEquals(pool.core.allocatedBytes, allocated, "freed while the workers may write");
      await assertRejects(() => refused, Error, "a frame is still running");
      await pending;
      assert(pool.core.allocatedBytes < allocated, "the blocks are freed once the frame settles");
      // Later frames run on the entities left, one call behind, as the plain pipeline computes.
      const plain = createScene(BUILD, 30, SHAPE, { normals: true });
      const plainAnimate = createAnimationPipeline();
      for (const eid of removed) removeEntity(plain.world, eid);
      plainAnimate(plain.world, DT); // the poses the copies were taken from
      for (let k = 0; k < 3; k++) {
        for (const s of [scene, plain]) {
          for (const eid of scene.entities) getPose(s.world, eid)[4] = Math.sin(k + eid);
        }
        const before = bits(skinnedOutput({ world: plain.world, entities: scene.entities }));
        plainAnimate(plain.world, DT);
        await animate.async(scene.world, DT);
        const expected = taskParallel
          ? before
          : bits(skinnedOutput({ world: plain.world, entities: scene.entities }));
        assertSameBits(
          bits(skinnedOutput({ world: scene.world, entities: scene.entities })),
          expected,
          `taskParallel ${taskParallel}: call ${k}`,
        );
      }
    }
    // Closed while a frame awaits its workers: the promise rejects, nothing hangs.
    const scene = createScene(BUILD, 30, SHAPE, {}, pool.core);
    const animate = createAnimationPipeline({ pool, taskParallel: true });
    await animate.async(scene.world, DT);
    const pending = animate.async(scene.world, DT);
    pool.close();
    await pending.then(
      () => {}, // the workers may have finished before the close
      (error) =>
        assertEquals(
          error.message,
          "worker pool: closed while a frame was waiting for its workers",
        ),
    );
    animate(scene.world, DT); // the core works on, on this thread
  } finally {
    pool.close();
  }
});
