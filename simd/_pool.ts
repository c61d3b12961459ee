/**
 * The threads of a worker pool and the one synchronisation of a task: the
 * calling thread writes each worker's arguments into the worker's slot of a
 * shared control block, bumps the slot's sequence number and wakes it, runs
 * its own share, then waits until every worker has counted itself done.
 *
 * The control block is its own `SharedArrayBuffer`, not core memory: the
 * core's heap holds only what the caller's buffers own.
 *
 * @module
 */

import type { SharedCore } from "./_shared_core.ts";
import {
  ARGS_AT,
  MESSAGE_AT,
  MESSAGE_LENGTH_AT,
  MESSAGE_UNITS,
  SLOT_INTS,
  startWorker,
  STOP,
  type WorkerStart,
} from "./_pool_worker.ts";

/** Spins before sleeping, on both sides: a frame's systems follow each other closely. */
const SPIN = 20_000;
const MAX_ARGS = 8;

const ERROR_TYPES: Record<string, ErrorConstructor> = {
  RangeError,
  TypeError,
};

/** Whether this thread may block in `Atomics.wait` (not a browser's main thread). */
function canBlock(): boolean {
  try {
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 1, 0);
    return true;
  } catch {
    return false;
  }
}

/** One worker's share of a task: its kernel arguments. */
export type Share = readonly number[] | undefined;

/** The worker threads of a pool; the calling thread is thread 0. */
export class ThreadPool {
  /** Threads that share a task, the calling thread included. */
  readonly threads: number;
  readonly #workers: Worker[];
  readonly #i32: Int32Array;
  readonly #f64: Float64Array;
  readonly #u16: Uint16Array;
  readonly #canBlock = canBlock();
  readonly #sequence: number[];
  #closed = false;
  #busy = false;

  private constructor(workers: Worker[], control: SharedArrayBuffer) {
    this.#workers = workers;
    this.threads = workers.length + 1;
    this.#i32 = new Int32Array(control);
    this.#f64 = new Float64Array(control);
    this.#u16 = new Uint16Array(control);
    this.#sequence = workers.map(() => 0);
  }

  /** Starts `threads - 1` workers on `shared`, serving the kernels named `kernels`. */
  static async start(
    shared: SharedCore,
    threads: number,
    kernels: readonly string[],
  ): Promise<ThreadPool> {
    const control = new SharedArrayBuffer(threads * SLOT_INTS * 4);
    const started: { worker: Worker; url: string }[] = [];
    try {
      for (let slot = 1; slot < threads; slot++) started.push(startWorker());
      await Promise.all(started.map(({ worker }, i) =>
        new Promise<void>((resolve, reject) => {
          worker.onmessage = () => resolve();
          worker.onerror = (event) => {
            event.preventDefault();
            reject(new Error(`worker pool: a worker failed to start: ${event.message}`));
          };
          const start: WorkerStart = {
            module: shared.module,
            memory: shared.memory,
            control,
            slot: i + 1,
            kernels,
            layout: [SLOT_INTS, ARGS_AT, MESSAGE_AT, MESSAGE_LENGTH_AT, MESSAGE_UNITS, STOP],
            spin: SPIN,
          };
          worker.postMessage(start);
        })
      ));
    } catch (error) {
      for (const { worker } of started) worker.terminate();
      throw error;
    } finally {
      for (const { url } of started) if (url.startsWith("blob:")) URL.revokeObjectURL(url);
    }
    for (const { worker } of started) worker.onmessage = worker.onerror = null;
    return new ThreadPool(started.map(({ worker }) => worker), control);
  }

  /** Whether {@linkcode close} was called. */
  get closed(): boolean {
    return this.#closed;
  }

  /** Whether a task is handed out and not yet joined (kernels then run on the calling thread alone). */
  get busy(): boolean {
    return this.#busy;
  }

  /**
   * Hands share `w` of `shares` (index 0 is the calling thread's and is not
   * sent) to worker `w` as a call of kernel `kernel`, runs `local` on this
   * thread, and returns once every worker is done: the workers' return
   * values by share. An error of `local` or of a worker (the first in
   * share order) is thrown after every worker has finished.
   */
  run(kernel: number, shares: readonly Share[], local: () => number): number[] {
    this.start(kernel, shares);
    let localResult = 0;
    try {
      localResult = local();
    } catch (error) {
      this.#join();
      this.#busy = false;
      throw error;
    }
    return this.finish(shares, localResult);
  }

  /**
   * The first half of {@linkcode run}: hands the workers their shares and
   * returns at once; {@linkcode finish} (or {@linkcode finishAsync}) must
   * follow, whatever the calling thread does in between.
   */
  start(kernel: number, shares: readonly Share[]): void {
    if (this.#busy) throw new Error("worker pool: a task is already running");
    if (shares.some((args) => args && args.length > MAX_ARGS)) {
      throw new RangeError(`worker pool: a kernel takes at most ${MAX_ARGS} arguments here`);
    }
    this.#busy = true;
    const i32 = this.#i32;
    let pending = 0;
    for (let w = 1; w < shares.length; w++) if (shares[w]) pending++;
    Atomics.store(i32, 0, pending);
    for (let w = 1; w < shares.length; w++) {
      const args = shares[w];
      if (!args) continue;
      const base = w * SLOT_INTS;
      i32[base + 1] = kernel;
      i32[base + 4] = args.length;
      for (let a = 0; a < args.length; a++) this.#f64[(base + ARGS_AT) / 2 + a] = args[a];
      const sequence = this.#sequence[w - 1] = this.#sequence[w - 1] % 0x7fff_fffe + 1;
      Atomics.store(i32, base, sequence);
      Atomics.notify(i32, base);
    }
  }

  /** Waits for the workers of the task {@linkcode start} handed out: see {@linkcode run}. */
  finish(shares: readonly Share[], localResult = 0): number[] {
    this.#join();
    return this.#results(shares, localResult);
  }

  /**
   * {@linkcode finish} for a thread that may not block (a browser's main
   * thread): waits with `Atomics.waitAsync` where the runtime has it, else
   * by spinning.
   */
  async finishAsync(shares: readonly Share[], localResult = 0): Promise<number[]> {
    const i32 = this.#i32;
    const waitAsync = (Atomics as unknown as {
      waitAsync?: (a: Int32Array, i: number, v: number) => { async: boolean; value: unknown };
    }).waitAsync;
    for (let left = Atomics.load(i32, 0); left !== 0; left = Atomics.load(i32, 0)) {
      if (this.#closed) {
        this.#busy = false;
        throw new Error("worker pool: closed while a frame was waiting for its workers");
      }
      if (!waitAsync) continue;
      const wait = waitAsync(i32, 0, left);
      if (wait.async) await wait.value;
    }
    return this.#results(shares, localResult);
  }

  #results(shares: readonly Share[], localResult: number): number[] {
    try {
      const i32 = this.#i32;
      const results = [localResult];
      for (let w = 1; w < shares.length; w++) {
        if (!shares[w]) {
          results.push(0);
          continue;
        }
        const base = w * SLOT_INTS;
        if (i32[base + 2]) throw this.#errorOf(base);
        results.push(i32[base + 3]);
      }
      return results;
    } finally {
      this.#busy = false;
    }
  }

  #join(): void {
    const i32 = this.#i32;
    for (let i = 0; i < SPIN && Atomics.load(i32, 0) !== 0; i++);
    for (let left = Atomics.load(i32, 0); left !== 0; left = Atomics.load(i32, 0)) {
      if (this.#canBlock) Atomics.wait(i32, 0, left);
    }
  }

  /** The error a worker recorded: a RuntimeError for a trap, as on this thread. */
  #errorOf(base: number): Error {
    const units = this.#u16.subarray(
      (base + MESSAGE_AT) * 2,
      (base + MESSAGE_AT) * 2 + this.#i32[base + MESSAGE_LENGTH_AT],
    );
    const text = String.fromCharCode(...units);
    const nul = text.indexOf("\u0000");
    const [name, message] = nul < 0 ? ["Error", text] : [text.slice(0, nul), text.slice(nul + 1)];
    if (name === "RuntimeError") return new WebAssembly.RuntimeError(message);
    return new (ERROR_TYPES[name] ?? Error)(message);
  }

  /** Stops the workers. Idempotent; later tasks run on the calling thread. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    for (let w = 0; w < this.#workers.length; w++) {
      const base = (w + 1) * SLOT_INTS;
      Atomics.store(this.#i32, base, STOP);
      Atomics.notify(this.#i32, base);
      this.#workers[w].terminate();
    }
    // An awaited join wakes and finds the pool closed.
    Atomics.notify(this.#i32, 0);
  }
}
