/**
 * The zero-allocation test, shared by its files (one per thread mode, so
 * that `tests/_run.ts` runs them side by side): the steady frame allocates
 * nothing. The README scene and a scene of real characters (Fox,
 * CesiumMan, RobotExpressive; Xbot and Soldier when `../shared` has them)
 * cross-fading every two seconds, a masked layer on some, one of each model
 * skinned with dual quaternions, markers on every clip crossed and read
 * every frame, and every view function called every frame (their out forms
 * into the game's objects), run `FRAMES` frames in a child process
 * (`_zero_allocation_scene.ts`) on the WebAssembly builds, single-threaded,
 * on 2 worker threads and task-parallel on them (`taskParallel: true`), the
 * README scene animated over its listed entities, and on the scalar build
 * (single-threaded: a pool of the scalar build is single-threaded, it does
 * not run on shared memory; with the repository's models only, whose
 * meshes take its JavaScript kernels through the same code as the
 * test-only ones in a sixth of the time), with V8's `--trace-gc` and a 1 MB young
 * generation, so that a few hundred bytes a frame of garbage would force a
 * collection. Between the two collections the child requests (traced as
 * "testing") there is no other, and the heap grows by no more than noise
 * (V8 may also leave small garbage in a young generation it grew, so both
 * are checked).
 * Batch calls split across threads (the child's `split` mode, every call
 * split as a crowd over the split thresholds would be) run on the simd
 * build for `SPLIT_FRAMES` frames: a worker that boxed its float arguments
 * while its loop ran unoptimized collected about once in 9,000 frames.
 * With levels of detail (the child's `lod`), the game sets every
 * character's level of detail by distance bands each frame, single-threaded
 * and task-parallel.
 *
 * Every mode runs at the thorough level (CI); the fast level
 * (`deno task test`, `RUN_LEVEL`) runs the three simd modes that between
 * them take every path of the frame ({@linkcode MODES} says which and why).
 *
 * @module
 */
import "../scalar.ts";
import { assert, assertEquals } from "@std/assert";
import { FRAMES } from "./_zero_allocation_scene.ts";
import { RUN_LEVEL } from "./_run_level.ts";
import { runChild } from "./_child.ts";

/**
 * Heap growth over the measured frames still taken for noise: under 44 bytes a frame (measured
 * 20–30, from code V8 has not optimized that runs when a cross-fade starts or ends); a planted
 * array literal per entity per frame is over 300.
 */
const NOISE_BYTES_PER_FRAME = 44;
const CHILD = new URL("./_zero_allocation_scene.ts", import.meta.url);

/** The child's core build, threads and whether it sets levels of detail. */
export interface Mode {
  readonly build: "relaxed-simd" | "simd" | "scalar";
  readonly threads: "single-thread" | "workers" | "task-parallel" | "split";
  readonly lod?: boolean;
  /**
   * Run at the fast level too. The three simd modes so marked take, between them, every path of
   * the frame: the blocking frame without a pool (the default a game gets, with root motion and
   * the robot's morphed face), the blocking frame on a pool with every batch call split to the
   * workers (their loops and arguments; the `workers` mode's calls, under the split thresholds,
   * run the first mode's code on the calling thread), and the task-parallel frame with levels of
   * detail (the snapshot and join, update rates and culling). The relaxed-simd build runs the
   * same JavaScript as simd; scalar runs the reference kernels in JavaScript.
   */
  readonly fast?: boolean;
}

/** Every mode, as each file's `filter` picks them: CI runs them all. */
export const MODES: readonly Mode[] = [
  { build: "simd", threads: "single-thread", fast: true },
  { build: "relaxed-simd", threads: "single-thread" },
  { build: "scalar", threads: "single-thread" },
  { build: "simd", threads: "workers" },
  { build: "relaxed-simd", threads: "workers" },
  { build: "simd", threads: "task-parallel" },
  { build: "relaxed-simd", threads: "task-parallel" },
  { build: "simd", threads: "split", fast: true },
  { build: "simd", threads: "single-thread", lod: true },
  { build: "simd", threads: "task-parallel", lod: true, fast: true },
];

/**
 * Warm-up frames (see `_zero_allocation_scene.ts`): V8 must have optimized the frame's code with
 * Turbofan, its top tier, before the measured frames; code still in a lower tier boxes its
 * doubles. With V8 tiering up sooner (`--invocation-count-for-turbofan=1000`) 6,000 frames
 * mostly sufficed, but one run in three grew 42–48 bytes a frame, after 12,000 too (27 without
 * the flag, every time): docs/performance_notes.md, "Tests in three minutes".
 */
const WARMUP = 12_000;
/**
 * Its code is still settling after the child's shortest warm-up (every clip
 * played twice, 3,600 frames): on the free models alone the heap grew by
 * 220 KB in the 1,500 frames after it and by 48 KB in the next 1,500.
 */
const SCALAR_WARMUP = 6_000;
/**
 * Levels of detail: with the free models alone, task-parallel frames grew
 * the heap 45–46 bytes a frame after 12,000 frames of warm-up and 25 after
 * 24,000 (code still settling: a frame at rates 2 and 4 is short).
 */
const LOD_WARMUP = 24_000;
/** Split calls: a worker's garbage of about 100 bytes a frame shows in so many frames. */
const SPLIT_FRAMES = FRAMES * 5;

/** Runs the child on `build` and `threads`: its trace lines and its result line. */
async function run(build: string, threads: string, frames: number, warmup: number, lod = false) {
  const out = await runChild(
    CHILD,
    "--expose-gc,--trace-gc,--min-semi-space-size=1,--max-semi-space-size=1",
    [build, threads, String(frames), String(warmup), lod ? "lod" : ""],
  );
  // V8 buffers its trace, the result line is written at once: it may land inside a trace line.
  const result = JSON.parse(out.match(/\{"before".*?\}/)![0]) as {
    before: number;
    after: number;
    characters: number;
    dual: number;
    hits: number;
    mode: string;
  };
  const gcs = out.replace(/\{"before".*?\}\n?/, "").split("\n").filter((line) =>
    / ms: (Scavenge|Mark-Compact|Minor Mark-Sweep|Mark-Sweep)/.test(line)
  );
  return { result, gcs };
}

/**
 * A test of each mode `filter` keeps that runs at this run level, for the
 * calling file to register (`Deno.test`): Deno files a test's time under
 * the module that registered it, and the runner plans by those times.
 */
export function modeTests(filter: (mode: Mode) => boolean): Deno.TestDefinition[] {
  const modes = MODES.filter((m) => filter(m) && (RUN_LEVEL !== "fast" || m.fast));
  return modes.map(({ build, threads, lod }) => {
    const frames = threads === "split" ? SPLIT_FRAMES : FRAMES;
    const warmup = build === "scalar" ? SCALAR_WARMUP : lod ? LOD_WARMUP : WARMUP;
    return {
      name: `${frames} frames of cross-fading characters allocate nothing: ${build}, ${threads}${
        lod ? ", levels of detail by distance" : ""
      }`,
      fn: async () => {
        const { result, gcs } = await run(build, threads, frames, warmup, lod);
        assert(result.characters >= 6, `characters: ${result.characters}`);
        assert(result.dual >= 3, `dual-quaternion characters skinned: ${result.dual}`);
        assert(result.hits > 0, "markers crossed in the measured frames");
        assertEquals(result.mode, threads === "split" ? "workers" : threads);
        const testing = gcs.flatMap((line, i) => line.includes("testing") ? [i] : []);
        assertEquals(testing.length, 2, `the two requested collections:\n${gcs.join("\n")}`);
        const between = gcs.slice(testing[0] + 1, testing[1]);
        assertEquals(between, [], "collections during the measured frames");
        const growth = result.after - result.before;
        console.log(`  heap growth ${(growth / frames).toFixed(1)} bytes a frame`);
        assert(
          growth < NOISE_BYTES_PER_FRAME * frames,
          `the heap grew by ${growth} bytes over ${frames} frames (${
            (growth / frames).toFixed(1)
          } a frame)`,
        );
      },
    };
  });
}
