/**
 * Where a model's bytes come from: a path or `file:` URL (the runtime's file
 * API: Deno, or `node:fs/promises` on Node, feature-detected), an `http(s):`
 * URL (`fetch`), or the caller's `readFile`. Every reader is bounded by the
 * file limit and reads a sibling only inside the model's folder.
 *
 * @module
 */

import { ReadRefusal, siblingUrl } from "./_confine.ts";
import { messageOf } from "./_context.ts";
import type { UriResolver } from "./types.ts";

/** Reads one file by URL; `folder`, when given, is the folder it must stay in. */
type Reader = (url: URL, limit: number, folder?: URL) => Promise<Uint8Array>;

/** The file API of the runtime, reduced to what a bounded, confined read needs. */
interface FileSystem {
  readonly separator: string;
  realPath(path: string): Promise<string>;
  /** Regular file or not, and size, of `path` without opening it. */
  stat(path: string): Promise<{ isFile: boolean; size: number }>;
  /** Opens `path`, checks it again through the handle and reads at most `limit` bytes. */
  readRegular(path: string, limit: number): Promise<Uint8Array>;
  cwd(): string;
  windows: boolean;
}

interface DenoLike {
  realPath(path: string): Promise<string>;
  stat(path: string): Promise<{ isFile: boolean; size: number }>;
  open(path: string): Promise<{
    stat(): Promise<{ isFile: boolean; size: number }>;
    read(buffer: Uint8Array): Promise<number | null>;
    close(): void;
  }>;
  cwd(): string;
  build: { os: string };
}

function denoFileSystem(deno: DenoLike): FileSystem {
  return {
    separator: deno.build.os === "windows" ? "\\" : "/",
    windows: deno.build.os === "windows",
    realPath: (path) => deno.realPath(path),
    stat: (path) => deno.stat(path),
    cwd: () => deno.cwd(),
    async readRegular(path, limit) {
      const file = await deno.open(path);
      try {
        const { isFile, size } = await file.stat();
        const bytes = new Uint8Array(checkedSize(isFile, size, limit));
        let filled = 0;
        while (filled < bytes.length) {
          const n = await file.read(bytes.subarray(filled));
          if (n === null) break;
          filled += n;
        }
        return bytes.subarray(0, filled);
      } finally {
        file.close();
      }
    },
  };
}

interface NodeProcess {
  versions: { node?: string };
  platform: string;
  cwd(): string;
}

async function nodeFileSystem(process: NodeProcess): Promise<FileSystem> {
  const fs = await import("node:fs/promises");
  const windows = process.platform === "win32";
  return {
    separator: windows ? "\\" : "/",
    windows,
    realPath: (path) => fs.realpath(path),
    stat: async (path) => {
      const info = await fs.stat(path);
      return { isFile: info.isFile(), size: info.size };
    },
    cwd: () => process.cwd(),
    async readRegular(path, limit) {
      const handle = await fs.open(path, "r");
      try {
        const info = await handle.stat();
        const bytes = new Uint8Array(checkedSize(info.isFile(), info.size, limit));
        let filled = 0;
        while (filled < bytes.length) {
          const { bytesRead } = await handle.read(bytes, filled, bytes.length - filled, null);
          if (bytesRead === 0) break;
          filled += bytesRead;
        }
        return bytes.subarray(0, filled);
      } finally {
        await handle.close();
      }
    },
  };
}

function checkedSize(isFile: boolean, size: number, limit: number): number {
  if (!isFile) throw new ReadRefusal("it is not a regular file");
  if (size > limit) {
    throw new ReadRefusal(`it has ${size} bytes, beyond limits.maxFileBytes (${limit})`);
  }
  return size;
}

/** The runtime's file system, or undefined in a browser. */
async function fileSystem(): Promise<FileSystem | undefined> {
  const global = globalThis as { Deno?: DenoLike; process?: NodeProcess };
  if (global.Deno?.realPath) return denoFileSystem(global.Deno);
  if (global.process?.versions?.node) return await nodeFileSystem(global.process);
  return undefined;
}

function reasonOf(e: unknown): string {
  if (e instanceof ReadRefusal) return e.message;
  const code = (e as { code?: string })?.code, name = (e as { name?: string })?.name;
  if (code === "ENOENT" || name === "NotFound") return "no such file";
  if (code === "EACCES" || name === "PermissionDenied") return "permission denied";
  return messageOf(e);
}

/** `path` of a `file:` URL, decoded, for the runtime's file API. */
function pathOf(url: URL, fs: FileSystem): string {
  const path = decodeURIComponent(url.pathname);
  return fs.windows ? path.replace(/^\/([a-z]:)/i, "$1").replaceAll("/", "\\") : path;
}

/** A `file:` URL for `path` (relative to the working directory). */
function fileUrlOf(path: string, fs: FileSystem): URL {
  const slashes = (p: string) => fs.windows ? p.replaceAll("\\", "/") : p;
  let absolute = slashes(path);
  if (!absolute.startsWith("/") && !(fs.windows && /^[a-z]:\//i.test(absolute))) {
    absolute = `${slashes(fs.cwd())}/${absolute}`;
  }
  const url = new URL("file://");
  // The pathname setter percent-encodes spaces and the like, but not "%".
  url.pathname = (absolute.startsWith("/") ? "" : "/") + absolute.replaceAll("%", "%25");
  return url;
}

function fileReader(fs: FileSystem): Reader {
  return async (url, limit, folder) => {
    const path = pathOf(url, fs);
    const real = await fs.realPath(path);
    if (folder) {
      const root = await fs.realPath(pathOf(folder, fs));
      const prefix = root.endsWith(fs.separator) ? root : root + fs.separator;
      if (!real.startsWith(prefix)) {
        throw new ReadRefusal("it resolves (through a link) outside the model's folder");
      }
    }
    // Stat before opening: opening a FIFO would block, a device never ends.
    const { isFile, size } = await fs.stat(real);
    checkedSize(isFile, size, limit);
    return await fs.readRegular(real, limit);
  };
}

/** A reader over the caller's `readFile`, bounded after the fact. */
function callerReader(readFile: (url: URL) => Promise<Uint8Array>): Reader {
  return async (url, limit) => {
    const bytes = await readFile(url);
    if (!(bytes instanceof Uint8Array)) throw new ReadRefusal("readFile did not return bytes");
    if (bytes.byteLength > limit) {
      throw new ReadRefusal(
        `it has ${bytes.byteLength} bytes, beyond limits.maxFileBytes (${limit})`,
      );
    }
    return bytes;
  };
}

function fetchReader(): Reader {
  return async (url, limit, folder) => {
    if (typeof globalThis.fetch !== "function") throw new ReadRefusal("this runtime has no fetch");
    // A sibling must not be redirected out of the model's folder.
    const response = await fetch(url, { redirect: folder ? "error" : "follow" });
    if (!response.ok) {
      await response.body?.cancel();
      throw new ReadRefusal(`the server answered ${response.status} ${response.statusText}`);
    }
    const declared = Number(response.headers.get("content-length") ?? NaN);
    if (declared > limit) {
      await response.body?.cancel();
      throw new ReadRefusal(`it has ${declared} bytes, beyond limits.maxFileBytes (${limit})`);
    }
    const chunks: Uint8Array[] = [];
    let total = 0;
    if (!response.body) return new Uint8Array(0);
    const reader = response.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > limit) {
        await reader.cancel();
        throw new ReadRefusal(`it has more than limits.maxFileBytes (${limit}) bytes`);
      }
      chunks.push(value);
    }
    const bytes = new Uint8Array(total);
    let at = 0;
    for (const chunk of chunks) bytes.set(chunk, (at += chunk.byteLength) - chunk.byteLength);
    return bytes;
  };
}

/** The model's bytes and the reader of its siblings. */
interface OpenedSource {
  readonly bytes: Uint8Array;
  readonly resolveUri: UriResolver;
}

/**
 * Opens a path, `file:` or `http(s):` URL. Fails with a {@linkcode ReadRefusal}
 * whose message says what was tried.
 */
export async function openSource(
  input: string | URL,
  limit: number,
  readFile: ((url: URL) => Promise<Uint8Array>) | undefined,
  resolveUri: UriResolver | undefined,
): Promise<OpenedSource> {
  const fs = await fileSystem();
  let url: URL;
  if (input instanceof URL) url = input;
  else if (/^[a-z][a-z0-9+.-]+:/i.test(input)) {
    try {
      url = new URL(input);
    } catch {
      throw new ReadRefusal(`"${input}" is not a valid URL`);
    }
  } else if (fs) url = fileUrlOf(input, fs);
  else if (readFile) url = new URL(input.replaceAll("%", "%25"), "file:///");
  else {
    throw new ReadRefusal(
      `"${input}" is a file path, and this runtime has no file system: pass a URL, the bytes, or readFile`,
    );
  }
  let read: Reader;
  if (url.protocol === "file:") {
    if (readFile) read = callerReader(readFile);
    else if (fs) read = fileReader(fs);
    else {
      throw new ReadRefusal(
        `cannot read ${url.href}: this runtime has no file system (pass readFile or the bytes)`,
      );
    }
  } else if (url.protocol === "http:" || url.protocol === "https:") read = fetchReader();
  else {throw new ReadRefusal(
      `cannot read ${url.href}: only paths, file: and http(s): URLs are read`,
    );}
  const shown = (target: URL) =>
    target.protocol === "file:" && fs ? pathOf(target, fs) : target.href;
  let bytes: Uint8Array;
  try {
    bytes = await read(url, limit);
  } catch (e) {
    throw new ReadRefusal(`cannot read ${shown(url)}: ${reasonOf(e)}`);
  }
  const folder = new URL(".", url);
  return {
    bytes,
    resolveUri: resolveUri ?? (async (uri) => {
      let target: URL;
      try {
        target = siblingUrl(url, uri);
      } catch (e) {
        throw new ReadRefusal(`${reasonOf(e)}, so it was not read`);
      }
      try {
        return await read(target, limit, folder);
      } catch (e) {
        throw new ReadRefusal(`tried ${shown(target)}: ${reasonOf(e)}`);
      }
    }),
  };
}
