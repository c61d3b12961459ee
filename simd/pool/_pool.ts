/**
 * The threads of a worker pool and the one synchronisation of a task: the
 * calling thread writes the task's chunks (each a kernel call on a run of
 * rows) into a shared control block, bumps each worker's sequence number
 * and wakes it, claims chunks itself until none is left, then waits for the
 * chunks still running. A thread the system deschedules delays the task by
 * at most the chunk it is running, not by a whole share.
 *
 * The control block is its own `SharedArrayBuffer`, not core memory: the
 * core's heap holds only what the caller's buffers own.
 *
 * @module
 */

import type { SharedCore } from "./_shared_core.ts";
import { callWith, workerError } from "./_pool_calls.ts";
import {
  ASLEEP_AT,
  CHUNK_INTS,
  CLAIM_BITS,
  HOLD_AT,
  MESSAGE_AT,
  MESSAGE_LENGTH_AT,
  MESSAGE_UNITS,
  RESULT_AT,
  SLOT_INTS,
  startWorker,
  STOP,
  TASK_AT,
  WOKEN_AT,
  type WorkerStart,
} from "./_pool_worker.ts";

/** Spins before sleeping, on both sides: a frame's systems follow each other closely. */
const SPIN = 20_000;
const MAX_ARGS = 8;
/**
 * Chunks a task may have per thread: enough that a slow thread's share is
 * taken over in pieces, and that the last chunks, cut smaller, leave
 * little to wait for at the end of a task.
 */
const CHUNKS_PER_THREAD = 8;
/**
 * A claim's chunk index while no task is open (its table being written, or
 * none out): beyond every chunk, with room below the task's number for
 * every claim a task's threads make after it.
 */
const CLOSED = 1 << (CLAIM_BITS - 1);
/** Task numbers wrap within the claim's high bits. */
const TASK_MASK = (1 << (32 - CLAIM_BITS)) - 1;

/** Whether this thread may block in `Atomics.wait` (not a browser's main thread). */
function canBlock(): boolean {
  try {
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 1, 0);
    return true;
  } catch {
    return false;
  }
}

/** One chunk of a task: its kernel arguments (undefined: no rows). */
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
  /** The number of the last task handed out (`TASK_AT`). */
  #task = 0;
  /** Where the chunk table starts, in int32s. */
  readonly #chunksAt: number;
  /** The first chunk that threw on this thread, and its error. */
  #localChunk = -1;
  #localError: unknown;
  #localChunks = 0;
  #closed = false;
  #busy = false;
  readonly #resultsOut: number[] = [];
  /** Most chunks a task has. */
  readonly maxChunks: number;

  private constructor(workers: Worker[], control: SharedArrayBuffer) {
    this.#workers = workers;
    this.threads = workers.length + 1;
    this.maxChunks = this.threads * CHUNKS_PER_THREAD;
    this.#chunksAt = this.threads * SLOT_INTS;
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
    const control = new SharedArrayBuffer(
      (threads * SLOT_INTS + threads * CHUNKS_PER_THREAD * CHUNK_INTS) * 4,
    );
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
            layout: [
              SLOT_INTS,
              MESSAGE_AT,
              MESSAGE_LENGTH_AT,
              MESSAGE_UNITS,
              STOP,
              threads * SLOT_INTS,
              CHUNK_INTS,
              RESULT_AT,
              HOLD_AT,
              ASLEEP_AT,
              WOKEN_AT,
              TASK_AT,
              CLAIM_BITS,
            ],
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
   * Runs `chunks` (calls of kernel `kernel`) on every thread, `local` being
   * the kernel on this one, and returns once every chunk is done: the
   * chunks' return values (an array the next task rewrites). The error of
   * the first chunk (in chunk order) that threw is thrown after every chunk
   * has finished.
   */
  run(kernel: number, chunks: readonly Share[], local: (...args: number[]) => number): number[] {
    this.start(kernel, chunks);
    this.claim(chunks, local);
    return this.finish(chunks);
  }

  /**
   * The first part of {@linkcode run}: publishes the chunks, wakes the
   * workers and returns at once; the workers start claiming.
   * {@linkcode claim} (optional) and {@linkcode finish} (or
   * {@linkcode finishAsync}) must follow, whatever the calling thread does
   * in between.
   */
  start(kernel: number, chunks: readonly Share[]): void {
    if (this.#busy) throw new Error("worker pool: a task is already running");
    if (chunks.length > this.maxChunks) {
      throw new RangeError(`worker pool: a task has at most ${this.maxChunks} chunks`);
    }
    let argCount = 0;
    for (let c = 0; c < chunks.length; c++) if (chunks[c]) argCount = chunks[c]!.length;
    if (argCount > MAX_ARGS) {
      throw new RangeError(`worker pool: a kernel takes at most ${MAX_ARGS} arguments here`);
    }
    this.#busy = true;
    this.#localChunk = -1;
    this.#localError = undefined;
    this.#localChunks = 0;
    const i32 = this.#i32, f64 = this.#f64;
    // Every chunk of the task before is done. A new number first: a claim
    // made in the task before, not yet checked, is now another task's.
    const task = this.#task = (this.#task + 1) & TASK_MASK;
    Atomics.store(i32, TASK_AT, task);
    Atomics.store(i32, 1, task << CLAIM_BITS | CLOSED);
    for (let c = 0; c < chunks.length; c++) {
      const args = chunks[c], at = this.#chunksAt + c * CHUNK_INTS;
      // A chunk without rows is a call on no rows.
      for (let a = 0; a < argCount; a++) f64[at / 2 + a] = args ? args[a] : 0;
      if (!args) f64[at / 2 + 1] = 0;
    }
    Atomics.store(i32, 2, chunks.length);
    i32[3] = kernel;
    i32[4] = argCount;
    for (let w = 1; w < this.threads; w++) i32[w * SLOT_INTS + 2] = 0;
    Atomics.store(i32, 0, chunks.length);
    Atomics.store(i32, 1, task << CLAIM_BITS);
    for (let w = 1; w < this.threads; w++) {
      const base = w * SLOT_INTS;
      const sequence = this.#sequence[w - 1] = this.#sequence[w - 1] % 0x7fff_fffe + 1;
      Atomics.store(i32, base, sequence);
      // A worker not marked asleep is spinning, or marks itself and then finds the new
      // sequence in its wait (both sequentially consistent): only one asleep needs the notify.
      if (Atomics.load(i32, base + ASLEEP_AT) !== 0) Atomics.notify(i32, base);
    }
  }

  /**
   * Wakes the workers ahead of a task (a frame's start: its first split
   * call comes after the frame's first systems' own work): a sleeping
   * worker takes tens to hundreds of microseconds to run again, which it
   * then spends before the task instead of in it; it spins until the task
   * comes. Nothing while a task is out or after {@linkcode close}. A worker
   * woken this way claims from the claim counter like any late worker: it
   * finds no chunk left, or whole chunks of the next task.
   */
  wake(): void {
    if (this.#busy || this.#closed) return;
    const i32 = this.#i32;
    // No task is out: the counter goes back beyond every chunk, so that wakes never add up.
    Atomics.store(i32, 1, this.#task << CLAIM_BITS | CLOSED);
    for (let w = 1; w < this.threads; w++) {
      const base = w * SLOT_INTS;
      // A spinning worker needs no wake: only one asleep is notified.
      if (Atomics.load(i32, base + ASLEEP_AT) === 0) continue;
      const sequence = this.#sequence[w - 1] = this.#sequence[w - 1] % 0x7fff_fffe + 1;
      Atomics.store(i32, base, sequence);
      Atomics.notify(i32, base);
    }
  }

  /**
   * Claims and runs chunks of the task {@linkcode start} handed out on this
   * thread, with `local` (the kernel), until none is left. An error is
   * kept for {@linkcode finish}.
   */
  claim(chunks: readonly Share[], local: (...args: number[]) => number): void {
    const i32 = this.#i32, index = (1 << CLAIM_BITS) - 1;
    // This thread claims only while its own task is out: every claim is of it.
    for (
      let c = Atomics.add(i32, 1, 1) & index;
      c < chunks.length;
      c = Atomics.add(i32, 1, 1) & index
    ) {
      const args = chunks[c];
      this.#localChunks++;
      try {
        i32[this.#chunksAt + c * CHUNK_INTS + RESULT_AT] = args ? callWith(local, args) : 0;
      } catch (error) {
        if (this.#localChunk < 0) [this.#localChunk, this.#localError] = [c, error];
      }
      Atomics.sub(i32, 0, 1);
    }
  }

  /** Chunks the calling thread ran in the last task (tests). */
  get localChunks(): number {
    return this.#localChunks;
  }

  /** Workers asleep in their wait for a task, and the times each woke from it (tests). */
  get sleeps(): { asleep: number; woken: number } {
    let asleep = 0, woken = 0;
    for (let w = 1; w < this.threads; w++) {
      asleep += Atomics.load(this.#i32, w * SLOT_INTS + ASLEEP_AT);
      woken += Atomics.load(this.#i32, w * SLOT_INTS + WOKEN_AT);
    }
    return { asleep, woken };
  }

  /**
   * Holds the workers back from claiming chunks, or lets them go (tests);
   * `afterClaim`: holds each at its next claim instead, before the claim is
   * checked against the task.
   */
  holdWorkers(held: boolean, afterClaim = false): void {
    for (let w = 1; w < this.threads; w++) {
      Atomics.store(this.#i32, w * SLOT_INTS + HOLD_AT, held ? afterClaim ? 2 : 1 : 0);
      Atomics.notify(this.#i32, w * SLOT_INTS + HOLD_AT);
    }
  }

  /** Workers held after a claim, before its check (tests: {@linkcode holdWorkers}). */
  get heldAfterClaim(): number {
    let held = 0;
    for (let w = 1; w < this.threads; w++) {
      if (Atomics.load(this.#i32, w * SLOT_INTS + HOLD_AT) === 3) held++;
    }
    return held;
  }

  /** Chunks of the last task not yet finished (tests). */
  get chunksLeft(): number {
    return Atomics.load(this.#i32, 0);
  }

  /** Waits for the chunks still running of the task {@linkcode start} handed out: see {@linkcode run}. */
  finish(chunks: readonly Share[]): number[] {
    this.#join();
    return this.#results(chunks);
  }

  /**
   * {@linkcode finish} for a thread that may not block (a browser's main
   * thread): waits with `Atomics.waitAsync` where the runtime has it, else
   * by spinning.
   */
  async finishAsync(chunks: readonly Share[]): Promise<number[]> {
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
    return this.#results(chunks);
  }

  /** The chunks' return values; the error of the first chunk that threw, on any thread. */
  #results(chunks: readonly Share[]): number[] {
    try {
      const i32 = this.#i32;
      let first = this.#localChunk < 0 ? chunks.length : this.#localChunk, slot = 0;
      for (let w = 1; w < this.threads; w++) {
        const failed = i32[w * SLOT_INTS + 2] - 1;
        if (failed >= 0 && failed < first) [first, slot] = [failed, w];
      }
      if (slot > 0) throw workerError(this.#i32, this.#u16, slot * SLOT_INTS);
      if (first < chunks.length) throw this.#localError;
      // One array for every task, rewritten: valid until the next task.
      const results = this.#resultsOut;
      for (let c = 0; c < chunks.length; c++) {
        results[c] = i32[this.#chunksAt + c * CHUNK_INTS + RESULT_AT];
      }
      results.length = chunks.length;
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
