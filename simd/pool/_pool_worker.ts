/**
 * The code a pool worker runs, and how a worker is started from it.
 *
 * The worker's code is one self-contained function turned into a blob (or
 * data) URL: nothing is fetched, so a pool starts the same whether Marrow
 * was imported from JSR, from a local checkout or from a bundle, and a
 * browser sees a same-origin worker. The worker is handed the compiled
 * shared-memory module and the shared memory, instantiates the kernels on
 * it, and then serves its slot of the control block. A task is a table of
 * chunks (each one call of the task's kernel on a contiguous run of rows)
 * that every thread, the calling thread included, claims one at a time by
 * bumping a shared counter until none is left: a thread the system
 * deschedules leaves its chunks to the others.
 *
 * | int32 of slot 0 (the calling thread's) | meaning                     |
 * | -------------------------------------- | --------------------------- |
 * | 0                                      | chunks not yet finished     |
 * | 1                                      | claims: the task's number × 2^CLAIM_BITS + the next chunk to claim |
 * | 2                                      | chunk count                 |
 * | 3                                      | kernel index (into the names given at start) |
 * | 4                                      | argument count              |
 * | 5                                      | the task's number (`TASK_AT`) |
 *
 * | int32 of a worker's slot | meaning                                      |
 * | ------------------------ | -------------------------------------------- |
 * | 0                        | sequence number: a new value is a new task   |
 * | 2                        | 1 + the first chunk that threw, 0 if none (name, NUL, message at 32, UTF-16) |
 * | 5                        | tests: 1 holds the worker back before it claims; 2 after its next claim, before the claim's check (3 while held there) |
 * | 6                        | 1 while the worker sleeps (or is about to)    |
 * | 7                        | times the worker woke from its sleep (tests)  |
 *
 * Chunk `c`'s up to 8 float64 arguments start at int32 `chunksAt + c *
 * CHUNK_INTS`, its return value at int32 16 of the chunk. The thread that
 * finishes the last chunk wakes the calling thread.
 *
 * @module
 */

/** Int32s per worker slot of the control block. */
export const SLOT_INTS = 256;
/** Int32 of a slot where an error message (UTF-16 code units) starts. */
export const MESSAGE_AT = 32;
/** Int32 of a slot holding the error message's length. */
export const MESSAGE_LENGTH_AT = 31;
/** Longest error message a slot carries, in UTF-16 code units. */
export const MESSAGE_UNITS = (SLOT_INTS - MESSAGE_AT) * 2;
/** A slot sequence number that tells its worker to stop. */
export const STOP = -1;
/**
 * Int32s per chunk of the chunk table: 8 float64 arguments (a cache line
 * the threads only read), then the return value on a line of its own (the
 * thread that ran the chunk writes it): no line is written by one thread
 * while another reads its neighbour's arguments.
 */
export const CHUNK_INTS = 32;
/** Int32 of a chunk holding its kernel's return value. */
export const RESULT_AT = 16;
/** Int32 of a worker's slot that holds it back (tests only). */
export const HOLD_AT = 5;
/** Int32 of a worker's slot that is 1 while the worker sleeps: a wake ahead of a task is sent only then. */
export const ASLEEP_AT = 6;
/** Int32 of a worker's slot counting the times it woke from its sleep (tests). */
export const WOKEN_AT = 7;
/**
 * Int32 of slot 0 holding the task's number. A claim carries the number of
 * the task it was made in: a thread that claimed after a task ended (the
 * claim beyond its chunks) and was descheduled before it read the chunk
 * count could otherwise take the index for a chunk of the next task, which
 * another thread claims too, and the count of chunks left would never come
 * back to 0. It is its task's only while that number is still the task's.
 */
export const TASK_AT = 5;
/** Low bits of a claim: the chunk index; the high bits are the task's number (mod 2^21). */
export const CLAIM_BITS = 11;

/** What a worker receives once, at start. */
export interface WorkerStart {
  readonly module: WebAssembly.Module;
  readonly memory: WebAssembly.Memory;
  readonly control: SharedArrayBuffer;
  readonly slot: number;
  readonly kernels: readonly string[];
  /** Slot ints, message at, message length at, message units, stop, chunks at, chunk ints, result at, hold at, asleep at, woken at, task at, claim bits. */
  readonly layout: readonly number[];
  readonly spin: number;
}

/** The worker's whole program. Self-contained: it is run from its source text. */
function workerMain(): void {
  const scope = self as unknown as {
    onmessage: ((event: MessageEvent) => void) | null;
    postMessage(message: unknown): void;
    close(): void;
  };
  scope.onmessage = (event: MessageEvent) => {
    scope.onmessage = null;
    const start = event.data as WorkerStart;
    const [
      slotInts,
      messageAt,
      messageLengthAt,
      messageUnits,
      stop,
      chunksAt,
      chunkInts,
      resultAt,
      holdAt,
      asleepAt,
      wokenAt,
      taskAt,
      claimBits,
    ] = start.layout;
    const exports = new WebAssembly.Instance(start.module, { env: { memory: start.memory } })
      .exports as Record<string, (...args: number[]) => number | undefined>;
    const kernels = start.kernels.map((name) => exports[name]);
    const i32 = new Int32Array(start.control);
    const f64 = new Float64Array(start.control);
    const u16 = new Uint16Array(start.control);
    const base = start.slot * slotInts;
    const args: number[] = [];
    // Each kernel's arguments as passed last time, kept while their bits
    // stay the same (compared as 16-bit words, which no tier boxes): a float
    // argument read from the Float64Array (a scan's limit, Infinity or 1e18)
    // is a new heap number whenever this loop runs unoptimized, which it does
    // for a while after each deoptimization (a kernel or path not seen
    // before); one kernel's limit never changes. Starts tagged, so that the
    // array keeps tagged elements.
    const held: unknown[] = new Array(kernels.length * 8).fill(null);
    const heldBits = new Uint16Array(kernels.length * 32);
    scope.postMessage("ready");
    let seen = 0;
    for (;;) {
      // A short spin catches the next system's task without a sleep and wake.
      for (let i = 0; i < start.spin && Atomics.load(i32, base) === seen; i++);
      // Marked asleep before the wait: a wake sent once the mark is seen finds the worker
      // waiting, or changes the sequence first so that the wait returns at once.
      Atomics.store(i32, base + asleepAt, 1);
      Atomics.wait(i32, base, seen);
      Atomics.store(i32, base + asleepAt, 0);
      Atomics.add(i32, base + wokenAt, 1);
      const sequence = Atomics.load(i32, base);
      if (sequence === seen) continue;
      if (sequence === stop) break;
      seen = sequence;
      while (Atomics.load(i32, base + holdAt) === 1) Atomics.wait(i32, base + holdAt, 1);
      // The chunk is claimed before the task is read: a worker woken late
      // claims nothing of a finished task and whole chunks of the next one.
      // The count is read before the task's number (`TASK_AT`), which a new
      // task changes before its count: a claim is a chunk of the task it
      // was made in, or nothing.
      for (;;) {
        const claim = Atomics.add(i32, 1, 1), chunk = claim & ((1 << claimBits) - 1);
        // Tests: held between its claim and the claim's check (2), saying so (3).
        if (
          Atomics.load(i32, base + holdAt) === 2 &&
          Atomics.compareExchange(i32, base + holdAt, 2, 3) === 2
        ) {
          while (Atomics.load(i32, base + holdAt) === 3) Atomics.wait(i32, base + holdAt, 3);
        }
        if (chunk >= Atomics.load(i32, 2) || claim >>> claimBits !== Atomics.load(i32, taskAt)) {
          break;
        }
        const at = chunksAt + chunk * chunkInts;
        try {
          // The task's arguments passed as they are, no spread: a call of
          // the kernel's own arity allocates nothing.
          const k = i32[3], kernel = kernels[k], n = i32[4], f = at / 2, h = k * 8;
          for (let a = 0; a < n && a < 8; a++) {
            const bits = (h + a) * 4, word = (f + a) * 4;
            if (
              held[h + a] === null || heldBits[bits] !== u16[word] ||
              heldBits[bits + 1] !== u16[word + 1] || heldBits[bits + 2] !== u16[word + 2] ||
              heldBits[bits + 3] !== u16[word + 3]
            ) {
              held[h + a] = f64[f + a];
              for (let w = 0; w < 4; w++) heldBits[bits + w] = u16[word + w];
            }
          }
          const a0 = held[h] as number, a1 = held[h + 1] as number;
          let result: number | undefined;
          if (n === 2) result = kernel(a0, a1);
          else if (n === 3) result = kernel(a0, a1, held[h + 2] as number);
          else if (n === 4) result = kernel(a0, a1, held[h + 2] as number, held[h + 3] as number);
          else {
            args.length = n;
            for (let a = 0; a < n; a++) args[a] = f64[f + a];
            result = kernel(...args);
          }
          i32[at + resultAt] = result ?? 0;
        } catch (error) {
          // Chunks are claimed in increasing order: the first error is this worker's lowest.
          if (i32[base + 2] === 0) {
            // The error's name, a NUL, its message: the caller rebuilds the same type.
            const text =
              (error instanceof Error ? `${error.name}\u0000${error.message}` : String(error))
                .slice(0, messageUnits);
            for (let c = 0; c < text.length; c++) {
              u16[(base + messageAt) * 2 + c] = text.charCodeAt(c);
            }
            i32[base + messageLengthAt] = text.length;
            i32[base + 2] = chunk + 1;
          }
        }
        if (Atomics.sub(i32, 0, 1) === 1) Atomics.notify(i32, 0);
      }
    }
    scope.close();
  };
}

/**
 * Starts a worker running {@linkcode workerMain}, without fetching anything;
 * `url` may be revoked once the worker has answered.
 */
export function startWorker(): { worker: Worker; url: string } {
  const source = `(${workerMain.toString()})();\n`;
  const url = typeof URL.createObjectURL === "function" && typeof Blob === "function"
    ? URL.createObjectURL(new Blob([source], { type: "text/javascript" }))
    : `data:text/javascript,${encodeURIComponent(source)}`;
  return { worker: new Worker(url, { type: "module" }), url };
}
