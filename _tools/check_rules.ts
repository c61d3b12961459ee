/**
 * `deno task rules`: checks the repository's structural rules
 * (`_tools/rules.ts`: file length, private files, layers, unused exports,
 * documented public names) on every `.ts` file of the tree, prints each
 * violation as `path:line  rule  message` with a count per rule, and exits
 * 1 if there is any.
 *
 * `--stats` prints the figures of the structure instead (files and lines
 * per folder, the largest sources, the public names per entry from
 * `deno doc --json`) and always exits 0.
 *
 * Permissions: `--allow-read` for the tree; `--allow-run` (only with
 * `--stats`) to run `deno doc`.
 *
 * @module
 */

import { checkRules, MARROW_LAYERS, type RuleName, type RulesConfig } from "./rules.ts";
import { printStats } from "./_rules_stats.ts";

const ROOT = new URL("../", import.meta.url);
/** Folders never read: git data, local scratch files, dependencies. */
const SKIPPED = new Set([".git", ".scratch", "node_modules"]);

/** Every `.ts` file under the repository's root, repository-relative. */
async function readTree(root: URL = ROOT): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  const visit = async (dir: string) => {
    for await (const entry of Deno.readDir(new URL(dir, root))) {
      const path = `${dir}${entry.name}`;
      if (entry.isDirectory && !SKIPPED.has(entry.name)) await visit(`${path}/`);
      else if (entry.isFile && entry.name.endsWith(".ts")) {
        files.set(path, await Deno.readTextFile(new URL(path, root)));
      }
    }
  };
  await visit("");
  return files;
}

/** The rules' configuration from the repository's `deno.json`. */
async function readConfig(root: URL = ROOT): Promise<RulesConfig> {
  const denoJson = JSON.parse(await Deno.readTextFile(new URL("deno.json", root)));
  return {
    packageName: denoJson.name,
    entries: denoJson.exports,
    extraEntries: ["simd/wasm/assembly/index.ts"],
    layers: MARROW_LAYERS,
    maxLines: 400,
    maxOtherLines: 400,
  };
}

if (import.meta.main) {
  const files = await readTree();
  const config = await readConfig();
  if (Deno.args.includes("--stats")) {
    await printStats(files, config);
    Deno.exit(0);
  }
  const violations = checkRules(files, config);
  const counts = new Map<RuleName, number>();
  for (const { rule, path, line, message } of violations) {
    counts.set(rule, (counts.get(rule) ?? 0) + 1);
    console.log(`${path}:${line}  ${rule}  ${message}`);
  }
  if (violations.length === 0) {
    console.log(`rules: ${files.size} files, no violation`);
  } else {
    const perRule = [...counts].map(([rule, count]) => `${rule} ${count}`).join(", ");
    console.error(`rules: ${violations.length} violations (${perRule})`);
    Deno.exit(1);
  }
}
