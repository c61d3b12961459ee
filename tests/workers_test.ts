/**
 * The worker pool: the frame on 1, 2 and 3 threads gives bit for bit the
 * output of the same frame on one thread of the same build (the README
 * scene, and Foxes playing and cross-fading clips); an error found or
 * raised in a worker reaches the caller typed, with the message the
 * single-threaded frame gives, and nothing is published; without
 * SharedArrayBuffer the pool falls back to one thread with the same
 * results; memory growth keeps views from before it working on every
 * thread; compact clip sampling split across threads (layers, locomotion,
 * cross-fades) is bit-identical too, a row blended into the pose of the
 * row before it never cut from it; a worker held back leaves every chunk
 * to the calling thread, with the same output.
 */
import { assert, assertEquals, assertGreater, assertRejects, assertThrows } from "@std/assert";
import {
  createAnimation,
  createAnimationPipeline,
  crossFadeTo,
  getPose,
  getSkinnedPositions,
  playClip,
  PoseError,
  sampleClipsSystem,
} from "../mod.ts";
import { addLayer, addLocomotionLayer } from "../layers.ts";
import { Core, createWorkerPool, MatrixBuffer, type WorkerPool } from "../kernels.ts";
import { coreKernels, coreMemory } from "../simd/memory/_instance.ts";
import { BATCH_NAMES, minSplitCost, threadsOf } from "../simd/pool/_parallel_kernels.ts";
import {
  CONVERT_COUNT,
  JOB_BYTES,
  JOB_WORDS,
  QUAT_TO_MAT_MATRICES,
  QUAT_TO_MAT_POSE,
} from "../simd/abi.ts";
import { foxCrowd, skinnedOutput, waveScene, type WorkerScene } from "./_workers.ts";
import { assertSameBits, bits } from "./_bits.ts";
import { bestBuild } from "../simd/wasm/_core.ts";
import { createScene, wander } from "./_scene.ts";

const BUILD = bestBuild();
/** Enough characters that every batch kernel of the frame is split across the threads. */
const SHAPE = { joints: 16, segments: 8, rings: 12, influences: 4 } as const;
const CHARACTERS = 300;
const DT = 1 / 60;

/** {@linkcode assertSameBits} frame by frame. */
function assertSameFrames(actual: Uint32Array[][], expected: Uint32Array[][], what = ""): void {
  assertEquals(actual.length, expected.length, `${what}: frames`);
  actual.forEach((frame, f) => assertSameBits(frame, expected[f], `${what}: frame ${f}`));
}

/**
 * Runs `fn` on a pool of `workers` threads; with `splitAll`, every batch
 * call is split however small (else the calls big enough to pay for it).
 */
async function withPool(
  workers: number,
  fn: (pool: WorkerPool) => Promise<void> | void,
  splitAll = true,
) {
  const pool = await createWorkerPool({ workers, build: BUILD });
  const thresholds = { ...minSplitCost };
  if (splitAll) { for (const name of BATCH_NAMES) minSplitCost[name] = 0; }
  try {
    await fn(pool);
  } finally {
    Object.assign(minSplitCost, thresholds);
    pool.close();
  }
}

/** Three frames of `make`'s scene on `core` (the pool's when given): their outputs. */
async function frames(
  core: Core,
  make: (core: Core) => WorkerScene | Promise<WorkerScene>,
  pool?: WorkerPool,
): Promise<Uint32Array[][]> {
  const scene = await make(core);
  const animate = createAnimationPipeline({ pool });
  const out = [];
  for (let f = 0; f < 3; f++) {
    animate(scene.world, DT);
    out.push(bits(skinnedOutput(scene)));
  }
  return out;
}

const SCENES = {
  "wave scene": (core: Core) => waveScene(core, CHARACTERS, SHAPE),
  "Fox crowd": (core: Core) => foxCrowd(core, 60),
};

for (const [name, make] of Object.entries(SCENES)) {
  Deno.test(`workers: ${name}: bit-identical at 1, 2 and 3 workers and on the plain core`, async () => {
    const plain = await frames(Core.create(BUILD), make);
    for (const workers of [1, 2, 3]) {
      for (const splitAll of [false, true]) {
        await withPool(workers, async (pool) => {
          assertEquals(pool.mode, workers === 1 ? "single-thread" : "workers");
          assertEquals(pool.workers, workers);
          const what = `${workers} workers${splitAll ? ", every batch split" : ""}`;
          assertSameFrames(await frames(pool.core, make, pool), plain, what);
        }, splitAll);
      }
    }
  });
}

Deno.test("workers: a PoseError found by a worker's palette scan is the single-threaded error, and nothing is skinned", async () => {
  const poison = (scene: WorkerScene) => {
    createAnimation(scene.world, { faults: "throw" });
    const animate = createAnimationPipeline();
    animate(scene.world, 0);
    // An entity in the last thread's share: a translation whose palette overflows ±1e18.
    getPose(scene.world, scene.entities[CHARACTERS - 2])[0] = 1e30;
    return animate;
  };
  const plain = waveScene(Core.create(BUILD), CHARACTERS, SHAPE);
  const expected = assertThrows(() => poison(plain)(plain.world, 0), PoseError);
  await withPool(2, (pool) => {
    const scene = waveScene(pool.core, CHARACTERS, SHAPE);
    const animate = createAnimationPipeline({ pool });
    animate(scene.world, 0);
    const before = bits(skinnedOutput(scene));
    poison(scene);
    const error = assertThrows(() => animate(scene.world, 0), PoseError);
    assertEquals(error.message, expected.message);
    assertSameBits(bits(skinnedOutput(scene)), before, "after the error");
  });
});

Deno.test("workers: a trap in a worker is the RuntimeError of the same trap on the calling thread", async () => {
  await withPool(2, (pool) => {
    const memory = coreMemory(pool.core), kernels = coreKernels(pool.core);
    const joints = 8192;
    const pose = memory.alloc(joints * 40), matrices = memory.alloc(joints * 48);
    const jobs = memory.alloc(2 * JOB_BYTES);
    const row = (i: number, posePtr: number) => {
      const u32 = memory.views().u32, at = (jobs >> 2) + i * JOB_WORDS;
      u32[at + QUAT_TO_MAT_POSE] = posePtr;
      u32[at + QUAT_TO_MAT_MATRICES] = matrices;
      u32[at + CONVERT_COUNT] = joints;
    };
    row(0, pose);
    row(1, 0xffff_0000); // beyond the memory: the worker's row traps
    const parallel = assertThrows(() => kernels.quatToMatBatch(jobs, 2), WebAssembly.RuntimeError);
    pool.close();
    const serial = assertThrows(() => kernels.quatToMatBatch(jobs, 2), WebAssembly.RuntimeError);
    assertEquals(parallel.message, serial.message);
  });
});

Deno.test("workers: without SharedArrayBuffer the pool runs on one thread, with the same results", async () => {
  const plain = await frames(Core.create(BUILD), SCENES["wave scene"]);
  const saved = globalThis.SharedArrayBuffer;
  // deno-lint-ignore no-explicit-any
  delete (globalThis as any).SharedArrayBuffer;
  let pool: WorkerPool;
  try {
    pool = await createWorkerPool({ workers: 2, build: BUILD });
  } finally {
    globalThis.SharedArrayBuffer = saved;
  }
  assertEquals(pool.mode, "single-thread");
  assertEquals(pool.workers, 1);
  assertEquals(pool.fallbackReason, "SharedArrayBuffer is not available");
  const animate = createAnimationPipeline({ pool });
  assertEquals(animate.mode, "single-thread");
  assertSameFrames(await frames(pool.core, SCENES["wave scene"], pool), plain);
});

Deno.test("workers: views from before a growth read and write the grown memory, on every thread", async () => {
  await withPool(2, async (pool) => {
    assert(pool.core.viewsSurviveGrowth);
    const first = waveScene(pool.core, CHARACTERS / 2, SHAPE);
    const animate = createAnimationPipeline({ pool });
    animate(first.world, 0);
    const views = first.entities.map((eid) => getSkinnedPositions(first.world, eid));
    const whole = coreMemory(pool.core).f32;
    const size = pool.core.byteLength;
    new MatrixBuffer(Math.ceil(size / 48), pool.core); // grows the memory
    const second = waveScene(pool.core, CHARACTERS / 2, SHAPE);
    assertGreater(pool.core.byteLength, size);
    // The second world lies beyond the old end: its rows go to both threads.
    const lastSkin = getSkinnedPositions(second.world, second.entities.at(-1)!);
    assertGreater(lastSkin.byteOffset, size);
    getPose(first.world, first.entities.at(-1)!)[5] = 0.5; // changes the last entity's pose
    animate(first.world, 0);
    animate(second.world, 0);
    first.entities.forEach((eid, i) =>
      assertEquals(views[i], getSkinnedPositions(first.world, eid), `entity ${eid}`)
    );
    // The whole-memory view from before the growth tracks its length and sees the workers' writes.
    assertEquals(whole.length * 4, pool.core.byteLength);
    const at = lastSkin.byteOffset >> 2;
    assertEquals(whole.subarray(at, at + lastSkin.length), lastSkin);
    const plain = await frames(
      Core.create(BUILD),
      (core) => waveScene(core, CHARACTERS / 2, SHAPE),
    );
    assertSameBits(bits(skinnedOutput(second)), plain[0], "the second world");
  });
});

Deno.test("workers: options are checked, a world on another core is refused, a closed pool runs on one thread", async () => {
  for (const workers of [0, 1.5, 17, NaN]) {
    await assertRejects(() => createWorkerPool({ workers }), RangeError, "options.workers");
  }
  await assertRejects(() => createWorkerPool({ maxBytes: 1 }), RangeError, "options.maxBytes");
  await withPool(2, (pool) => {
    const scene = waveScene(Core.create(BUILD), 2, SHAPE);
    assertThrows(
      () => createAnimationPipeline({ pool })(scene.world, 0),
      TypeError,
      "worker pool's",
    );
    const own = waveScene(pool.core, CHARACTERS, SHAPE);
    const animate = createAnimationPipeline({ pool });
    assertEquals(animate.mode, "workers");
    pool.close();
    assertEquals(animate.mode, "single-thread");
    animate(own.world, DT);
  });
});

/**
 * Characters whose every playback samples a compact clip: cross-fades,
 * override and additive layers, locomotion pairs and a one-clip locomotion
 * layer (its playback sampled twice, into a pair of rows).
 */
function layeredCrowd(core: Core, count: number): WorkerScene {
  const scene = createScene(core.build, count, SHAPE, {}, core);
  const clips = [0, 1, 2, 3].map((i) => wander(`wander ${i}`, i + 1, 1 + 3 * i));
  scene.entities.forEach((eid, i) => {
    const world = scene.world;
    playClip(world, eid, clips[i % 4], { time: i * 0.07 });
    if (i % 3 === 0) crossFadeTo(world, eid, clips[(i + 1) % 4], 0.5);
    if (i % 2 === 0) addLayer(world, eid, clips[(i + 2) % 4], { weight: 0.6, time: i * 0.05 });
    if (i % 5 === 0) addLayer(world, eid, clips[(i + 3) % 4], { mode: "additive" });
    if (i % 4 === 1) addLocomotionLayer(world, eid, [{ clip: clips[i % 4], at: 0 }]);
    if (i % 4 === 3) {
      const points = [{ clip: clips[0], at: 0 }, { clip: clips[3], at: 2 }];
      addLocomotionLayer(world, eid, points, { parameter: (i % 7) / 3, weight: 0.8 });
    }
  });
  return scene;
}

/** Four frames of sampling `layeredCrowd` on `core`: every entity's pose bits. */
function sampledFrames(core: Core): Uint32Array[][] {
  const scene = layeredCrowd(core, 120);
  const out = [];
  for (let f = 0; f < 4; f++) {
    sampleClipsSystem(scene.world, f === 2 ? 0.6 : DT);
    out.push(bits(scene.entities.map((eid) => getPose(scene.world, eid).slice())));
  }
  return out;
}

Deno.test("workers: compact clip sampling with layers and cross-fades is bit-identical at 2 workers", async () => {
  const plain = sampledFrames(Core.create(BUILD));
  for (const splitAll of [false, true]) {
    await withPool(2, (pool) => {
      assertSameFrames(sampledFrames(pool.core), plain, `2 workers, split ${splitAll}`);
    }, splitAll);
  }
});

Deno.test("workers: a worker held back leaves its chunks to the calling thread, bit-identical", async () => {
  const plain = await frames(Core.create(BUILD), SCENES["wave scene"]);
  await withPool(2, async (pool) => {
    const threads = threadsOf(coreKernels(pool.core))!.pool;
    threads.holdWorkers(true);
    try {
      assertSameFrames(await frames(pool.core, SCENES["wave scene"], pool), plain, "held");
      // The last call (skinning, one row per character): every chunk ran here.
      assertEquals(threads.localChunks, threads.maxChunks);
    } finally {
      threads.holdWorkers(false);
    }
    assertSameFrames(await frames(pool.core, SCENES["wave scene"], pool), plain, "let go");
  });
});
