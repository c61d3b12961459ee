/**
 * A small static server for the web demo and the browser tests: fixed
 * routes only (no file system browsing), bound to 127.0.0.1, optionally
 * cross-origin isolated, optionally stopping by itself; and the bundler
 * that turns a TypeScript entry (with its npm dependencies) into one
 * browser script.
 *
 * @module
 */

/** One response body and its media type. */
export interface Asset {
  readonly body: Uint8Array<ArrayBuffer> | string;
  readonly type: string;
}

/** Request path (`/main.js`) to the asset served there. */
export type Routes = Map<string, () => Asset | Promise<Asset>>;

/** Options of {@linkcode serveRoutes}. */
export interface ServeOptions {
  /** TCP port on 127.0.0.1; 0 (default) takes a free one. */
  readonly port?: number;
  /**
   * Sends `Cross-Origin-Opener-Policy: same-origin` and
   * `Cross-Origin-Embedder-Policy: require-corp`, which make the page
   * `crossOriginIsolated` (needed for SharedArrayBuffer). Default true.
   */
  readonly crossOriginIsolated?: boolean;
  /** Stops the server after this many milliseconds (a bound for tests). */
  readonly lifetimeMs?: number;
  /** Logs each request to the console. Default false. */
  readonly log?: boolean;
}

/** A running server. */
export interface Served {
  /** Its origin, `http://127.0.0.1:<port>`. */
  readonly origin: string;
  /** Stops it and waits until it has stopped. */
  close(): Promise<void>;
}

export const JS = "text/javascript; charset=utf-8";
export const HTML = "text/html; charset=utf-8";
export const GLB = "model/gltf-binary";

/** The headers that make a page cross-origin isolated, as a page needs them. */
export const ISOLATION_HEADERS: Readonly<Record<string, string>> = {
  "Cross-Origin-Opener-Policy": "same-origin",
  "Cross-Origin-Embedder-Policy": "require-corp",
};

/** Serves `routes` on 127.0.0.1 until closed (or `lifetimeMs` elapses). */
export function serveRoutes(routes: Routes, options: ServeOptions = {}): Served {
  const isolated = options.crossOriginIsolated ?? true;
  const stop = new AbortController();
  const server = Deno.serve({
    hostname: "127.0.0.1",
    port: options.port ?? 0,
    signal: stop.signal,
    onListen: () => {},
  }, async (request) => {
    const path = new URL(request.url).pathname;
    const route = routes.get(path === "/" ? "/index.html" : path);
    if (options.log) console.log(`${request.method} ${path} ${route ? 200 : 404}`);
    const headers = new Headers({ "Cache-Control": "no-store" });
    if (isolated) {
      for (const [name, value] of Object.entries(ISOLATION_HEADERS)) headers.set(name, value);
      headers.set("Cross-Origin-Resource-Policy", "same-origin");
    }
    if (!route || (request.method !== "GET" && request.method !== "HEAD")) {
      return new Response("not found", { status: 404, headers });
    }
    try {
      const asset = await route();
      headers.set("Content-Type", asset.type);
      return new Response(request.method === "HEAD" ? null : asset.body, { headers });
    } catch (error) {
      console.error(`${path}: ${error instanceof Error ? error.message : error}`);
      return new Response("server error", { status: 500, headers });
    }
  });
  const timer = options.lifetimeMs === undefined
    ? undefined
    : setTimeout(() => stop.abort(), options.lifetimeMs);
  return {
    origin: `http://127.0.0.1:${server.addr.port}`,
    close: async () => {
      clearTimeout(timer);
      stop.abort();
      await server.finished;
    },
  };
}

/**
 * Bundles the module at `entry` and everything it imports (npm packages
 * included) into one ES module for browsers, with `deno bundle`.
 */
export async function bundle(entry: URL): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "marrow-bundle-" });
  try {
    const out = `${dir}/bundle.js`;
    const { code, stderr } = await new Deno.Command(Deno.execPath(), {
      args: [
        "bundle",
        "--quiet",
        // three and the other development imports live in the development map.
        `--import-map=${new URL("../../import_map.dev.json", import.meta.url).pathname}`,
        "--platform=browser",
        "--format=esm",
        "-o",
        out,
        entry.href,
      ],
      stdin: "null",
      stdout: "null",
      stderr: "piped",
      env: { NO_COLOR: "1" },
    }).output();
    if (code !== 0) {
      throw new Error(`deno bundle ${entry.pathname} failed:\n${new TextDecoder().decode(stderr)}`);
    }
    return await Deno.readTextFile(out);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** A route that reads `file` on each request. */
export function fileRoute(file: URL, type: string): () => Promise<Asset> {
  return async () => ({ body: await Deno.readFile(file), type });
}
