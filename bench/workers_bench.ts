/**
 * The frame on a worker pool against the same frame on one thread of the
 * same (shared-memory) build: the README scene (100 × 64 joints × 10,000
 * vertices, normals and tangents) and 2,000 Foxes playing and cross-fading
 * clips. Also the cost of one synchronisation (a task of no rows handed to
 * every worker and waited for), which a frame pays once per split system.
 *
 * `deno bench --import-map=import_map.dev.json -A bench/workers_bench.ts`
 */
import { createAnimationPipeline, createWorkerPool, type WorkerPool } from "../mod.ts";
import { foxCrowd, waveScene, type WorkerScene } from "../tests/_workers.ts";
import { coreKernels, coreMemory } from "../simd/_instance.ts";

const SHAPE = { joints: 64, segments: 100, rings: 100, influences: 4 } as const;
const DT = 1 / 60;
const ROWS: [string, number][] = [["1 worker", 1], ["2 workers", 2]];

const pools: WorkerPool[] = [];

async function group(name: string, make: (pool: WorkerPool) => Promise<WorkerScene>) {
  for (const [row, workers] of ROWS) {
    const pool = await createWorkerPool({ workers });
    pools.push(pool);
    const scene = await make(pool);
    const animate = createAnimationPipeline({ pool });
    animate(scene.world, DT);
    Deno.bench({
      name: row,
      group: `workers: ${name}`,
      baseline: workers === 1,
      fn: () => animate(scene.world, DT),
    });
  }
}

await group(
  "README scene (100 × 64 joints × 10k vertices, tangents)",
  (pool) => Promise.resolve(waveScene(pool.core, 100, SHAPE)),
);
await group("2,000 Fox (playing, cross-fading)", (pool) => foxCrowd(pool.core, 2000));

// One synchronisation: firstBeyondBatch over two empty rows, forced across the threads by
// a limit no row reaches (the rows' cost is below the split threshold, so call the pool's
// own kernel through a table of enough empty-but-counted rows instead).
{
  const pool = await createWorkerPool({ workers: 2 });
  pools.push(pool);
  const memory = coreMemory(pool.core), kernels = coreKernels(pool.core);
  const floats = 1 << 17;
  const data = memory.alloc(floats * 4 * 2), jobs = memory.alloc(2 * 48);
  const u32 = memory.views().u32;
  for (let i = 0; i < 2; i++) {
    u32[(jobs >> 2) + i * 12] = data + i * floats * 4;
    u32[(jobs >> 2) + i * 12 + 1] = floats;
  }
  Deno.bench({
    name: "1 worker",
    group: "workers: one synchronisation (2 × 131,072 floats scanned)",
    baseline: true,
    fn: () => {
      kernels.firstBeyond(data, floats * 2, 1e18);
    },
  });
  Deno.bench({
    name: "2 workers",
    group: "workers: one synchronisation (2 × 131,072 floats scanned)",
    fn: () => {
      kernels.firstBeyondBatch(jobs, 2, 1e18);
    },
  });
}

// The pools' workers would keep the process alive: close them once the benches are done.
globalThis.addEventListener("beforeunload", () => pools.forEach((pool) => pool.close()));
