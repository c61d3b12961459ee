/**
 * The repository's structural rules, as a pure function over the sources
 * (`{ path → text }`), so that the tests can plant a violation in a map of a
 * few lines. `_tools/check_rules.ts` runs it on the tree (`deno task rules`).
 *
 * Terms. *Module code* is every file under a layer folder (`simd/`, with
 * `simd/wasm/assembly/`, `animation/`, `components/`, `systems/`, `gltf/`) plus
 * the published entries (`deno.json` `"exports"`: `mod.ts`,
 * `simd/scalar/mod.ts`, `examples/cylinder.ts`). A file's *folder* is its
 * directory; its *layer* is its first path segment (`simd/wasm/assembly/x.ts`
 * is in layer `simd`). *Generated* files, whose first line is a `//`
 * comment carrying `@generated` (`simd/wasm/_wasm.generated.ts`), are exempt
 * from every rule.
 *
 * 1. `max-lines`: no module-code file over {@linkcode RulesConfig.maxLines}
 *    lines; no other `.ts` file (tests, benches, examples, tools) over
 *    {@linkcode RulesConfig.maxOtherLines} (the same 400 by default: issue
 *    #29 asks for test files over 400 lines to be split too). Lines are
 *    counted like `wc -l`. `tests/fixtures/` is data, not source.
 * 2. `private-import`: a file `x/_y.ts` may be imported (statically, by a
 *    re-export, or by a dynamic `import("…")`) only by files whose folder
 *    is `x/` itself (not its subfolders nor its parent). Importers under
 *    `tests/` and `bench/` are exempt: they test and measure internals.
 * 3. `layers`: module code imports only module code, and a layer only the
 *    layers of {@linkcode RulesConfig.layers} (`simd` ← `animation` ←
 *    `components` ← `systems`; `gltf` on `animation` only). No layer imports
 *    an entry outside the layers (`mod.ts`, `examples/cylinder.ts`);
 *    entries may import every layer. Packages (`bitecs`, `npm:…`,
 *    `node:…`) are not this rule's concern.
 * 4. `unused-export`: every name a module-code file exports is imported by
 *    another file of the repository (tests, benches and examples count),
 *    directly or through a chain of re-exports (`export { a } from`,
 *    `export *`), or is public: reached from an entry, or an export of the
 *    core's compiler entry `simd/wasm/assembly/index.ts` (the wasm exports).
 *    `import * as ns` and `import("…")` reach every name of the target.
 * 5. `undocumented-export`: every public name (reached from an entry) is
 *    declared with a JSDoc comment, and every entry opens with a module doc
 *    (`@module`). `deno doc --lint` (in `deno task check`) checks members,
 *    explicit types and private types of the same names; this rule adds the
 *    module doc, which `deno doc --lint` does not ask for, and runs on the
 *    in-memory sources in the tests.
 *
 * @module
 */

import { type ExportRecord, type ModuleSyntax, readModule } from "./_module_syntax.ts";

/** The five rules' names, as printed. */
export type RuleName =
  | "max-lines"
  | "private-import"
  | "layers"
  | "unused-export"
  | "undocumented-export";

/** One broken rule at one place. */
export interface Violation {
  /** Which rule. */
  rule: RuleName;
  /** Repository-relative path, `/`-separated. */
  path: string;
  /** 1-based line (the file's line count for `max-lines`). */
  line: number;
  /** What is wrong, naming the other file or the name involved. */
  message: string;
}

/** What the rules need to know about the repository besides its sources. */
export interface RulesConfig {
  /** The package's name (`deno.json` `"name"`), for self-imports such as `@marrow/anim/reference`. */
  packageName: string;
  /** `deno.json` `"exports"`: subpath → repository-relative file (`"./mod.ts"` or `"mod.ts"`). */
  entries: Record<string, string>;
  /** Entries of other compilers whose exports are public (the core's `simd/wasm/assembly/index.ts`). */
  extraEntries: string[];
  /** Layer → the layers it may import (itself included). */
  layers: Record<string, string[]>;
  /** Line limit of module code. */
  maxLines: number;
  /** Line limit of every other source (tests, benches, examples, tools). */
  maxOtherLines: number;
}

/** Marrow's layers: `simd` ← `animation` ← `components` ← `systems`, `gltf` on `animation`. */
export const MARROW_LAYERS: Record<string, string[]> = {
  simd: ["simd"],
  animation: ["simd", "animation"],
  components: ["simd", "animation", "components"],
  systems: ["simd", "animation", "components", "systems"],
  gltf: ["animation", "gltf"],
};

/** Importer folders exempt from `private-import`. */
const PRIVATE_IMPORT_EXEMPT = ["tests/", "bench/"];

/** Whether the source is generated: its first line is a `//` comment with `@generated`. */
export function isGenerated(source: string): boolean {
  return /^\/\/[^\n]*@generated/.test(source);
}

/** Lines as `wc -l` counts them: newline characters, plus a last line without one. */
export function countLines(source: string): number {
  if (source === "") return 0;
  const newlines = source.split("\n").length - 1;
  return source.endsWith("\n") ? newlines : newlines + 1;
}

function dirname(path: string): string {
  const slash = path.lastIndexOf("/");
  return slash < 0 ? "" : path.slice(0, slash + 1);
}

function normalize(path: string): string {
  const out: string[] = [];
  for (const part of path.split("/")) {
    if (part === "..") out.pop();
    else if (part !== "." && part !== "") out.push(part);
  }
  return out.join("/");
}

/** Repository paths of the config's entries, without `./`. */
export function entryPaths(config: RulesConfig): string[] {
  return Object.values(config.entries).map(normalize);
}

/**
 * Resolves a specifier written in `importer` to a repository path, or
 * undefined for a package (`bitecs`, `npm:…`, `node:…`). Relative
 * specifiers without an extension (AssemblyScript's `"./abi"`) get `.ts`
 * when that file exists.
 */
export function resolveSpecifier(
  importer: string,
  specifier: string,
  files: ReadonlyMap<string, string>,
  config: RulesConfig,
): string | undefined {
  if (specifier.startsWith("./") || specifier.startsWith("../")) {
    const path = normalize(dirname(importer) + specifier);
    return !files.has(path) && files.has(`${path}.ts`) ? `${path}.ts` : path;
  }
  if (specifier === config.packageName || specifier.startsWith(`${config.packageName}/`)) {
    const subpath = `.${specifier.slice(config.packageName.length)}`;
    const target = config.entries[subpath];
    return target === undefined ? undefined : normalize(target);
  }
  return undefined;
}

/** The layer of a path (its first segment) when that is a layer folder. */
function layerOf(path: string, config: RulesConfig): string | undefined {
  const first = path.split("/")[0];
  return path.includes("/") && first in config.layers ? first : undefined;
}

/** Whether the file is module code (see the module doc). */
export function isModuleCode(path: string, config: RulesConfig): boolean {
  return layerOf(path, config) !== undefined || entryPaths(config).includes(path);
}

function sourcePaths(files: ReadonlyMap<string, string>): string[] {
  return [...files.keys()]
    .filter((path) => path.endsWith(".ts") && !path.startsWith("tests/fixtures/"))
    .filter((path) => !isGenerated(files.get(path)!))
    .sort();
}

/** Checks the five rules on the sources; returns every violation, sorted by rule, path and line. */
export function checkRules(files: ReadonlyMap<string, string>, config: RulesConfig): Violation[] {
  const paths = sourcePaths(files);
  const syntax = new Map<string, ModuleSyntax>(paths.map((p) => [p, readModule(files.get(p)!)]));
  const violations: Violation[] = [
    ...checkLines(paths, files, config),
    ...checkImports(paths, syntax, files, config),
    ...checkExports(paths, syntax, files, config),
  ];
  const order: RuleName[] = [
    "max-lines",
    "private-import",
    "layers",
    "unused-export",
    "undocumented-export",
  ];
  return violations.sort((a, b) =>
    order.indexOf(a.rule) - order.indexOf(b.rule) || a.path.localeCompare(b.path) ||
    a.line - b.line
  );
}

function checkLines(
  paths: string[],
  files: ReadonlyMap<string, string>,
  config: RulesConfig,
): Violation[] {
  const violations: Violation[] = [];
  for (const path of paths) {
    const lines = countLines(files.get(path)!);
    const limit = isModuleCode(path, config) ? config.maxLines : config.maxOtherLines;
    if (lines > limit) {
      const message = `${lines} lines, over the limit of ${limit}`;
      violations.push({ rule: "max-lines", path, line: lines, message });
    }
  }
  return violations;
}

function checkImports(
  paths: string[],
  syntax: Map<string, ModuleSyntax>,
  files: ReadonlyMap<string, string>,
  config: RulesConfig,
): Violation[] {
  const violations: Violation[] = [];
  const entries = entryPaths(config);
  for (const path of paths) {
    const importerLayer = layerOf(path, config);
    const moduleCode = isModuleCode(path, config);
    for (const { specifier, line } of syntax.get(path)!.imports) {
      const target = resolveSpecifier(path, specifier, files, config);
      if (target === undefined) continue;
      const name = target.slice(target.lastIndexOf("/") + 1);
      const exempt = PRIVATE_IMPORT_EXEMPT.some((folder) => path.startsWith(folder));
      if (name.startsWith("_") && dirname(target) !== dirname(path) && !exempt) {
        const message = `imports ${target}, private to ${dirname(target) || "the root"}`;
        violations.push({ rule: "private-import", path, line, message });
      }
      if (!moduleCode) continue;
      const targetLayer = layerOf(target, config);
      let problem: string | undefined;
      if (!isModuleCode(target, config)) problem = `imports ${target}, which is not module code`;
      else if (importerLayer && !targetLayer && entries.includes(target)) {
        problem = `imports the entry ${target}`;
      } else if (
        importerLayer && targetLayer && !config.layers[importerLayer].includes(targetLayer)
      ) {
        problem = `${importerLayer}/ imports ${target}: ${importerLayer}/ may import only ${
          config.layers[importerLayer].map((layer) => `${layer}/`).join(", ")
        }`;
      }
      if (problem) violations.push({ rule: "layers", path, line, message: problem });
    }
  }
  return violations;
}

/** Every name a file exports: its own records and, through `export *`, its star targets' names. */
function exportedNames(
  path: string,
  syntax: Map<string, ModuleSyntax>,
  files: ReadonlyMap<string, string>,
  config: RulesConfig,
  seen = new Set<string>(),
): Map<string, ExportRecord & { owner: string }> {
  const names = new Map<string, ExportRecord & { owner: string }>();
  const module = syntax.get(path);
  if (!module || seen.has(path)) return names;
  seen.add(path);
  for (const specifier of module.starExports) {
    const target = resolveSpecifier(path, specifier, files, config);
    if (target === undefined) continue;
    for (const [name, record] of exportedNames(target, syntax, files, config, seen)) {
      if (name !== "default") names.set(name, record);
    }
  }
  for (const record of module.exports) names.set(record.name, { ...record, owner: path });
  return names;
}

function checkExports(
  paths: string[],
  syntax: Map<string, ModuleSyntax>,
  files: ReadonlyMap<string, string>,
  config: RulesConfig,
): Violation[] {
  const names = new Map(paths.map((p) => [p, exportedNames(p, syntax, files, config)]));
  /** "path\0name" of every used export, at the file that declares or re-exports it. */
  const used = new Set<string>();
  const publicNames = new Set<string>();
  const use = (path: string, name: string, into: Set<string>) => {
    const record = names.get(path)?.get(name);
    if (!record || into.has(`${record.owner}\0${name}`)) return;
    into.add(`${record.owner}\0${name}`);
    if (record.from) {
      const target = resolveSpecifier(record.owner, record.from[0], files, config);
      if (target !== undefined) use(target, record.from[1], into);
    }
  };
  const useAll = (path: string, into: Set<string>) => {
    for (const name of names.get(path)?.keys() ?? []) use(path, name, into);
  };
  for (const path of paths) {
    for (const { specifier, names: imported, whole, reexport } of syntax.get(path)!.imports) {
      const target = resolveSpecifier(path, specifier, files, config);
      if (target === undefined || target === path) continue;
      if (whole) useAll(target, used);
      // A re-export by name is a use only when the re-exported name is used (followed in `use`).
      else if (!reexport) { for (const name of imported) use(target, name, used); }
    }
  }
  for (const entry of entryPaths(config)) useAll(entry, publicNames);
  for (const entry of config.extraEntries) useAll(entry, used);
  for (const key of publicNames) used.add(key);

  const violations: Violation[] = [];
  for (const path of paths.filter((p) => isModuleCode(p, config))) {
    for (const record of syntax.get(path)!.exports) {
      const key = `${path}\0${record.name}`;
      if (!used.has(key)) {
        const message = `exports ${record.name}, which no other file imports and no entry exports`;
        violations.push({ rule: "unused-export", path, line: record.line, message });
      }
      if (publicNames.has(key) && !record.from && !record.documented) {
        const message = `public ${record.name} has no JSDoc comment`;
        violations.push({ rule: "undocumented-export", path, line: record.line, message });
      }
    }
  }
  for (const entry of entryPaths(config)) {
    if (syntax.has(entry) && !syntax.get(entry)!.moduleDoc) {
      const message = "entry without a module doc (a JSDoc comment with @module)";
      violations.push({ rule: "undocumented-export", path: entry, line: 1, message });
    }
  }
  return violations;
}
