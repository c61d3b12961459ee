/**
 * The demo's `--crowd N`: {@linkcode CrowdScene}'s crowd with level of
 * detail, timed per system on the fastest core build, with the characters
 * in each band; with `--workers N`, the same crowd on a pool of N threads
 * and on the task-parallel pipeline.
 *
 * @module
 */

import { Core, createWorkerPool } from "../kernels.ts";
import { CROWD_BANDS, CrowdScene } from "./crowd_scene.ts";

const DELTA = 1 / 60;
/** Frames run before timing: each character's first bands and clips settle. */
const WARM_UP = 30;

/** Milliseconds per frame of `frame`, over `frames` frames after the warm-up. */
function timed(frames: number, frame: () => void): number {
  for (let i = 0; i < WARM_UP; i++) frame();
  const start = performance.now();
  for (let i = 0; i < frames; i++) frame();
  return (performance.now() - start) / frames;
}

function milliseconds(ms: number): string {
  return ms >= 1 ? `${ms.toFixed(2)} ms` : `${(ms * 1000).toFixed(1)} µs`;
}

/**
 * Runs `frames` frames of a crowd of `count` characters and prints what
 * each system took per frame, the whole frame and the bands; then, given
 * `workers`, the frame on that many threads.
 */
export async function runCrowd(
  count: number,
  frames: number,
  workers: number | undefined,
  out: (line: string) => void,
): Promise<void> {
  const build = Core.default.build;
  out(
    `Marrow demo: a crowd of ${count.toLocaleString("en")} small characters ` +
      `(20 joints, 300 vertices, 2 influences, normals), cross-fading every 1-4 s, ` +
      `level of detail by distance from a circling camera; ${frames} frames on ${build}\n`,
  );
  const scene = new CrowdScene(count, build);
  let single: number;
  try {
    for (let i = 0; i < WARM_UP; i++) scene.frame(DELTA);
    const perSystem = new Map<string, number>();
    const bands = new Array<number>(CROWD_BANDS.length + 1).fill(0);
    const start = performance.now();
    for (let i = 0; i < frames; i++) {
      scene.frame(DELTA, perSystem);
      scene.bandCounts().forEach((n, b) => bands[b] += n);
    }
    single = (performance.now() - start) / frames;
    const width = Math.max(...scene.systems.map((name) => name.length));
    for (const [name, ms] of perSystem) {
      out(`${name.padEnd(width)}  ${milliseconds(ms / frames).padStart(9)}`);
    }
    out(`${"frame".padEnd(width)}  ${milliseconds(single).padStart(9)} (the camera and bands too)`);
    out("\ncharacters per band, on average:");
    [...CROWD_BANDS.map((b) => b.label), "culled (animated, not skinned)"].forEach((label, b) => {
      out(`  ${label}: ${Math.round(bands[b] / frames).toLocaleString("en")}`);
    });
  } finally {
    scene.dispose();
  }
  if (workers === undefined) return;
  using pool = await createWorkerPool({ workers });
  const why = pool.fallbackReason ? ` (${pool.fallbackReason})` : "";
  out(`\nworkers: ${pool.workers} thread(s)${why}`);
  for (const taskParallel of [false, true]) {
    const onPool = new CrowdScene(count, pool.core.build, pool, taskParallel);
    try {
      const ms = timed(frames, () => onPool.frame(DELTA));
      out(
        `  mode ${onPool.mode}: ${milliseconds(ms)} per frame, ` +
          `${(single / ms).toFixed(2)}x the single-threaded frame`,
      );
    } finally {
      onPool.dispose();
    }
  }
}
