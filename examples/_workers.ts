/**
 * The demo's `--workers N`: the same crowd on a worker pool of N threads,
 * its mode and its time per frame against the single-threaded frame.
 *
 * @module
 */

import { createWorkerPool } from "../mod.ts";
import { Crowd, type DemoCharacter } from "./_crowd.ts";

/**
 * Runs `frames` frames of `count` entities wearing `character` on a pool
 * of `workers` threads; prints the pool's mode and its time per frame
 * against `singleThreadMs`, the single-threaded frame's.
 */
export async function runOnWorkers(
  character: DemoCharacter,
  count: number,
  frames: number,
  workers: number,
  singleThreadMs: number,
  out: (line: string) => void,
): Promise<void> {
  using pool = await createWorkerPool({ workers });
  const crowd = new Crowd(character, count, pool.core.build, pool);
  try {
    for (let frame = 0; frame < Math.min(10, frames); frame++) crowd.frame(1 / 60);
    const start = performance.now();
    for (let frame = 0; frame < frames; frame++) crowd.frame(1 / 60);
    const ms = (performance.now() - start) / frames;
    const why = pool.fallbackReason ? ` (${pool.fallbackReason})` : "";
    out(
      `\nworkers: mode ${pool.mode}${why}, ${pool.workers} thread(s): ${ms.toFixed(2)} ms per ` +
        `frame, ${(singleThreadMs / ms).toFixed(2)}x the single-threaded frame`,
    );
  } finally {
    crowd.dispose();
  }
}
