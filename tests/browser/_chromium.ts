/**
 * Headless Chromium driven over the DevTools protocol (a WebSocket, no
 * npm driver): launch, open a page, evaluate, screenshot, close. Every
 * step has a deadline, and the browser and its temporary profile go away
 * on {@linkcode Chromium.close}.
 *
 * @module
 */

/** Launch options. */
export interface ChromiumOptions {
  /** The browser binary; default `$CHROMIUM` or `chromium` on the PATH. */
  readonly executable?: string;
  /** Deadline of each protocol command and of the launch, in ms. Default 60 s. */
  readonly timeoutMs?: number;
  /** Extra command-line flags. */
  readonly flags?: readonly string[];
}

// Without the background-networking flags Chromium keeps trying (refused)
// connections to Google services, which fill the log.
const FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--disable-default-apps",
  "--disable-extensions",
  // WebGL without a GPU: ANGLE on SwiftShader, the software renderer.
  "--use-angle=swiftshader",
  "--enable-unsafe-swiftshader",
  "--remote-debugging-address=127.0.0.1",
  "--remote-debugging-port=0",
  "--window-size=960,600",
];

type Json = Record<string, unknown>;

interface Pending {
  resolve(value: Json): void;
  reject(error: Error): void;
}

/** Rejects with a message naming `what` if `promise` has not settled within `ms`. */
export function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** A running headless Chromium. */
export class Chromium {
  readonly #process: Deno.ChildProcess;
  readonly #socket: WebSocket;
  readonly #profile: string;
  readonly #timeoutMs: number;
  readonly #pending = new Map<number, Pending>();
  readonly #listeners = new Set<(method: string, params: Json, session?: string) => void>();
  #nextId = 1;
  #closed = false;

  private constructor(process: Deno.ChildProcess, socket: WebSocket, profile: string, ms: number) {
    this.#process = process;
    this.#socket = socket;
    this.#profile = profile;
    this.#timeoutMs = ms;
    socket.onmessage = (event) => {
      const message = JSON.parse(event.data as string);
      if (message.id !== undefined) {
        const pending = this.#pending.get(message.id);
        this.#pending.delete(message.id);
        if (message.error) pending?.reject(new Error(`DevTools: ${message.error.message}`));
        else pending?.resolve(message.result);
      } else {
        for (const listener of this.#listeners) {
          listener(message.method, message.params, message.sessionId);
        }
      }
    };
    socket.onclose = () => {
      for (const pending of this.#pending.values()) {
        pending.reject(new Error("DevTools: the browser closed the connection"));
      }
      this.#pending.clear();
    };
  }

  /** Starts the browser with a new temporary profile and connects to it. */
  static async launch(options: ChromiumOptions = {}): Promise<Chromium> {
    const timeoutMs = options.timeoutMs ?? 60_000;
    const executable = options.executable ?? Deno.env.get("CHROMIUM") ?? "chromium";
    const profile = await Deno.makeTempDir({ prefix: "marrow-chromium-" });
    let process: Deno.ChildProcess;
    try {
      process = new Deno.Command(executable, {
        args: [...FLAGS, ...(options.flags ?? []), `--user-data-dir=${profile}`, "about:blank"],
        stdin: "null",
        stdout: "null",
        stderr: "piped",
      }).spawn();
    } catch (error) {
      await Deno.remove(profile, { recursive: true });
      throw new Error(
        `cannot start ${executable} (install Debian's chromium package or set $CHROMIUM): ${error}`,
      );
    }
    try {
      const url = await withTimeout(
        devtoolsUrl(process.stderr),
        timeoutMs,
        "Chromium's DevTools address",
      );
      const socket = new WebSocket(url);
      await withTimeout(
        new Promise((resolve, reject) => {
          socket.onopen = resolve;
          socket.onerror = () => reject(new Error(`cannot connect to ${url}`));
        }),
        timeoutMs,
        "DevTools connection",
      );
      return new Chromium(process, socket, profile, timeoutMs);
    } catch (error) {
      process.kill("SIGKILL");
      await process.status;
      await Deno.remove(profile, { recursive: true });
      throw error;
    }
  }

  /** Sends a protocol command (to a page when `session` is given). */
  send(method: string, params: Json = {}, session?: string): Promise<Json> {
    if (this.#closed) return Promise.reject(new Error("Chromium is closed"));
    const id = this.#nextId++;
    const answer = new Promise<Json>((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
    });
    this.#socket.send(JSON.stringify({ id, method, params, sessionId: session }));
    return withTimeout(answer, this.#timeoutMs, method);
  }

  /** Calls `listener` with every protocol event; returns a function that stops it. */
  listen(listener: (method: string, params: Json, session?: string) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Opens a new tab of `width` × `height` CSS pixels on `url`. */
  async open(url: string, width = 960, height = 600): Promise<Page> {
    const { targetId } = await this.send("Target.createTarget", { url: "about:blank" });
    const { sessionId } = await this.send("Target.attachToTarget", { targetId, flatten: true });
    const page = new Page(this, targetId as string, sessionId as string, this.#timeoutMs);
    await page.send("Runtime.enable");
    await page.send("Page.enable");
    await page.send("Emulation.setDeviceMetricsOverride", {
      width,
      height,
      deviceScaleFactor: 1,
      mobile: false,
    });
    await page.navigate(url);
    return page;
  }

  /** Closes the browser and removes its profile. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    try {
      this.#socket.close();
    } catch { /* already closed */ }
    try {
      this.#process.kill("SIGKILL");
    } catch { /* already exited */ }
    await this.#process.stderr.cancel().catch(() => {});
    await this.#process.status;
    await Deno.remove(this.#profile, { recursive: true }).catch(() => {});
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}

/** One tab. Its console messages and uncaught errors are kept in {@linkcode Page.log}. */
export class Page {
  /** Console output and uncaught exceptions of the page, in order. */
  readonly log: string[] = [];
  readonly #browser: Chromium;
  readonly #target: string;
  readonly #session: string;
  readonly #timeoutMs: number;
  readonly #stop: () => void;
  #loaded: (() => void) | undefined;

  constructor(browser: Chromium, target: string, session: string, timeoutMs: number) {
    this.#browser = browser;
    this.#target = target;
    this.#session = session;
    this.#timeoutMs = timeoutMs;
    this.#stop = browser.listen((method, params, from) => {
      if (from !== session) return;
      if (method === "Runtime.consoleAPICalled") {
        const args = params.args as { value?: unknown; description?: string }[];
        this.log.push(
          `console.${params.type}: ${args.map((a) => a.value ?? a.description).join(" ")}`,
        );
      } else if (method === "Runtime.exceptionThrown") {
        const details = params.exceptionDetails as { exception?: { description?: string } };
        this.log.push(`uncaught: ${details.exception?.description ?? JSON.stringify(details)}`);
      } else if (method === "Page.loadEventFired") this.#loaded?.();
    });
  }

  /** Sends a protocol command to this tab. */
  send(method: string, params: Json = {}): Promise<Json> {
    return this.#browser.send(method, params, this.#session);
  }

  /** Navigates and waits for the load event. */
  async navigate(url: string): Promise<void> {
    const loaded = new Promise<void>((resolve) => this.#loaded = resolve);
    const { errorText } = await this.send("Page.navigate", { url });
    if (errorText) throw new Error(`cannot open ${url}: ${errorText}`);
    await withTimeout(loaded, this.#timeoutMs, `loading ${url}`);
  }

  /**
   * Evaluates `expression` in the page (awaiting a promise) and returns its
   * value as JSON; a thrown error is rethrown with the page's stack.
   */
  async evaluate<T>(expression: string): Promise<T> {
    const { result, exceptionDetails } = await this.send("Runtime.evaluate", {
      expression,
      awaitPromise: true,
      returnByValue: true,
    }) as { result: { value: T }; exceptionDetails?: { exception?: { description?: string } } };
    if (exceptionDetails) {
      throw new Error(`in the page: ${exceptionDetails.exception?.description ?? "error"}`);
    }
    return result.value;
  }

  /** A PNG of the tab's viewport. */
  async screenshot(): Promise<Uint8Array> {
    const { data } = await this.send("Page.captureScreenshot", { format: "png" });
    return Uint8Array.from(atob(data as string), (c) => c.charCodeAt(0));
  }

  /** Closes the tab. */
  async close(): Promise<void> {
    this.#stop();
    await this.#browser.send("Target.closeTarget", { targetId: this.#target });
  }
}

/** Reads Chromium's stderr until it prints the browser's DevTools WebSocket URL. */
async function devtoolsUrl(stderr: ReadableStream<Uint8Array>): Promise<string> {
  const lines = stderr.pipeThrough(
    new TextDecoderStream() as unknown as TransformStream<Uint8Array, string>,
  ).getReader();
  let text = "";
  while (true) {
    const { value, done } = await lines.read();
    if (done) throw new Error(`Chromium exited before listening:\n${text.slice(-2000)}`);
    text += value;
    const match = text.match(/DevTools listening on (ws:\/\/\S+)/);
    if (match) {
      // Keep draining stderr so the browser never blocks on a full pipe.
      (async () => {
        try {
          while (!(await lines.read()).done) { /* discard */ }
        } catch { /* cancelled on close */ }
      })();
      return match[1];
    }
  }
}
