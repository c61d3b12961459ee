/**
 * The import maps of `tests/_run.ts`: the development map
 * {@linkcode DEV_IMPORT_MAP} (checked against `deno.json`), and the offline
 * map made from it that sends `@std/assert` to the adapter in `tests/_std/`
 * when JSR cannot be reached.
 *
 * @module
 */

const ROOT = new URL("../", import.meta.url);

/** Import map of the tests, benches and tools: `deno.json`'s imports plus the dev-only ones. */
export const DEV_IMPORT_MAP = "import_map.dev.json";

/** The offline stand-ins for `@std`. */
export const ADAPTER_DIR: URL = new URL("tests/_std/", ROOT);

/** An import map file's contents (and the same fields of `deno.json`). */
export interface ImportMap {
  imports?: Record<string, string>;
  scopes?: Record<string, Record<string, string>>;
}

/** Whether `path` exists. */
export async function exists(path: URL | string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
}

/**
 * `@std/...` specifiers used by the files under test (and their doc blocks):
 * an `@std/testing` one makes the offline map fail, naming it.
 */
export async function stdSpecifiers(files: URL[]): Promise<Set<string>> {
  const found = new Set<string>();
  const pattern = /["'](@std\/(?:assert|testing)(?:\/[\w.-]+)?)["']/g;
  for (const file of files) {
    const text = await Deno.readTextFile(file);
    for (const match of text.matchAll(pattern)) found.add(match[1]);
  }
  return found;
}

/** The adapter module for an `@std/assert*` specifier, if any. */
function adapterFor(specifier: string): URL | undefined {
  if (specifier === "@std/assert" || specifier.startsWith("@std/assert/")) {
    return new URL("assert.ts", ADAPTER_DIR);
  }
  return undefined;
}

/** `./x` and `../x` targets resolved against `base`; bare and URL targets kept. */
function absolute(target: string, base: URL): string {
  return /^\.{0,2}\//.test(target) ? new URL(target, base).href : target;
}

/**
 * deno.json gives `"pkg": "npm:pkg@1"` an implicit `"pkg/": "npm:/pkg@1/"`;
 * an import map file does not, so add it.
 */
function withSubpathEntries(imports: Record<string, string>): void {
  for (const [key, target] of Object.entries(imports)) {
    if (key.endsWith("/") || `${key}/` in imports) continue;
    const bare = target.match(
      /^(npm|jsr):\/?((?:@[^/@]+\/)?[^/@]+(?:@[^/]+)?)$/,
    );
    if (bare) imports[`${key}/`] = `${bare[1]}:/${bare[2]}/`;
  }
}

function isStdTestEntry(key: string): boolean {
  return /^@std\/assert(\/|$)/.test(key);
}

/**
 * The development map for a run without JSR: `@std/assert` (and its
 * subpaths in `used`) go to the adapter, every other entry
 * stays, with relative targets made absolute and `"pkg/"` entries added.
 */
export async function offlineImportMap(
  config: ImportMap,
  used: Set<string>,
): Promise<ImportMap> {
  const base = new URL(DEV_IMPORT_MAP, ROOT);
  const source: ImportMap = await readDevImportMap(config);
  const imports: Record<string, string> = {};
  for (const [key, target] of Object.entries(source.imports ?? {})) {
    if (!isStdTestEntry(key)) imports[key] = absolute(target, base);
  }
  withSubpathEntries(imports);
  const missing: string[] = [];
  for (
    const specifier of new Set(["@std/assert", ...used])
  ) {
    const adapter = adapterFor(specifier);
    if (adapter) imports[specifier] = adapter.href;
    else missing.push(specifier);
  }
  if (missing.length > 0) {
    throw new Error(
      `no offline adapter for ${missing.join(", ")}: tests/_std/ has only @std/assert`,
    );
  }
  const scopes: Record<string, Record<string, string>> = {};
  for (const [scope, entries] of Object.entries(source.scopes ?? {})) {
    const mapped: Record<string, string> = {};
    for (const [key, target] of Object.entries(entries)) {
      mapped[key] = absolute(target, base);
    }
    scopes[absolute(scope, base)] = mapped;
  }
  return { imports, scopes };
}

/** The development import map, after checking that it carries `deno.json`'s imports. */
export async function readDevImportMap(config: ImportMap): Promise<ImportMap> {
  const url = new URL(DEV_IMPORT_MAP, ROOT);
  const map: ImportMap = JSON.parse(await Deno.readTextFile(url));
  const differ = Object.entries(config.imports ?? {})
    .filter(([key, target]) => map.imports?.[key] !== target)
    .map(([key, target]) => `"${key}": "${target}"`);
  if (differ.length > 0) {
    throw new Error(
      `${DEV_IMPORT_MAP} must carry deno.json's imports unchanged; missing or different: ${
        differ.join(", ")
      }`,
    );
  }
  return map;
}
