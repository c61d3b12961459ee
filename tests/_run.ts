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
 * 3. Type-checks once (`deno test --no-run --doc`) every `tests/**\/*_test.ts`,
 *    the code blocks of `README.md` and the public modules ({@linkcode DOC_FILES})
 *    and the published entry points, and runs the tests unchecked, in chunks
 *    of files, each a `deno test` process, the check and the chunks `--jobs=N`
 *    (env `MARROW_TEST_JOBS`, default one per core) at a time (`_test_jobs.ts`);
 *    each chunk's output is printed whole when it ends, then the slowest
 *    files. With JSR the development import map is used unchanged; without
 *    it, a generated map (a temporary file, made from the development map)
 *    sends `@std/assert` to the adapter in `tests/_std/`: `--import-map`
 *    REPLACES `deno.json`'s "imports"/"scopes" (Deno 2.9.6), so the map
 *    carries every entry of the development map, relative targets made
 *    absolute, and the `"pkg/"` entries a map file does not get implicitly
 *    for `npm:`/`jsr:` targets. The package's own name still resolves
 *    through `deno.json`'s "name"/"exports".
 * 4. Runs each `&&`-separated step of the `check` task from `deno.json`
 *    (fmt, lint, doc lint, publish dry run, wasm check, rules) separately,
 *    through `deno task --eval`, so that every failing step is reported,
 *    with `deno.json` as it is (none loads `@std`; `deno publish --dry-run`
 *    needs no jsr.io: the published files import no JSR package). When
 *    step 3's type check passed, the publish dry run gets `--no-check`: the
 *    entry points are checked already (slow types are still checked).
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
import { RUN_LEVEL } from "./_run_level.ts";
import {
  ADAPTER_DIR,
  DEV_IMPORT_MAP,
  exists,
  type ImportMap,
  offlineImportMap,
  readDevImportMap,
  stdSpecifiers,
} from "./_import_maps.ts";
import {
  type Chunk,
  type Counts,
  defaultJobs,
  parseJobs,
  planChunks,
  readReports,
  readTimes,
  runChunks,
  secondsSince,
  writeTimes,
} from "./_test_jobs.ts";

const ROOT = new URL("../", import.meta.url);
const DENO = Deno.execPath();
const PROBE_TIMEOUT_MS = 30_000;
/** Running Deno itself only: the zero-allocation test runs its scene in a child with V8 flags. */
const TEST_PERMISSIONS = ["--allow-read", "--allow-env", `--allow-run=${DENO}`];
const TEST_DIR = "tests/";
/** Every public module whose docs carry examples, the README and the guides in `docs/`. */
const DOC_FILES = [
  "README.md",
  "docs/ecs.md",
  "docs/ik.md",
  "docs/skinning.md",
  "docs/performance.md",
  "docs/retargeting.md",
  "mod.ts",
  "morph.ts",
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
/** Chunks per job: enough that a job freed early finds work (each chunk costs a start-up). */
const CHUNKS_PER_JOB = 6;
/** Test files named in the closing line of slowest files. */
const SLOWEST_SHOWN = 10;
/** Child processes: no update check (it would reach for the network). */
const CHILD_ENV = { DENO_NO_UPDATE_CHECK: "1" };

interface Config extends ImportMap {
  tasks?: Record<string, string | { command?: string }>;
  exports?: Record<string, string>;
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

/** The published entry points (`deno.json`'s "exports"), which the type check covers too. */
function entryPoints(config: Config): string[] {
  return Object.values(config.exports ?? {}).map((path) => path.replace(/^\.\//, ""));
}

/**
 * One type check of every test file, doc file and published entry point
 * (`deno test --no-run`) and the test files in chunks, unchecked
 * (`tests/_test_jobs.ts`), at most `jobs` at a time, the doc files' code
 * blocks in a chunk of their own. `typeChecked` says whether the check
 * passed (the check steps' publish dry run then needs no check of its own).
 */
async function runTests(
  std: StdChoice,
  config: Config,
  forwarded: string[],
  tmp: string,
  jobs: number,
): Promise<Counts & { typeChecked: boolean }> {
  const sources = await tsFiles(new URL(TEST_DIR, ROOT));
  const tests = sources.filter((url) => url.pathname.endsWith("_test.ts")).map(relative);
  const docs: string[] = [];
  for (const name of DOC_FILES) {
    if (await exists(new URL(name, ROOT))) docs.push(name);
  }
  let mapArg = `--import-map=${DEV_IMPORT_MAP}`;
  if (std.mode === "offline") {
    const map = await offlineImportMap(
      config,
      await stdSpecifiers([...sources, ...docs.map((d) => new URL(d, ROOT))]),
    );
    const mapFile = `${tmp}/import_map.json`;
    await Deno.writeTextFile(mapFile, JSON.stringify(map, null, 2));
    mapArg = `--import-map=${mapFile}`;
  }
  const roots = [...new Set([...tests, ...docs, ...entryPoints(config)])];
  // The type check (one thread) is a job like the chunks: the other cores run tests meanwhile.
  const check: Chunk = {
    label: `type check of ${roots.length} files`,
    args: ["test", "--no-run", "--doc", "--permit-no-files", mapArg, ...roots],
    junit: `${tmp}/no-report`,
  };
  const base = ["test", ...TEST_PERMISSIONS, "--no-check", "--permit-no-files", mapArg];
  const planned = planChunks(tests, jobs * CHUNKS_PER_JOB, await readTimes(ROOT, RUN_LEVEL));
  const chunks: Chunk[] = [
    check,
    ...[...planned, docs].map((files, i) => ({
      label: `${files.length} ${files === docs ? "doc files" : "files"}`,
      args: [
        ...base,
        ...(files === docs ? ["--doc"] : []),
        `--junit-path=${tmp}/junit-${i}.xml`,
        ...forwarded,
        ...files,
      ],
      junit: `${tmp}/junit-${i}.xml`,
      files,
    })),
  ];
  console.log(
    `\n== tests: ${tests.length} files and ${docs.length} doc files in ${planned.length + 1} ` +
      `chunks and a type check (deno ${check.args.slice(0, 4).join(" ")}), ${jobs} at a time: ` +
      `deno ${base.join(" ")} ${forwarded.join(" ")} FILES...`,
  );
  const started = performance.now();
  let typeChecked = false;
  let done = 0;
  const { counts, times } = await runChunks(
    DENO,
    pathOf(ROOT),
    CHILD_ENV,
    chunks,
    jobs,
    (result) => {
      if (result.chunk === check) typeChecked = result.code === 0;
      console.log(result.output.trimEnd());
      console.log(
        `== tests: ${++done}/${chunks.length}, ${result.chunk.label}: ` +
          `${result.code === 0 ? "passed" : "FAILED"} in ${result.seconds.toFixed(1)} s`,
      );
    },
  ).then((results) => readReports(results, ROOT));
  // A filtered run's times are not its files' times.
  if (!forwarded.length && counts.failed === 0) await writeTimes(ROOT, RUN_LEVEL, times);
  const slowest = [...times].sort((a, b) => b[1] - a[1]).slice(0, SLOWEST_SHOWN);
  console.log(
    `\ntests: ${secondsSince(started)}; slowest files (their tests' time): ` +
      slowest.map(([file, s]) => `${file.replace(/^tests\//, "")} ${s.toFixed(1)} s`).join(", "),
  );
  return { ...counts, typeChecked };
}

// --- 4. Check steps ---------------------------------------------------------

/**
 * Runs the `check` task's steps one by one. When the tests' type check
 * passed, it covered every published entry point: the publish dry run then
 * skips its own type check (`--no-check`; it still checks slow types).
 */
async function runChecks(config: Config, typeChecked: boolean): Promise<string[]> {
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
    const run = typeChecked && /^deno publish\b/.test(step) && !/--no-check\b/.test(step)
      ? `${step} --no-check`
      : step;
    console.log(`\n== check: ${run}${run === step ? "" : " (the tests' type check covered it)"}`);
    const started = performance.now();
    const { success } = await new Deno.Command(DENO, {
      args: ["task", "--eval", run],
      cwd: pathOf(ROOT),
      env: CHILD_ENV,
      stdin: "null",
    }).spawn().status;
    if (!success) failed.push(step);
    console.log(`check: ${success ? "passed" : "FAILED"} ${secondsSince(started)}`);
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
  let jobs = defaultJobs();
  for (const arg of Deno.args) {
    if (arg === "--tests-only") testsOnly = true;
    else if (arg.startsWith("--std=")) forced = arg.slice("--std=".length);
    else if (arg.startsWith("--jobs=")) jobs = parseJobs(arg.slice("--jobs=".length));
    else forwarded.push(arg);
  }
  const started = performance.now();
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
  let counts: Counts & { typeChecked: boolean };
  try {
    counts = await runTests(std, config, forwarded, tmp, jobs);
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
  const failedChecks = testsOnly ? [] : await runChecks(config, counts.typeChecked);
  console.log(`\ntotal: ${secondsSince(started)}`);

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
