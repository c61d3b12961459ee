/**
 * The code a pool worker runs, and how a worker is started from it.
 *
 * The worker's code is one self-contained function turned into a blob (or
 * data) URL: nothing is fetched, so a pool starts the same whether Marrow
 * was imported from JSR, from a local checkout or from a bundle, and a
 * browser sees a same-origin worker. The worker is handed the compiled
 * shared-memory module and the shared memory, instantiates the kernels on
 * it, and then serves its slot of the control block:
 *
 * | int32 of the slot | meaning                                                |
 * | ----------------- | ------------------------------------------------------ |
 * | 0                 | sequence number: a new value is a new task             |
 * | 1                 | kernel index (into the names given at start)           |
 * | 2                 | 1 when the task threw (name, NUL, message at 32, UTF-16) |
 * | 3                 | the kernel's return value                              |
 * | 4                 | argument count                                         |
 * | 8..23             | up to 8 arguments as float64                           |
 *
 * Int32 0 of the whole block counts the tasks not yet finished; the last
 * worker to finish wakes the calling thread.
 *
 * @module
 */

/** Int32s per worker slot of the control block. */
export const SLOT_INTS = 256;
/** Int32 of a slot where its float64 arguments start. */
export const ARGS_AT = 8;
/** Int32 of a slot where an error message (UTF-16 code units) starts. */
export const MESSAGE_AT = 32;
/** Int32 of a slot holding the error message's length. */
export const MESSAGE_LENGTH_AT = 31;
/** Longest error message a slot carries, in UTF-16 code units. */
export const MESSAGE_UNITS = (SLOT_INTS - MESSAGE_AT) * 2;
/** A slot sequence number that tells its worker to stop. */
export const STOP = -1;

/** What a worker receives once, at start. */
export interface WorkerStart {
  readonly module: WebAssembly.Module;
  readonly memory: WebAssembly.Memory;
  readonly control: SharedArrayBuffer;
  readonly slot: number;
  readonly kernels: readonly string[];
  readonly layout: readonly [number, number, number, number, number, number];
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
    const [slotInts, argsAt, messageAt, messageLengthAt, messageUnits, stop] = start.layout;
    const exports = new WebAssembly.Instance(start.module, { env: { memory: start.memory } })
      .exports as Record<string, (...args: number[]) => number | undefined>;
    const kernels = start.kernels.map((name) => exports[name]);
    const i32 = new Int32Array(start.control);
    const f64 = new Float64Array(start.control);
    const u16 = new Uint16Array(start.control);
    const base = start.slot * slotInts;
    const args: number[] = [];
    scope.postMessage("ready");
    let seen = 0;
    for (;;) {
      // A short spin catches the next system's task without a sleep and wake.
      for (let i = 0; i < start.spin && Atomics.load(i32, base) === seen; i++);
      Atomics.wait(i32, base, seen);
      const sequence = Atomics.load(i32, base);
      if (sequence === seen) continue;
      if (sequence === stop) break;
      seen = sequence;
      try {
        args.length = i32[base + 4];
        for (let a = 0; a < args.length; a++) args[a] = f64[(base + argsAt) / 2 + a];
        i32[base + 3] = kernels[i32[base + 1]](...args) ?? 0;
        i32[base + 2] = 0;
      } catch (error) {
        // The error's name, a NUL, its message: the caller rebuilds the same type.
        const text =
          (error instanceof Error ? `${error.name}\u0000${error.message}` : String(error))
            .slice(0, messageUnits);
        for (let c = 0; c < text.length; c++) u16[(base + messageAt) * 2 + c] = text.charCodeAt(c);
        i32[base + messageLengthAt] = text.length;
        i32[base + 2] = 1;
      }
      if (Atomics.sub(i32, 0, 1) === 1) Atomics.notify(i32, 0);
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
