/**
 * The steady frame allocates nothing: the README scene and a scene of real
 * characters (Fox, CesiumMan, RobotExpressive; Xbot and Soldier when
 * `../shared` has them) cross-fading every two seconds, a masked layer on
 * some, one of each model skinned with dual quaternions, markers on every
 * clip crossed and read every frame, and every view function called every
 * frame (their out forms into the game's objects), run `FRAMES` frames in a
 * child process (`_zero_allocation_scene.ts`) on the WebAssembly builds,
 * single-threaded, on 2 worker threads and task-parallel on them
 * (`taskParallel: true`), the README scene animated over its listed
 * entities, and on the scalar build (single-threaded: a pool of the scalar
 * build is single-threaded, it does not run on shared memory), with V8's
 * `--trace-gc` and a 1 MB young generation, so that a few hundred bytes a
 * frame of garbage would force a collection. Between the two collections
 * the child requests (traced as "testing") there is no other, and the heap
 * grows by no more than noise (V8 may also leave small garbage in a young
 * generation it grew, so both are checked).
 * Batch calls split across threads (the child's `split` mode, every call
 * split as a crowd over the split thresholds would be) run on the simd
 * build for `SPLIT_FRAMES` frames: a worker that boxed its float arguments
 * while its loop ran unoptimized collected about once in 9,000 frames.
 * With levels of detail (the child's `lod`), the game sets every
 * character's by distance bands each frame, single-threaded and
 * task-parallel.
 */
import { assert, assertEquals } from "@std/assert";
import { BUILDS } from "./_scene.ts";
import { FRAMES } from "./_zero_allocation_scene.ts";
import { RUN_LEVEL } from "./_arbitrary_numbers.ts";

/**
 * Heap growth over the measured frames still taken for noise: under 44 bytes a frame (measured
 * 20–30, from code V8 has not optimized that runs when a cross-fade starts or ends); a planted
 * array literal per entity per frame is over 300.
 */
const NOISE_BYTES_PER_FRAME = 44;
const CHILD = new URL("./_zero_allocation_scene.ts", import.meta.url);
const IMPORT_MAP = new URL("../import_map.dev.json", import.meta.url);

/** Runs the child on `build` and `threads`: its trace lines and its result line. */
async function run(build: string, threads: string, frames: number, warmup: number, lod = false) {
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-read",
      "--allow-env",
      `--import-map=${IMPORT_MAP.href}`,
      "--v8-flags=--expose-gc,--trace-gc,--min-semi-space-size=1,--max-semi-space-size=1",
      CHILD.href,
      build,
      threads,
      String(frames),
      String(warmup),
      lod ? "lod" : "",
    ],
    stdin: "null",
  }).output();
  const out = new TextDecoder().decode(stdout);
  assertEquals(code, 0, new TextDecoder().decode(stderr));
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

/** Warm-up frames (see `_zero_allocation_scene.ts`). */
const WARMUP = 12_000;

const MODES = [
  ...BUILDS.flatMap((build) =>
    (build === "scalar" ? ["single-thread"] : ["single-thread", "workers", "task-parallel"])
      .map((threads) => ({ build, threads }))
  ),
  { build: "simd", threads: "split" },
  // Levels of detail set by distance every frame.
  { build: "simd", threads: "single-thread", lod: true },
  { build: "simd", threads: "task-parallel", lod: true },
];

/**
 * The scalar build's frame is some 20 times longer: half the frames still
 * find some 700 bytes a frame.
 */
const SCALAR_FRAMES = FRAMES / 2;
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

// The fast level (`runs`) keeps the simd build's modes: relaxed-simd runs the same JavaScript.
const RUN_MODES = MODES.filter((m) => RUN_LEVEL !== "fast" || m.build === "simd");
for (
  const { build, threads, lod } of RUN_MODES as { build: string; threads: string; lod?: boolean }[]
) {
  const frames = build === "scalar" ? SCALAR_FRAMES : threads === "split" ? SPLIT_FRAMES : FRAMES;
  const warmup = build === "scalar" ? SCALAR_WARMUP : lod ? LOD_WARMUP : WARMUP;
  Deno.test(
    `${frames} frames of cross-fading characters allocate nothing: ${build}, ${threads}${
      lod ? ", levels of detail by distance" : ""
    }`,
    async () => {
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
      assert(
        growth < NOISE_BYTES_PER_FRAME * frames,
        `the heap grew by ${growth} bytes over ${frames} frames (${
          (growth / frames).toFixed(1)
        } a frame)`,
      );
    },
  );
}
