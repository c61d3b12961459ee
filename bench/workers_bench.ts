/**
 * The frame on a worker pool against the same frame on one thread of the
 * same (shared-memory) build: the README scene (100 × 64 joints × 10,000
 * vertices, normals and tangents) and 2,000 Foxes playing and cross-fading
 * clips. Also the cost of one synchronisation, which a frame pays once per
 * batch call big enough to be split (the README scene: its skinning only).
 * The task-parallel rows skin the previous frame on the workers while the
 * calling thread animates the joints: one synchronisation per frame. Each
 * scene again with level of detail: half its characters at update rate 2,
 * a quarter culled (issue #30: two workers still 1.7× one).
 *
 * `deno bench --import-map=import_map.dev.json -A bench/workers_bench.ts`
 *
 * `WORKERS_BEFORE=<another checkout of Marrow>` adds the same rows for that
 * checkout (its pipeline, pool and scenes) to each scene's group, in the
 * same run: each row's ratio is then against this checkout's `1 worker`,
 * and the two checkouts' `1 worker` rows compare the single thread.
 */
import * as mod from "../mod.ts";
import * as kernelsModule from "../kernels.ts";
import type { WorkerPool } from "../kernels.ts";
import * as scenes from "../tests/_workers.ts";
import type { WorkerScene } from "../tests/_workers.ts";
import { coreKernels, coreMemory } from "../simd/memory/_instance.ts";
import { JOB_BYTES, JOB_WORDS } from "../simd/abi.ts";
import { minSplitCost } from "../simd/pool/_parallel_kernels.ts";
import { setLevelOfDetail } from "../lod.ts";

const SHAPE = { joints: 64, segments: 100, rings: 100, influences: 4 } as const;
const DT = 1 / 60;
const ROWS: [string, number, boolean][] = [
  ["1 worker", 1, false],
  ["2 workers", 2, false],
  ["2 workers, task-parallel", 2, true],
];

/** Iterations per row: about 6 s of 2,000 Foxes on one thread. */
const FRAMES = { warmup: 100, n: 300 } as const;

const pools: WorkerPool[] = [];

/** What the rows need of a checkout. */
interface Checkout {
  readonly mod: Pick<typeof mod, "createAnimationPipeline">;
  readonly kernels: Pick<typeof kernelsModule, "createWorkerPool">;
  readonly scenes: Pick<typeof scenes, "foxCrowd" | "waveScene">;
}

const checkouts: [string, Checkout][] = [["", { mod, kernels: kernelsModule, scenes }]];
const before = Deno.env.get("WORKERS_BEFORE");
if (before) {
  const root = new URL(`file://${before.replace(/\/?$/, "/")}`);
  const load = (path: string) => import(new URL(path, root).href);
  checkouts.push([
    "before: ",
    {
      mod: await load("mod.ts"),
      kernels: await load("kernels.ts"),
      scenes: await load("tests/_workers.ts"),
    },
  ]);
}

/** Half the characters at update rate 2 and a quarter culled, as the crowd bench's rows. */
function someAtLowerDetail(scene: WorkerScene): void {
  scene.entities.forEach((eid, i) =>
    setLevelOfDetail(scene.world, eid, { updateRate: i % 2 ? 2 : 1, visible: i % 4 !== 0 })
  );
}

async function group(
  name: string,
  make: (checkout: Checkout, pool: WorkerPool) => Promise<WorkerScene>,
  lod = false,
) {
  // Level of detail: this checkout's rows only (an older one may not have it).
  for (const [prefix, checkout] of lod ? checkouts.slice(0, 1) : checkouts) {
    for (const [row, workers, taskParallel] of ROWS) {
      const pool = await checkout.kernels.createWorkerPool({ workers });
      pools.push(pool);
      const scene = await make(checkout, pool);
      if (lod) someAtLowerDetail(scene);
      const animate = checkout.mod.createAnimationPipeline({ pool, taskParallel });
      animate(scene.world, DT);
      Deno.bench({
        name: `${prefix}${row}`,
        group: `workers: ${name}`,
        baseline: workers === 1 && prefix === "",
        // Each row is measured after the others' rows: without a long warm-up of its own, the
        // first row pays V8's tiering of the frame and the ratios swing by ±40 %.
        ...FRAMES,
        fn: () => animate(scene.world, DT),
      });
    }
  }
}

await group(
  "README scene (100 × 64 joints × 10k vertices, tangents)",
  (checkout, pool) => Promise.resolve(checkout.scenes.waveScene(pool.core, 100, SHAPE)),
);
await group(
  "2,000 Fox (playing, cross-fading)",
  (checkout, pool) => checkout.scenes.foxCrowd(pool.core, 2000),
);
await group(
  "README scene, half at update rate 2, a quarter culled",
  (checkout, pool) => Promise.resolve(checkout.scenes.waveScene(pool.core, 100, SHAPE)),
  true,
);
await group(
  "2,000 Fox, half at update rate 2, a quarter culled",
  (checkout, pool) => checkout.scenes.foxCrowd(pool.core, 2000),
  true,
);

// One synchronisation: a scan of two rows of 1,024 floats on one thread, and split across two
// threads (forced: the call is far below the split threshold). The difference is what one
// synchronisation costs.
{
  const pool = await kernelsModule.createWorkerPool({ workers: 2 });
  pools.push(pool);
  const memory = coreMemory(pool.core), kernels = coreKernels(pool.core);
  const floats = 1024;
  const data = memory.alloc(floats * 4 * 2), jobs = memory.alloc(2 * JOB_BYTES);
  const u32 = memory.views().u32;
  for (let i = 0; i < 2; i++) {
    u32[(jobs >> 2) + i * JOB_WORDS] = data + i * floats * 4;
    u32[(jobs >> 2) + i * JOB_WORDS + 1] = floats;
  }
  const group = "workers: one synchronisation (scan of 2 × 1,024 floats)";
  Deno.bench({
    name: "1 worker",
    group,
    baseline: true,
    fn: () => {
      kernels.firstBeyond(data, floats * 2, 1e18);
    },
  });
  Deno.bench({
    name: "2 workers",
    group,
    fn: () => {
      const threshold = minSplitCost.firstBeyondBatch;
      minSplitCost.firstBeyondBatch = 0;
      kernels.firstBeyondBatch(jobs, 2, 1e18);
      minSplitCost.firstBeyondBatch = threshold;
    },
  });
}

// The pools' workers would keep the process alive: close them once the benches are done.
globalThis.addEventListener("beforeunload", () => pools.forEach((pool) => pool.close()));
