/**
 * The steady frame allocates nothing: the README scene and a scene of real
 * characters (Fox, CesiumMan, RobotExpressive; Xbot and Soldier when
 * `../shared` has them) cross-fading every two seconds, a masked layer on
 * some, run `FRAMES` frames in a child process (`_zero_allocation_scene.ts`)
 * on the WebAssembly builds, single-threaded and on 2 threads, the README
 * scene animated over its listed entities, with V8's
 * `--trace-gc` and a 1 MB young generation, so that a few hundred bytes a
 * frame of garbage would force a collection. Between the two collections
 * the child requests (traced as "testing") there is no other, and the heap
 * grows by no more than noise (V8 may also leave small garbage in a young
 * generation it grew, so both are checked).
 *
 * Not covered yet, each still allocating: the scalar build (its kernel
 * adapters allocate nothing, but the reference sampler it runs makes
 * closures and arrays per track), the task-parallel pipeline
 * (`taskParallel: true`: its snapshot map, copies and generator), and
 * dual-quaternion skins (their conversion runs in TypeScript), and batch
 * calls split across threads (the child's `split` mode, every call split
 * as a crowd over the split thresholds would be): a worker still collects
 * about once in several thousand frames (a float argument it reads from
 * the control block and passes to the kernel, unconfirmed).
 */
import { assert, assertEquals } from "@std/assert";
import { BUILDS } from "./_scene.ts";
import { FRAMES } from "./_zero_allocation_scene.ts";

/**
 * Heap growth over the measured frames still taken for noise: under 44 bytes a frame (measured
 * 20–30, from code V8 has not optimized that runs when a cross-fade starts or ends); a planted
 * array literal per entity per frame is over 1 MB.
 */
const NOISE_BYTES = 128 * 1024;
const CHILD = new URL("./_zero_allocation_scene.ts", import.meta.url);
const IMPORT_MAP = new URL("../import_map.dev.json", import.meta.url);

/** Runs the child on `build` and `threads`: its trace lines and its result line. */
async function run(build: string, threads: string) {
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
    mode: string;
  };
  const gcs = out.replace(/\{"before".*?\}\n?/, "").split("\n").filter((line) =>
    / ms: (Scavenge|Mark-Compact|Minor Mark-Sweep|Mark-Sweep)/.test(line)
  );
  return { result, gcs };
}

const MODES = BUILDS.filter((b) => b !== "scalar").flatMap((build) =>
  ["single-thread", "workers"].map((threads) => ({
    build,
    threads,
  }))
);

for (const { build, threads } of MODES) {
  Deno.test(`${FRAMES} frames of cross-fading characters allocate nothing: ${build}, ${threads}`, async () => {
    const { result, gcs } = await run(build, threads);
    assert(result.characters >= 6, `characters: ${result.characters}`);
    const testing = gcs.flatMap((line, i) => line.includes("testing") ? [i] : []);
    assertEquals(testing.length, 2, `the two requested collections:\n${gcs.join("\n")}`);
    const between = gcs.slice(testing[0] + 1, testing[1]);
    assertEquals(between, [], "collections during the measured frames");
    const growth = result.after - result.before;
    assert(
      growth < NOISE_BYTES,
      `the heap grew by ${growth} bytes over ${FRAMES} frames (${
        (growth / FRAMES).toFixed(1)
      } a frame)`,
    );
  });
}
