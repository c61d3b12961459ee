/**
 * Compiles the AssemblyScript core in `simd/wasm/assembly/` four times (plain
 * SIMD128 and with relaxed-SIMD FMA, each on its own memory and on an
 * imported shared memory for worker threads) and writes
 * `simd/wasm/_wasm.generated.ts`, which embeds them together with a hash of
 * the sources, the compiler and the flags (`SOURCE_HASH`). The plain SIMD
 * build is embedded whole, the others as deltas (`_delta.ts`) from the build
 * they differ least from, each compressed (LZMA, by the `lzma` package: the
 * `.lzma` format, base64) and in a constant of its own, so that a bundle
 * carries about one build's bytes (`_embedded.ts` decodes them).
 *
 * `deno task build:wasm` writes the module. `--check` (the `check` task)
 * hashes the sources, compiler and flags and compares the hash with the
 * embedded `SOURCE_HASH`: equal, the bytes are what those sources compiled
 * to and nothing is compiled (well under a second); different (a source
 * changed without a rebuild), or the development import map names another
 * compiler, it rebuilds in memory and exits non-zero when the embedded bytes
 * are not what the sources compile to. `--check --full` (or env
 * `MARROW_WASM_CHECK=full`) always rebuilds and compares the bytes, which
 * also catches a hand edit of the generated file (4 builds, 1-2 minutes).
 * The comparison is of each build's decoded bytes, so another encoder's
 * equally valid compression is no mismatch.
 *
 * @module
 */

import { encodeDelta } from "./_delta.ts";
import { type EmbeddedWasm, wasmBytes } from "./_embedded.ts";

const COMPILER = "assemblyscript@0.28.20";
/** How the builds are embedded, in the hash: a new layout is a rebuild. */
const EMBEDDING = "lzma@2.3.2 mode 9, deltas";
const root = new URL("./", import.meta.url);
const sourceDir = new URL("assembly/", root);
const target = new URL("_wasm.generated.ts", root);

const COMMON_FLAGS = [
  "-O3",
  "--runtime",
  "stub",
  "--noAssert",
  "--use",
  "abort=",
  // One page, not zero: with a zero minimum V8 adds a memory-size check per
  // distinct load offset (3-7% on skinning).
  "--initialMemory",
  "1",
  // A maximum lets the runtime expose the memory as a resizable buffer.
  "--maximumMemory",
  "65536",
  "--enable",
  "simd",
];

/**
 * The shared-memory builds import their memory (declared shared, so that
 * every worker instantiates the same kernels on the same memory); the
 * kernels are the same source, so a row's output does not depend on which
 * thread computed it.
 */
const SHARED_FLAGS = ["--enable", "threads", "--importMemory", "--sharedMemory"] as const;

/** A build's flags, and the build it is embedded as a delta from. */
interface BuildSpec {
  readonly flags: readonly string[];
  readonly base?: string;
}

const BUILDS = {
  SIMD_WASM: { flags: [] },
  RELAXED_SIMD_WASM: { flags: ["--enable", "relaxed-simd"], base: "SIMD_WASM" },
  SHARED_SIMD_WASM: { flags: SHARED_FLAGS, base: "SIMD_WASM" },
  SHARED_RELAXED_SIMD_WASM: {
    flags: ["--enable", "relaxed-simd", ...SHARED_FLAGS],
    base: "RELAXED_SIMD_WASM",
  },
} as const satisfies Record<string, BuildSpec>;

type BuildName = keyof typeof BUILDS;

async function sources(): Promise<[string, string][]> {
  const files: [string, string][] = [];
  for await (const entry of Deno.readDir(sourceDir)) {
    if (entry.isFile && entry.name.endsWith(".ts")) {
      files.push([
        entry.name,
        await Deno.readTextFile(new URL(entry.name, sourceDir)),
      ]);
    }
  }
  return files.sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0);
}

async function compile(extraFlags: readonly string[]): Promise<Uint8Array> {
  // Loaded only to compile: the hash check needs no compiler.
  const { default: asc } = await import("assemblyscript/asc");
  let wasm: Uint8Array | undefined;
  const { error, stderr } = await asc.main([
    new URL("index.ts", sourceDir).pathname,
    ...COMMON_FLAGS,
    ...extraFlags,
    "--outFile",
    "core.wasm",
  ], {
    writeFile(name: string, contents: Uint8Array | string) {
      if (name.endsWith("core.wasm") && typeof contents !== "string") {
        wasm = contents;
      }
    },
  });
  if (error || !wasm) {
    throw new Error(`asc failed: ${error?.message}\n${stderr.toString()}`);
  }
  return wasm;
}

/** `bytes` in the `.lzma` format, at the `lzma` package's strongest setting. */
async function compress(bytes: Uint8Array): Promise<Uint8Array> {
  // Loaded only to build: the hash check needs no encoder.
  const { default: lzma } = await import("lzma");
  return Uint8Array.from(lzma.compress(bytes, 9) as number[], (b) => b & 255);
}

function base64(bytes: Uint8Array): string {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary);
}

async function sha256(text: string): Promise<string> {
  const digest = await crypto.subtle.digest(
    "SHA-256",
    new TextEncoder().encode(text),
  );
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0"))
    .join("");
}

/** SHA-256 of the sources, the compiler and the flags: the generated file's `SOURCE_HASH`. */
async function sourceHash(files: [string, string][]): Promise<string> {
  return await sha256(
    JSON.stringify({ compiler: COMPILER, EMBEDDING, COMMON_FLAGS, BUILDS, files }),
  );
}

/** Each build's description in the generated file. */
function describe(name: BuildName, length: number): string {
  const build: BuildSpec = BUILDS[name];
  const features = build.flags.filter((f) => f !== "--enable" && f !== "--importMemory")
    .map((f) => f === "--sharedMemory" ? "shared memory" : f);
  const base = build.base ? `, as a delta from ${build.base}` : "";
  return `Core build \`${["simd", ...features].join(" + ")}\`, ${length} bytes${base}.`;
}

/** Every build's bytes, compiled from today's sources. */
async function compileAll(): Promise<Map<BuildName, Uint8Array>> {
  const builds = new Map<BuildName, Uint8Array>();
  for (const [name, { flags }] of Object.entries(BUILDS)) {
    builds.set(name as BuildName, await compile(flags));
  }
  return builds;
}

/** The generated module's text: `builds` (from {@linkcode compileAll}), embedded. */
async function generate(builds: Map<BuildName, Uint8Array>): Promise<string> {
  const files = await sources();
  let text = "// @generated by simd/wasm/_build.ts (`deno task build:wasm`). Do not edit.\n" +
    `// Sources: simd/wasm/assembly/{${files.map(([n]) => n).join(",")}}, ` +
    `compiled with ${COMPILER}.\n\n` +
    'import type { EmbeddedWasm } from "./_embedded.ts";\n\n' +
    "/** SHA-256 of the core's sources, compiler and flags. */\n" +
    `export const SOURCE_HASH = "${await sourceHash(files)}";\n`;
  for (const [name, wasm] of builds) {
    const build: BuildSpec = BUILDS[name];
    const base = build.base ? builds.get(build.base as BuildName) : undefined;
    const payload = base ? encodeDelta(base, wasm) : wasm;
    text += `\n/** ${describe(name, wasm.length)} */\n` +
      `export const ${name}: EmbeddedWasm = {\n` +
      (build.base ? `  base: ${build.base},\n` : "") +
      `  length: ${wasm.length},\n` +
      `  payloadLength: ${payload.length},\n` +
      `  lzma:\n    "${base64(await compress(payload))}",\n};\n`;
  }
  return text;
}

/**
 * Why the quick check cannot vouch for `current` (the generated file's
 * text), or undefined when its `SOURCE_HASH` is the hash of today's
 * sources, compiler and flags and the development import map compiles with
 * {@linkcode COMPILER}.
 */
async function staleReason(current: string): Promise<string | undefined> {
  const embedded = current.match(/^export const SOURCE_HASH = "([0-9a-f]{64})";$/m)?.[1];
  if (!embedded) return "the generated file has no SOURCE_HASH";
  if (embedded !== await sourceHash(await sources())) {
    return "the sources, compiler or flags changed since the last build";
  }
  const map = JSON.parse(await Deno.readTextFile(new URL("../../import_map.dev.json", root)));
  const compiler = String(map.imports?.assemblyscript ?? "").replace(/^npm:/, "");
  if (compiler !== COMPILER) {
    return `import_map.dev.json compiles with ${compiler || "nothing"}, not ${COMPILER}`;
  }
  return undefined;
}

async function check(full: boolean): Promise<boolean> {
  let current = "";
  try {
    current = await Deno.readTextFile(target);
  } catch { /* a missing file is a mismatch */ }
  const why = full ? "forced (--full)" : await staleReason(current);
  if (why === undefined) {
    console.log(
      "wasm check: SOURCE_HASH matches simd/wasm/assembly/, compiler and flags " +
        "(no rebuild; --full rebuilds and compares the bytes)",
    );
    return true;
  }
  console.log(`wasm check: rebuilding in memory: ${why}`);
  const builds = await compileAll();
  const embedded: Record<string, unknown> = await import(target.href).catch(() => ({}));
  const differ = [...builds].filter(([name, wasm]) => {
    const build = embedded[name] as EmbeddedWasm | undefined;
    try {
      return !build || !sameBytes(wasmBytes(build), wasm);
    } catch {
      return true; // undecodable
    }
  }).map(([name]) => name);
  const hash = await sourceHash(await sources());
  if (differ.length > 0 || embedded.SOURCE_HASH !== hash) {
    console.error(
      "simd/wasm/_wasm.generated.ts does not match simd/wasm/assembly/" +
        (differ.length > 0 ? ` (${differ.join(", ")})` : " (SOURCE_HASH)") +
        ": run `deno task build:wasm`",
    );
    return false;
  }
  console.log("wasm check: embedded core matches its sources");
  return true;
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((byte, i) => byte === b[i]);
}

if (import.meta.main) {
  if (Deno.args.includes("--check")) {
    const full = Deno.args.includes("--full") || Deno.env.get("MARROW_WASM_CHECK") === "full";
    if (!await check(full)) Deno.exit(1);
  } else {
    await Deno.writeTextFile(target, await generate(await compileAll()));
    console.log(`wrote ${target.pathname}`);
  }
}
