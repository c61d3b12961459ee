/**
 * `deno task test`: runs the test suite, then the `check` task's steps.
 *
 * 0. Checks that the development import map {@linkcode DEV_IMPORT_MAP} (the
 *    published `deno.json` has only the runtime imports; tests, benches and
 *    the core's build also need @std, three, gl-matrix, fast-check and
 *    assemblyscript) carries every entry of `deno.json` unchanged: the map
 *    replaces `deno.json`'s imports, so they must agree.
 * 1. Probes whether the JSR package `@std/assert` resolves, by running
 *    `deno cache` on a one-line probe module with the
 *    development import map (bounded by {@linkcode PROBE_TIMEOUT_MS}). Unreachable
 *    JSR fails fast (well under a second); when the packages are already in
 *    Deno's cache the probe succeeds without the network.
 * 2. Prints one `std: ...` line naming the choice.
 * 3. Runs `deno test --doc` on `tests/**\/*_test.ts` plus the code blocks of
 *    `mod.ts` and `README.md` (when they exist). With JSR the development
 *    import map is used unchanged. Without it, a generated import map (a
 *    temporary file, made from the development map) sends `@std/assert` to
 *    the adapter in `tests/_std/`.
 *
 *    `--import-map` REPLACES the "imports"/"scopes" of `deno.json` (Deno
 *    2.9.6, checked: an entry left out of the map no longer resolves), so the
 *    map carries every other entry of the development map too, with
 *    relative targets made absolute. A map file, unlike `deno.json`, does not get the
 *    implicit `"pkg/"` entries that let `"pkg/sub/path"` resolve for
 *    `npm:`/`jsr:` targets: they are added explicitly. The package's own
 *    name (`@marrow/anim`, `@marrow/anim/reference`) still resolves through
 *    `deno.json`'s "name"/"exports" with a map in place, and the lockfile
 *    keeps following `deno.json`.
 * 4. Runs each `&&`-separated step of the `check` task from `deno.json`
 *    (fmt, lint, doc lint, publish dry run, wasm check) separately, through
 *    `deno task --eval`, so that every failing step is reported, not just
 *    the first. They run with `deno.json` as it is, whatever step 1 chose:
 *    none of them loads `@std`. In particular `deno publish --dry-run` works
 *    without jsr.io (checked with Deno 2.9.6, also with a lockfile that pins
 *    `jsr:@std/*`): it only builds the graph of the published files, which
 *    import no JSR package; unused `jsr:` entries in "imports" are not
 *    fetched. No extra flag is needed for that; `--allow-dirty` is there for
 *    uncommitted files (a fresh `deno.lock`, work in progress).
 * 5. Prints one line naming the glTF models it skipped and why, when
 *    `../shared/assets/gltf/` lacks the test-only ones (`tests/_assets.ts`),
 *    then `N passed, N failed[, N skipped]` (leaf tests, from Deno's JUnit
 *    report) as the last line; exits 1 if a test or a check step failed.
 *
 * Options: `--std=jsr|offline|auto` (or env `MARROW_STD`) forces the choice;
 * `--tests-only` skips the check steps; any other argument is passed to
 * `deno test` (e.g. `--filter name`).
 *
 * Permissions (the `test` task): `--allow-run` to start `deno`,
 * `--allow-read`/`--allow-env` for config and options, `--allow-write` for
 * the temporary probe, import map and JUnit report. No `--allow-net`: the
 * probe's network access is the child `deno cache`'s own.
 *
 * @module
 */

import { skippedModelsLine } from "./_assets.ts";
import {
  ADAPTER_DIR,
  DEV_IMPORT_MAP,
  exists,
  type ImportMap,
  offlineImportMap,
  readDevImportMap,
  stdSpecifiers,
} from "./_import_maps.ts";

const ROOT = new URL("../", import.meta.url);
const DENO = Deno.execPath();
const PROBE_TIMEOUT_MS = 30_000;
/** Running Deno itself only: the zero-allocation test runs its scene in a child with V8 flags. */
const TEST_PERMISSIONS = ["--allow-read", "--allow-env", `--allow-run=${DENO}`];
const TEST_DIR = "tests/";
/** Every public module whose docs carry examples, and the README. */
const DOC_FILES = [
  "README.md",
  "mod.ts",
  "simd/memory/layout.ts",
  "simd/scalar/mod.ts",
  "simd/memory/core.ts",
  "simd/kernels/kernels.ts",
  "animation/skeleton_asset.ts",
  "animation/clip_file.ts",
  "animation/clip_workers.ts",
  "animation/retarget.ts",
  "systems/pipeline.ts",
  "components/faults.ts",
  "procedural/cylinder.ts",
  "kernels.ts",
];
/** Child processes: no update check (it would reach for the network). */
const CHILD_ENV = { DENO_NO_UPDATE_CHECK: "1" };

interface Config extends ImportMap {
  tasks?: Record<string, string | { command?: string }>;
}

function pathOf(url: URL): string {
  return decodeURIComponent(url.pathname);
}

// --- 1. Which @std? ---------------------------------------------------------

type StdChoice = { mode: "jsr" | "offline"; why: string };

async function probeJsr(): Promise<StdChoice> {
  const dir = await Deno.makeTempDir({ prefix: "marrow-std-probe-" });
  const probe = `${dir}/probe.ts`;
  await Deno.writeTextFile(
    probe,
    'import "@std/assert";\n',
  );
  const started = performance.now();
  const took = () => `probe ${((performance.now() - started) / 1000).toFixed(2)}s`;
  try {
    const { success, stderr } = await new Deno.Command(DENO, {
      args: [
        "cache",
        "--quiet",
        "--config",
        pathOf(new URL("deno.json", ROOT)),
        `--import-map=${pathOf(new URL(DEV_IMPORT_MAP, ROOT))}`,
        probe,
      ],
      cwd: pathOf(ROOT),
      env: CHILD_ENV,
      stdout: "null",
      stderr: "piped",
      signal: AbortSignal.timeout(PROBE_TIMEOUT_MS),
    }).output();
    if (success) return { mode: "jsr", why: took() };
    // deno prints e.g. "error: JSR package manifest for '@std/assert' failed
    // to load. Import 'https://jsr.io/@std/assert/meta.json' failed."
    const text = new TextDecoder().decode(stderr)
      // deno-lint-ignore no-control-regex
      .replace(/\x1b\[[0-9;]*m/g, "");
    const error = text.split("\n").find((l) => l.startsWith("error:")) ?? "";
    const unreachable = /failed to load|error sending request|dns error|connect/i
      .test(error);
    return {
      mode: "offline",
      why: `${
        unreachable ? "jsr.io unreachable" : `JSR probe failed: ${error.slice(0, 160)}`
      }, ${took()}`,
    };
  } catch (error) {
    if (error instanceof DOMException && error.name === "TimeoutError") {
      return {
        mode: "offline",
        why: `JSR probe timed out after ${PROBE_TIMEOUT_MS / 1000}s`,
      };
    }
    throw error;
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

async function chooseStd(forced: string | undefined): Promise<StdChoice> {
  if (forced === "jsr" || forced === "offline") {
    return { mode: forced, why: `forced by --std/MARROW_STD=${forced}` };
  }
  if (forced && forced !== "auto") {
    throw new Error(
      `--std/MARROW_STD must be jsr, offline or auto, not "${forced}"`,
    );
  }
  return await probeJsr();
}

// --- 3. Tests ---------------------------------------------------------------

/** Every `.ts` file under `dir` (the adapter's own folder excluded), sorted. */
async function tsFiles(dir: URL): Promise<URL[]> {
  const files: URL[] = [];
  for await (const entry of Deno.readDir(dir)) {
    const url = new URL(entry.name + (entry.isDirectory ? "/" : ""), dir);
    if (entry.isDirectory && url.href !== ADAPTER_DIR.href) {
      files.push(...await tsFiles(url));
    } else if (entry.isFile && entry.name.endsWith(".ts")) files.push(url);
  }
  return files.sort((a, b) => a.href < b.href ? -1 : a.href > b.href ? 1 : 0);
}

function relative(url: URL): string {
  return decodeURIComponent(url.href.slice(ROOT.href.length));
}

interface Counts {
  passed: number;
  failed: number;
  skipped: number;
}

function unescapeXml(text: string): string {
  return text.replace(
    /&(lt|gt|quot|apos|amp);/g,
    (_, name: string) => ({ lt: "<", gt: ">", quot: '"', apos: "'", amp: "&" })[name]!,
  );
}

/**
 * Counts leaf tests in Deno's JUnit report. Deno lists a test and each of its
 * steps (every bdd `it` is a step of its `describe`) as test cases named
 * `outer > inner > test`; a case with children is a group, counted only when
 * it failed for a reason of its own (a hook), not because a step failed.
 */
function countJunit(xml: string): Counts {
  const cases = [
    ...xml.matchAll(
      /<testcase name="([^"]*)"[^>]*?(\/>|>([\s\S]*?)<\/testcase>)/g,
    ),
  ]
    .map((m) => ({ name: unescapeXml(m[1]), body: m[3] ?? "" }));
  const names = cases.map((c) => c.name);
  const counts: Counts = { passed: 0, failed: 0, skipped: 0 };
  for (const { name, body } of cases) {
    const group = names.some((other) => other.startsWith(`${name} > `));
    const failure = body.match(/<failure message="([^"]*)"/)?.[1];
    if (group) {
      if (failure !== undefined && !/^\d+ test steps? failed/.test(failure)) {
        counts.failed++;
      }
    } else if (failure !== undefined) counts.failed++;
    else if (/<skipped/.test(body)) counts.skipped++;
    else counts.passed++;
  }
  return counts;
}

async function runTests(
  std: StdChoice,
  config: Config,
  forwarded: string[],
  tmp: string,
): Promise<Counts> {
  const sources = await tsFiles(new URL(TEST_DIR, ROOT));
  const tests = sources.filter((url) => url.pathname.endsWith("_test.ts"));
  const docs: URL[] = [];
  for (const name of DOC_FILES) {
    const url = new URL(name, ROOT);
    if (await exists(url)) docs.push(url);
  }
  const args = ["test", ...TEST_PERMISSIONS, "--doc", "--permit-no-files"];
  const junit = `${tmp}/junit.xml`;
  args.push(`--junit-path=${junit}`);
  if (std.mode === "offline") {
    const map = await offlineImportMap(
      config,
      await stdSpecifiers([...sources, ...docs]),
    );
    const mapFile = `${tmp}/import_map.json`;
    await Deno.writeTextFile(mapFile, JSON.stringify(map, null, 2));
    args.push(`--import-map=${mapFile}`);
  } else {
    args.push(`--import-map=${DEV_IMPORT_MAP}`);
  }
  args.push(...forwarded, ...[...tests, ...docs].map(relative));
  console.log(`\n== deno ${args.join(" ")}`);
  const { code } = await new Deno.Command(DENO, {
    args,
    cwd: pathOf(ROOT),
    env: CHILD_ENV,
    stdin: "null",
  }).spawn().status;
  let counts: Counts = { passed: 0, failed: 0, skipped: 0 };
  if (await exists(junit)) {
    counts = countJunit(await Deno.readTextFile(junit));
  } else if (code !== 0) {
    console.log("tests: deno test stopped before running tests (see above)");
  }
  if (code !== 0 && counts.failed === 0) {
    // Type errors, an `only` left in, leaks outside a test...: still a failure.
    console.log(`tests: deno test exited with code ${code}`);
    counts.failed = 1;
  }
  return counts;
}

// --- 4. Check steps ---------------------------------------------------------

async function runChecks(config: Config): Promise<string[]> {
  const task = config.tasks?.check;
  const command = typeof task === "string" ? task : task?.command;
  if (!command) {
    console.log("\ncheck: no `check` task in deno.json");
    return [];
  }
  const failed: string[] = [];
  const steps = command.split("&&").map((s) => s.trim()).filter(Boolean);
  for (const step of steps) {
    if (/tests\/_run\.ts|task\s+test\b/.test(step)) {
      console.log(
        `\n== check: skipping "${step}" (it would run this runner again)`,
      );
      continue;
    }
    console.log(`\n== check: ${step}`);
    const { success } = await new Deno.Command(DENO, {
      args: ["task", "--eval", step],
      cwd: pathOf(ROOT),
      env: CHILD_ENV,
      stdin: "null",
    }).spawn().status;
    if (!success) failed.push(step);
  }
  console.log(
    `\ncheck: ${steps.length - failed.length}/${steps.length} steps passed` +
      (failed.length ? `; failed: ${failed.join(" | ")}` : ""),
  );
  return failed;
}

// --- main -------------------------------------------------------------------

async function main(): Promise<number> {
  const forwarded: string[] = [];
  let forced = Deno.env.get("MARROW_STD");
  let testsOnly = false;
  for (const arg of Deno.args) {
    if (arg === "--tests-only") testsOnly = true;
    else if (arg.startsWith("--std=")) forced = arg.slice("--std=".length);
    else forwarded.push(arg);
  }
  const config: Config = JSON.parse(
    await Deno.readTextFile(new URL("deno.json", ROOT)),
  );

  await readDevImportMap(config);
  const std = await chooseStd(forced);
  console.log(
    std.mode === "jsr"
      ? `std: jsr (@std/assert) [${std.why}]`
      : `std: offline adapter tests/_std/ (${std.why})`,
  );

  const tmp = await Deno.makeTempDir({ prefix: "marrow-test-" });
  let counts: Counts;
  try {
    counts = await runTests(std, config, forwarded, tmp);
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
  const failedChecks = testsOnly ? [] : await runChecks(config);

  const skippedModels = skippedModelsLine();
  if (skippedModels) console.log(`\n${skippedModels}`);
  const skipped = counts.skipped ? `, ${counts.skipped} skipped` : "";
  console.log(`\n${counts.passed} passed, ${counts.failed} failed${skipped}`);
  return counts.failed > 0 || failedChecks.length > 0 ? 1 : 0;
}

if (import.meta.main) {
  let code = 1;
  try {
    code = await main();
  } catch (error) {
    console.error(
      `tests/_run.ts: ${error instanceof Error ? error.message : error}`,
    );
  }
  Deno.exit(code);
}
