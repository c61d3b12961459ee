/**
 * The demo's `--workers N`: the same crowd on a worker pool of N threads,
 * its mode and its time per frame against the single-threaded frame, and
 * then the same with the task-parallel pipeline (skinned output one frame
 * behind).
 *
 * @module
 */

import { createAnimationPipeline } from "../mod.ts";
import { createWorkerPool } from "../kernels.ts";
import { Crowd, type DemoCharacter } from "./crowd.ts";

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
    const time = (frame: () => void) => {
      for (let i = 0; i < Math.min(10, frames); i++) frame();
      const start = performance.now();
      for (let i = 0; i < frames; i++) frame();
      return (performance.now() - start) / frames;
    };
    const ms = time(() => crowd.frame(1 / 60));
    const why = pool.fallbackReason ? ` (${pool.fallbackReason})` : "";
    const versus = (ms: number) =>
      `${ms.toFixed(2)} ms per frame, ${
        (singleThreadMs / ms).toFixed(2)
      }x the single-threaded frame`;
    out(`\nworkers: mode ${pool.mode}${why}, ${pool.workers} thread(s): ${versus(ms)}`);
    const animate = createAnimationPipeline({ pool, taskParallel: true });
    out(`task-parallel: mode ${animate.mode}: ${versus(time(() => animate(crowd.world, 1 / 60)))}`);
  } finally {
    crowd.dispose();
  }
}
