/**
 * The machine-noise rows of `deno task bench:session` (`_session.ts`): a
 * fixed, allocation-free arithmetic loop timed per frame like the sessions,
 * on one thread and split over two, to read the session rows' worst frames
 * against.
 *
 * @module
 */

import type { SessionRun } from "./_session.ts";

/**
 * The machine's own noise: a fixed, allocation-free arithmetic loop, timed
 * per frame like the sessions and sized by `calibrate` to about a target
 * in ms (nothing before). Its worst frame over its median is what
 * preemption alone does to a frame on this machine; a session row whose
 * ratio is no worse is not the library's doing.
 */
export function noiseRun(): SessionRun & { calibrate(target: number): void } {
  const noise = noiseLoop();
  return {
    name: "machine noise: fixed arithmetic of about the median frame",
    frame: () => noise.work(noise.rounds),
    bytes: () => {
      noise.keep();
      return { bytesPerFrame: 0 };
    },
    calibrate: (target) => noise.calibrate(target),
  };
}

/** A fixed arithmetic loop: `rounds` of it take about the calibrated time. */
export interface NoiseLoop {
  rounds: number;
  work(count: number): void;
  calibrate(target: number): void;
  keep(): void;
}

/**
 * The loop of {@linkcode noiseRun}: `work(count)` runs `count` rounds;
 * `calibrate(target)` sets `rounds` to about `target` ms (after the loop is
 * compiled: timed before, it is many times slower).
 */
export function noiseLoop(): NoiseLoop {
  const data = new Float64Array(4096).map((_, i) => i / 4096);
  let sink = 0;
  const loop: NoiseLoop = {
    rounds: 0,
    work(count: number) {
      for (let r = 0; r < count; r++) {
        for (let i = 0; i < data.length; i++) sink += data[i] * data[(i * 7) & 4095];
      }
    },
    calibrate(target: number) {
      for (let i = 0; i < 200; i++) loop.work(1);
      let count = 1;
      for (let pass = 0; pass < 3; pass++) {
        const start = performance.now();
        loop.work(count);
        const took = Math.max(performance.now() - start, 1e-3);
        count = Math.max(1, Math.round(count * target / took));
      }
      loop.rounds = count;
    },
    /** Keeps the loop's result alive (else it could be optimized away). */
    keep() {
      if (sink === -1) console.log(sink);
    },
  };
  return loop;
}

/**
 * The machine's noise on two threads, as Marrow's 2-thread row meets it:
 * the same loop run at once by the calling thread and by a worker, the
 * frame ending when both are done (the worker woken and waited for with
 * `Atomics`, as the pool's). A stall of either thread stalls the frame.
 */
export function twoThreadNoiseRun(): SessionRun & {
  calibrate(target: number): void;
  close(): void;
} {
  const noise = noiseLoop();
  // [0]: the frame's generation (the worker's wake), [1]: frames the worker finished, [2]: rounds.
  const control = new Int32Array(new SharedArrayBuffer(12));
  const worker = new Worker(new URL("./_session_noise_worker.ts", import.meta.url), {
    type: "module",
  });
  worker.postMessage(control);
  let generation = 0;
  return {
    name: "machine noise: the same arithmetic on 2 threads",
    frame: () => {
      Atomics.store(control, 0, ++generation);
      Atomics.notify(control, 0);
      noise.work(noise.rounds);
      while (Atomics.load(control, 1) !== generation) Atomics.wait(control, 1, generation - 1);
    },
    bytes: () => {
      noise.keep();
      return { bytesPerFrame: 0 };
    },
    calibrate(target: number) {
      noise.calibrate(target);
      Atomics.store(control, 2, noise.rounds);
    },
    close() {
      Atomics.store(control, 0, -1);
      Atomics.notify(control, 0);
      worker.terminate();
    },
  };
}
