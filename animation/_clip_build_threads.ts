/**
 * The worker threads that build clips (`clip_build_worker.ts`), started when
 * work comes and stopped when it has been idle a while, so that a process
 * with nothing else to do exits. Each worker builds one clip at a time and
 * takes the next queued one when it replies: a long clip does not hold up
 * the short ones behind it.
 *
 * @module
 */

import type { BuildReply, BuildRequest } from "./_clip_build_messages.ts";

/** One clip's build, queued or running. */
export interface BuildJob {
  readonly request: Omit<BuildRequest, "id">;
  /** The request's buffers, moved to the worker (copies the caller made for it). */
  readonly transfer: readonly ArrayBuffer[];
  /** Called once: with the clip's compact clip file, or the worker's failure. */
  readonly settle: (outcome: { file: Uint8Array } | { failure: BuildFailure }) => void;
}

/** Why a job has no file: the build threw on the worker, the worker failed, or the threads were closed. */
export interface BuildFailure {
  readonly reason: "build" | "worker" | "closed";
  readonly name: string;
  readonly message: string;
}

interface Thread {
  readonly worker: Worker;
  job: { id: number; job: BuildJob } | undefined;
}

/** Worker threads building clips, at most `size` at once. */
export class ClipBuildThreads {
  readonly size: number;
  readonly #moduleUrl: string | URL;
  readonly #idleMilliseconds: number;
  readonly #threads: Thread[] = [];
  readonly #queue: BuildJob[] = [];
  #nextId = 1;
  #idleTimer: ReturnType<typeof setTimeout> | undefined;
  #closed = false;
  /** Workers started since creation (tests). */
  started = 0;

  constructor(size: number, moduleUrl: string | URL, idleMilliseconds: number) {
    this.size = size;
    this.#moduleUrl = moduleUrl;
    this.#idleMilliseconds = idleMilliseconds;
  }

  /** Whether {@linkcode close} was called. */
  get closed(): boolean {
    return this.#closed;
  }

  /** Workers running now (started and not yet stopped). */
  get running(): number {
    return this.#threads.length;
  }

  /** Queues `job`; it settles once, whatever happens. */
  add(job: BuildJob): void {
    if (this.#closed) {
      job.settle({ failure: closedFailure() });
      return;
    }
    this.#queue.push(job);
    this.#pump();
  }

  /** Drops `jobs` not yet started (their preparation no longer wants them). */
  drop(jobs: ReadonlySet<BuildJob>): void {
    for (let i = this.#queue.length - 1; i >= 0; i--) {
      if (jobs.has(this.#queue[i])) this.#queue.splice(i, 1);
    }
  }

  /** Stops every worker now; queued and running jobs fail as closed. Idempotent. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    clearTimeout(this.#idleTimer);
    const jobs = [...this.#queue, ...this.#threads.flatMap((t) => t.job ? [t.job.job] : [])];
    this.#queue.length = 0;
    for (const thread of this.#threads.splice(0)) thread.worker.terminate();
    for (const job of jobs) job.settle({ failure: closedFailure() });
  }

  #pump(): void {
    clearTimeout(this.#idleTimer);
    this.#idleTimer = undefined;
    while (this.#queue.length > 0) {
      let thread = this.#threads.find((t) => t.job === undefined);
      if (!thread && this.#threads.length < this.size) {
        try {
          thread = this.#start();
        } catch (error) {
          // A URL the runtime refuses: the job fails as a worker that could not start.
          const message = error instanceof Error ? error.message : String(error);
          this.#queue.shift()!.settle({
            failure: {
              reason: "worker",
              name: "Error",
              message: `a clip build worker could not be created: ${message}`,
            },
          });
          continue;
        }
      }
      if (!thread) break;
      const job = this.#queue.shift()!, id = this.#nextId++;
      thread.job = { id, job };
      const request: BuildRequest = { ...job.request, id };
      thread.worker.postMessage(request, [...job.transfer]);
    }
    if (this.#threads.every((t) => t.job === undefined) && this.#threads.length > 0) {
      this.#idleTimer = setTimeout(() => this.#stopIdle(), this.#idleMilliseconds);
    }
  }

  #start(): Thread {
    const worker = new Worker(this.#moduleUrl, { type: "module" });
    this.started++;
    const thread: Thread = { worker, job: undefined };
    worker.onmessage = (event: MessageEvent<BuildReply>) => {
      const reply = event.data, running = thread.job;
      if (!running || running.id !== reply.id) return;
      thread.job = undefined;
      running.job.settle(
        "file" in reply ? { file: reply.file } : {
          failure: { reason: "build", name: reply.errorName, message: reply.errorMessage },
        },
      );
      this.#pump();
    };
    const fail = (message: string) => {
      const index = this.#threads.indexOf(thread);
      if (index >= 0) this.#threads.splice(index, 1);
      worker.terminate();
      const running = thread.job;
      thread.job = undefined;
      running?.job.settle({ failure: { reason: "worker", name: "Error", message } });
      this.#pump();
    };
    worker.onerror = (event: ErrorEvent) => {
      event.preventDefault();
      fail(`a clip build worker failed: ${event.message || "it could not start"}`);
    };
    worker.onmessageerror = () => fail("a clip build worker's reply could not be read");
    this.#threads.push(thread);
    return thread;
  }

  #stopIdle(): void {
    this.#idleTimer = undefined;
    for (let i = this.#threads.length - 1; i >= 0; i--) {
      if (this.#threads[i].job !== undefined) continue;
      this.#threads[i].worker.terminate();
      this.#threads.splice(i, 1);
    }
  }
}

function closedFailure(): BuildFailure {
  return { reason: "closed", name: "Error", message: "the clip workers were closed" };
}
