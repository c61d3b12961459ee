/**
 * `deno task rules --stats`: the figures issue #29's closing note asks for,
 * files and lines per folder, the largest sources, and the public names of
 * each published entry (by kind, from `deno doc --json`).
 *
 * @module
 */

import { countLines, isGenerated, isModuleCode, type RulesConfig } from "./rules.ts";

/** Number of largest files listed. */
const LARGEST = 12;

/** The folder a file is counted in: its first segment (`simd/wasm/assembly/` on its own), `.` for the root. */
function folderOf(path: string): string {
  if (path.startsWith("simd/wasm/assembly/")) return "simd/wasm/assembly/";
  const slash = path.indexOf("/");
  return slash < 0 ? "./" : path.slice(0, slash + 1);
}

/** Files and lines per folder, generated files counted apart. */
function folderTable(files: ReadonlyMap<string, string>): string[] {
  const rows = new Map<string, { files: number; lines: number; generated: number }>();
  for (const [path, source] of files) {
    if (path.startsWith("tests/fixtures/")) continue;
    const row = rows.get(folderOf(path)) ?? { files: 0, lines: 0, generated: 0 };
    row.files++;
    if (isGenerated(source)) row.generated += countLines(source);
    else row.lines += countLines(source);
    rows.set(folderOf(path), row);
  }
  const out = ["folder            files    lines  (+ generated)"];
  for (const [folder, row] of [...rows].sort(([a], [b]) => a.localeCompare(b))) {
    const generated = row.generated ? `  (+ ${row.generated})` : "";
    out.push(
      `${folder.padEnd(16)} ${String(row.files).padStart(6)} ${
        String(row.lines).padStart(8)
      }${generated}`,
    );
  }
  return out;
}

/** The largest non-generated files of one kind. */
function largest(
  files: ReadonlyMap<string, string>,
  keep: (path: string) => boolean,
): string[] {
  return [...files]
    .filter(([path, source]) => keep(path) && !isGenerated(source))
    .map(([path, source]) => [path, countLines(source)] as const)
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .slice(0, LARGEST)
    .map(([path, lines]) => `${String(lines).padStart(6)}  ${path}`);
}

interface DocSymbol {
  name: string;
  declarations: { kind: string; declarationKind?: string }[];
}

/** Public names of one entry by kind, from `deno doc --json` (format version 2, Deno 2.9). */
async function publicNames(root: URL, entry: string): Promise<Map<string, Set<string>>> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["doc", "--json", entry],
    cwd: root,
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!output.success) throw new Error(new TextDecoder().decode(output.stderr));
  const json = JSON.parse(new TextDecoder().decode(output.stdout));
  if (json.version !== 2) throw new Error(`deno doc --json: format ${json.version}, expected 2`);
  const byKind = new Map<string, Set<string>>();
  for (const module of Object.values(json.nodes as Record<string, { symbols: DocSymbol[] }>)) {
    for (const { name, declarations } of module.symbols) {
      const exported = declarations.filter((d) => (d.declarationKind ?? "export") === "export");
      if (exported.length === 0) continue;
      // A name declared twice (an enum and its namespace, a const and a type) counts once, by its first kind.
      const names = byKind.get(exported[0].kind) ?? new Set();
      names.add(name);
      byKind.set(exported[0].kind, names);
    }
  }
  return byKind;
}

/** Prints the folder table, the largest module and other sources, and each entry's public names. */
export async function printStats(
  files: ReadonlyMap<string, string>,
  config: RulesConfig,
  root: URL = new URL("../", import.meta.url),
): Promise<void> {
  console.log("Files and lines per folder (.ts; tests/fixtures/ excluded):");
  for (const row of folderTable(files)) console.log(`  ${row}`);
  console.log(`\nLargest module sources (limit ${config.maxLines}):`);
  for (const row of largest(files, (p) => isModuleCode(p, config))) console.log(`  ${row}`);
  console.log(`\nLargest other sources (limit ${config.maxOtherLines}):`);
  for (const row of largest(files, (p) => !isModuleCode(p, config))) console.log(`  ${row}`);
  console.log("\nPublic names per entry (deno doc --json):");
  for (const [subpath, entry] of Object.entries(config.entries)) {
    const byKind = await publicNames(root, entry);
    const total = [...byKind.values()].reduce((sum, names) => sum + names.size, 0);
    const kinds = [...byKind]
      .sort((a, b) => b[1].size - a[1].size)
      .map(([kind, names]) => `${names.size} ${kind}`)
      .join(", ");
    const name = subpath === "." ? config.packageName : `${config.packageName}${subpath.slice(1)}`;
    console.log(`  ${name} (${entry.replace(/^\.\//, "")}): ${total} names (${kinds})`);
  }
}
