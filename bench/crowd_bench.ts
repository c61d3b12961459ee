/**
 * Issue #30's per-entity cost: a crowd of small characters (20 joints, 300
 * vertices, 2 influences, normals), every one playing a clip and
 * cross-fading to another, animated by the single-threaded pipeline. Per
 * system, two rows: the system as the game calls it, and the same system's
 * core calls alone on the tables the system itself wrote (prebuilt: the
 * kernels' share of its time). The pipeline's whole frame beside the sum of
 * its kernels likewise. Each row's every iteration runs both (the other one
 * untimed, through `b.start()`/`b.end()`), so that the two rows of a pair
 * see the same caches and the same machine: (system − kernels) / entities
 * is the system's JavaScript per entity (issue #30's target: at most
 * 100 ns for the whole pipeline). Every iteration of both rows times both
 * runs: at the end, the bench prints each pair's (system − kernels) /
 * entities, the median of the iterations' differences and the difference
 * of the lowest deciles.
 *
 * JavaScript alone: each system and the whole frame again, on a crowd
 * whose world's core kernels are stubs that do nothing: the systems'
 * JavaScript timed directly, not as the small difference of two large
 * times (a loaded machine moves those by more than the difference).
 *
 * `CROWD_BEFORE=<another checkout of Marrow>` adds the same rows for that
 * checkout's systems, in the same run (before/after on one machine state;
 * copy `bench/_crowd_modules.ts` into a checkout older than this bench);
 * `CROWD_COUNT` sets the crowd's size (default 1,000 and 10,000). Each
 * group is run again with 4-vertex characters, where the kernels cost
 * little and the systems' JavaScript stands out of the machine's noise.
 *
 * Workers (this checkout only): the same crowd's frame on 2 workers of one
 * pool, task-parallel or not, with and without level of detail, beside
 * the frame on the calling thread.
 *
 * Level of detail (this checkout only): the pipeline's frame of the same
 * crowd with every character at full rate, half of them at update rate 2,
 * a quarter culled, and both; and of a crowd of 4-influence characters at
 * full influence count and with half of them capped at 2. Each row's every
 * iteration runs its group's other scenes untimed first, so that the rows
 * see the same machine.
 *
 * @module
 */

import { crowdScene, DELTA, type Modules, SMALL_CHARACTER } from "./_crowd.ts";
import * as mine from "./_crowd_modules.ts";
import { setLevelOfDetail } from "../lod.ts";
import { createWorkerPool, type WorkerPool } from "../kernels.ts";

/** Per pair of rows: its label, its entities, and every time (ms) of its kernels and of its system. */
const overheads: { label: string; entities: number; kernels: number[]; system: number[] }[] = [];

/**
 * Two rows, `a` (the kernels) timed with `b` (the system) run untimed
 * before it, and the other way round; both timed on every iteration for
 * the per-entity summary printed at the end.
 */
function pair(
  group: string,
  names: readonly [string, string],
  a: () => void,
  b: () => void,
  baseline: boolean,
  entities: number,
) {
  const times = { label: `${group}: ${names[1]}`, entities, kernels: [] as number[], system: [] };
  overheads.push(times);
  const timed = (run: () => void, into: number[]) => {
    const start = performance.now();
    run();
    into.push(performance.now() - start);
  };
  Deno.bench({
    name: names[0],
    group,
    baseline,
    fn: (t) => {
      timed(b, times.system);
      t.start();
      timed(a, times.kernels);
      t.end();
    },
  });
  Deno.bench({
    name: names[1],
    group,
    fn: (t) => {
      timed(a, times.kernels);
      t.start();
      timed(b, times.system);
      t.end();
    },
  });
}

/** The value `fraction` of the way up `values` sorted. */
function quantile(values: number[], fraction: number): number {
  const sorted = values.toSorted((x, y) => x - y);
  return sorted[Math.floor(sorted.length * fraction)] ?? NaN;
}

// (system − kernels) / entity of each pair, from every iteration of both
// its rows (each runs both, one right after the other), once every group
// has run: the median of the iterations' differences (a difference of two
// medians of frames of 1 ms or more moved by hundreds of ns an entity from
// run to run on a loaded machine), and the difference of the lowest
// deciles (a shared machine deschedules a frame now and then). Then each
// system's JavaScript alone: its time with the core's kernels stubbed.
globalThis.addEventListener("unload", () => {
  console.log("\n(system − kernels) / entity: median of the differences, lowest deciles");
  // Rows a `--filter` left out ran no iteration: no line for them.
  for (const { label, entities, kernels, system } of overheads) {
    if (system.length === 0 || kernels.length === 0) continue;
    const median = quantile(system.map((t, i) => t - kernels[i]), 0.5);
    const decile = quantile(system, 0.1) - quantile(kernels, 0.1);
    const [m, d] = [median, decile].map((t) => (t * 1e6 / entities).toFixed(0).padStart(7));
    console.log(`${m} ns ${d} ns  ${label}`);
  }
  console.log("\nJavaScript alone (kernels stubbed) / entity: medians, lowest deciles");
  for (const { label, entities, times } of alone) {
    if (times.length === 0) continue;
    const [m, d] = [0.5, 0.1].map((f) =>
      (quantile(times, f) * 1e6 / entities).toFixed(0).padStart(7)
    );
    console.log(`${m} ns ${d} ns  ${label}`);
  }
});

/** Per row of the stubbed groups: its label, its entities and every time (ms). */
const alone: { label: string; entities: number; times: number[] }[] = [];

/**
 * `m`'s crowd with its world's core kernels replaced by stubs that do
 * nothing (and whose scans find nothing): what is left of a frame is the
 * systems' JavaScript, timed directly rather than as the difference of two
 * times a thousand times larger.
 */
function stubbedScene(m: Modules, count: number, shape: typeof shapes[number][1]) {
  const scene = crowdScene(m, count, shape);
  const state = m.stateOf(scene.world, "crowd bench");
  const stubs: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(state.kernels)) {
    stubs[name] = typeof value === "function" ? () => -1 : value;
  }
  Object.defineProperty(state, "kernels", { value: stubs });
  return scene;
}

const counts = (Deno.env.get("CROWD_COUNT") ?? "1000,10000").split(",").map(Number);
const before = Deno.env.get("CROWD_BEFORE");
const checkouts: [string, Modules][] = [["", mine]];
if (before) {
  const root = new URL(`file://${before.replace(/\/?$/, "/")}`);
  checkouts.unshift([
    "before: ",
    await import(new URL("bench/_crowd_modules.ts", root).href),
  ]);
}

/** The characters of the issue, and the same with 4 vertices: the systems' JavaScript stands out. */
const shapes = [
  ["", SMALL_CHARACTER],
  [", 4 vertices", { ...SMALL_CHARACTER, segments: 2, rings: 2 }],
] as const;

for (const count of counts) {
  for (const [suffix, shape] of shapes) {
    const label = `${count.toLocaleString("en")} small characters${suffix}`;
    for (const [prefix, m] of checkouts) {
      const scene = crowdScene(m, count, shape);
      pair(
        `crowd: ${label}, frame`,
        [`${prefix}kernels alone (tables prebuilt)`, `${prefix}pipeline`],
        scene.frameKernels,
        () => scene.pipeline(scene.world, DELTA),
        prefix === checkouts[0][0],
        count,
      );
      for (const system of scene.pipeline.systems) {
        const kernels = scene.kernelsOf[system.name];
        if (!kernels) continue;
        pair(
          `crowd: ${label}, ${system.name}`,
          [`${prefix}kernels alone (tables prebuilt)`, `${prefix}${system.name}`],
          kernels,
          () => system.run(scene.world, DELTA),
          prefix === checkouts[0][0],
          count,
        );
      }
    }
  }
}

// Each system's JavaScript alone, both checkouts' rows in one group (each
// row's iteration runs the other checkout's first; every run is timed for
// the summary).
for (const count of counts) {
  for (const [suffix, shape] of shapes) {
    const label = `${count.toLocaleString("en")} small characters${suffix}`;
    const scenes = checkouts.map(([prefix, m]) => [prefix, stubbedScene(m, count, shape)] as const);
    const runs = [undefined, ...scenes[0][1].pipeline.systems.map(({ name }) => name)];
    for (const system of runs) {
      if (system !== undefined && !scenes[0][1].kernelsOf[system]) continue;
      const name = system ?? "pipeline";
      interleaved(
        `crowd: ${label}, JavaScript alone (kernels stubbed): ${name}`,
        scenes.map(([prefix, scene]) => {
          const run = system === undefined
            ? () => scene.pipeline(scene.world, DELTA)
            : scene.pipeline.systems.find((s) => s.name === system)!.run;
          const times: number[] = [];
          alone.push({ label: `${label}: ${prefix}${name}`, entities: count, times });
          return [`${prefix}${name}`, () => {
            const start = performance.now();
            run(scene.world, DELTA);
            times.push(performance.now() - start);
          }] as const;
        }),
      );
    }
  }
}

/** A row per scene, each timed after the group's other scenes ran untimed. */
function interleaved(group: string, rows: readonly (readonly [string, () => void])[]) {
  rows.forEach(([name, run], r) => {
    Deno.bench({
      name,
      group,
      baseline: r === 0,
      fn: (t) => {
        for (let o = 0; o < rows.length; o++) if (o !== r) rows[o][1]();
        t.start();
        run();
        t.end();
      },
    });
  });
}

/**
 * The crowd's frame with `settings(i)` as the level of detail of its
 * character `i`; on `pool`'s workers (task-parallel or not) when given.
 */
function lodFrame(
  count: number,
  shape: typeof SMALL_CHARACTER | { joints: 20; segments: 10; rings: 30; influences: 4 },
  settings: (i: number) => Parameters<typeof setLevelOfDetail>[2] | undefined,
  pool?: WorkerPool,
  taskParallel = false,
): () => void {
  const scene = crowdScene(mine, count, shape, pool, taskParallel);
  scene.entities.forEach((eid, i) => {
    const lod = settings(i);
    if (lod) setLevelOfDetail(scene.world, eid, lod);
  });
  for (let i = 0; i < 4; i++) scene.pipeline(scene.world, DELTA);
  return () => scene.pipeline(scene.world, DELTA);
}

for (const count of counts) {
  const label = `${count.toLocaleString("en")} small characters`;
  interleaved(`crowd: ${label}, level of detail`, [
    ["all full", lodFrame(count, SMALL_CHARACTER, () => undefined)],
    [
      "half at rate 2",
      lodFrame(count, SMALL_CHARACTER, (i) => i % 2 ? { updateRate: 2 } : undefined),
    ],
    [
      "a quarter culled",
      lodFrame(count, SMALL_CHARACTER, (i) => i % 4 ? undefined : { visible: false }),
    ],
    [
      "half at rate 2, a quarter culled",
      lodFrame(
        count,
        SMALL_CHARACTER,
        (i) => ({ updateRate: i % 2 ? 2 : 1, visible: i % 4 !== 0 }),
      ),
    ],
  ]);
  const four = { ...SMALL_CHARACTER, influences: 4 } as const;
  interleaved(`crowd: ${label}, 4 influences, level of detail`, [
    ["all full", lodFrame(count, four, () => undefined)],
    [
      "half capped 4 → 2 (far away)",
      lodFrame(count, four, (i) => i % 2 ? { maxInfluences: 2 } : undefined),
    ],
  ]);
}

// Issue #30's done means: the crowd's frame on 2 workers, with and without
// level of detail, beside the same frame on the calling thread alone.
const pools: WorkerPool[] = [];
/** A pool of 2 workers of its own: a row's frames never meet another's in a pool. */
async function twoWorkers(): Promise<WorkerPool> {
  const pool = await createWorkerPool({ workers: 2 });
  pools.push(pool);
  return pool;
}
// The pools' workers would keep the process alive: closed once the benches are done.
globalThis.addEventListener("beforeunload", () => pools.forEach((pool) => pool.close()));
for (const count of counts) {
  const some = (i: number) => ({ updateRate: i % 2 ? 2 : 1, visible: i % 4 !== 0 });
  interleaved(`crowd: ${count.toLocaleString("en")} small characters, 2 workers`, [
    ["1 thread", lodFrame(count, SMALL_CHARACTER, () => undefined)],
    // The level of detail's own baseline: its ratio on 2 workers is against this row.
    ["1 thread, half at rate 2, a quarter culled", lodFrame(count, SMALL_CHARACTER, some)],
    ["2 workers", lodFrame(count, SMALL_CHARACTER, () => undefined, await twoWorkers())],
    [
      "2 workers, task-parallel",
      lodFrame(count, SMALL_CHARACTER, () => undefined, await twoWorkers(), true),
    ],
    [
      "2 workers, half at rate 2, a quarter culled",
      lodFrame(count, SMALL_CHARACTER, some, await twoWorkers()),
    ],
    [
      "2 workers, task-parallel, half at rate 2, a quarter culled",
      lodFrame(count, SMALL_CHARACTER, some, await twoWorkers(), true),
    ],
  ]);
}
