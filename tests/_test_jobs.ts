/**
 * How `tests/_run.ts` runs the test files: in chunks, each a `deno test`
 * process of its own, at most `jobs` at a time (one per core by default),
 * after one type check of them all; and what it reads back from each
 * chunk's JUnit report: the counts of leaf tests and each file's time.
 *
 * Each chunk runs in its own process, so a test that bounds its process's
 * memory (the glTF fuzz test, the soak tests) measures only its own chunk.
 * Files are dealt to chunks by their times in the last run at the same
 * run level ({@linkcode planChunks}), the slowest chunks first, and a free
 * job takes the next chunk, so a slow chunk does not hold the others back.
 *
 * @module
 */

import type { RunLevel } from "./_run_level.ts";

/** Leaf tests by outcome. */
export interface Counts {
  passed: number;
  failed: number;
  skipped: number;
}

/** One `deno test` process: its arguments (files last) and its JUnit report's path (none: a failure unless it exits 0). */
export interface Chunk {
  /** What it runs, for its closing line. */
  readonly label: string;
  readonly args: string[];
  readonly junit: string;
  /** Its test files (paths from the root), whose times its report gives. */
  readonly files?: readonly string[];
}

/** What a chunk did: its exit code, its output (stdout then stderr) and its wall time. */
export interface ChunkResult {
  readonly chunk: Chunk;
  readonly code: number;
  readonly output: string;
  readonly seconds: number;
}

/**
 * `files` in at most `count` chunks, balanced by `seconds` (each file's
 * time in the last run; a file without one counts as the median): the
 * slowest file first, each into the chunk with the least time so far, the
 * chunks returned slowest first, so that the slowest start first. With no
 * times at all, file i goes to chunk i mod `count`, which spreads the slow
 * neighbours of a name (the `clip_*`, `ecs_*` families).
 */
export function planChunks(
  files: readonly string[],
  count: number,
  seconds: ReadonlyMap<string, number>,
): string[][] {
  const known = files.map((f) => seconds.get(f)).filter((s) => s !== undefined).sort((a, b) =>
    a - b
  );
  const fallback = known.length ? known[Math.floor(known.length / 2)] : 1;
  const cost = (file: string) => seconds.get(file) ?? fallback;
  const order = files.map((file, i) => ({ file, i })).sort((a, b) =>
    cost(b.file) - cost(a.file) || a.i - b.i
  );
  const chunks = Array.from({ length: Math.min(count, files.length) }, () => ({
    files: [] as string[],
    total: 0,
  }));
  for (const { file } of order) {
    let least = chunks[0];
    for (const chunk of chunks) if (chunk.total < least.total) least = chunk;
    least.files.push(file), least.total += cost(file);
  }
  return chunks.sort((a, b) => b.total - a.total).map((c) => c.files);
}

/**
 * Each file's time at run level `level` (`MARROW_TEST_RUNS`: the files'
 * times differ by level) from the last run's {@linkcode TIMES_FILE}, else
 * from the committed {@linkcode TIMES_SNAPSHOT} (a fresh clone, CI); empty
 * when neither has that level.
 */
export async function readTimes(root: URL, level: RunLevel): Promise<Map<string, number>> {
  for (const name of [TIMES_FILE, TIMES_SNAPSHOT]) {
    const times = (await readLevels(new URL(name, root)))[level];
    if (times) {
      const entries = Object.entries(times).filter(([, s]) => typeof s === "number");
      return new Map(entries as [string, number][]);
    }
  }
  return new Map();
}

/**
 * Writes `seconds` (each file's time) as level `level`'s in
 * {@linkcode TIMES_FILE}, the other levels' kept, for the next run's plan.
 */
export async function writeTimes(
  root: URL,
  level: RunLevel,
  seconds: ReadonlyMap<string, number>,
): Promise<void> {
  const url = new URL(TIMES_FILE, root);
  const sorted = [...seconds].sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0)
    .map(([file, s]) => [file, Math.round(s * 10) / 10]);
  const levels = { ...await readLevels(url), [level]: Object.fromEntries(sorted) };
  await Deno.writeTextFile(url, JSON.stringify(levels, null, 2) + "\n");
}

/** A times file's levels, each `{ file: seconds }`; none when absent, unreadable or of another shape. */
async function readLevels(url: URL): Promise<Partial<Record<RunLevel, Record<string, unknown>>>> {
  try {
    const json = JSON.parse(await Deno.readTextFile(url));
    const levels: Partial<Record<RunLevel, Record<string, unknown>>> = {};
    for (const level of ["fast", "middle", "thorough"] as const) {
      const times = json?.[level];
      if (times && typeof times === "object") levels[level] = times;
    }
    return levels;
  } catch {
    return {};
  }
}

/** Where each run leaves each test file's time by run level (git-ignored): the next run starts the slowest first. */
export const TIMES_FILE = ".test-times.json";
/** A copy of runs' {@linkcode TIMES_FILE} (fast and thorough), for a clone that has none. */
export const TIMES_SNAPSHOT = "tests/_test_times.json";

/**
 * Runs `chunks` with `deno` at most `jobs` at a time; `onDone` gets each
 * chunk's result as it ends (its output captured, to be printed whole).
 */
export async function runChunks(
  deno: string,
  cwd: string,
  env: Record<string, string>,
  chunks: readonly Chunk[],
  jobs: number,
  onDone: (result: ChunkResult) => void,
): Promise<ChunkResult[]> {
  const results: ChunkResult[] = [];
  let next = 0;
  const worker = async () => {
    while (next < chunks.length) {
      const chunk = chunks[next++];
      const started = performance.now();
      const { code, stdout, stderr } = await new Deno.Command(deno, {
        args: chunk.args,
        cwd,
        env,
        stdin: "null",
        stdout: "piped",
        stderr: "piped",
      }).output();
      const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
      const result = {
        chunk,
        code,
        output: text(stdout) + text(stderr),
        seconds: (performance.now() - started) / 1000,
      };
      results.push(result);
      onDone(result);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, jobs) }, worker));
  return results;
}

/**
 * The leaf tests' counts and each file's time from the chunks' JUnit
 * reports; a chunk that failed without a failed test (an `only` left in, a
 * leak outside a test, a process that stopped early) counts one failure.
 * Deno files a test under the module whose `Deno.test` registered it: the
 * tests a helper registers for its callers (`_three_gltf.ts`'s
 * `testOnModels`) are counted, evenly, for the chunk's files that import
 * the helper (read from `root`).
 */
export async function readReports(
  results: readonly ChunkResult[],
  root: URL,
): Promise<{ counts: Counts; times: Map<string, number> }> {
  const counts: Counts = { passed: 0, failed: 0, skipped: 0 };
  const times = new Map<string, number>();
  for (const { chunk, code } of results) {
    let xml = "";
    try {
      xml = await Deno.readTextFile(chunk.junit);
    } catch {
      // No report: the process stopped before running tests (its output says why).
    }
    const chunkCounts = countJunit(xml);
    const files = chunk.files ?? [];
    for (const [file, seconds] of fileSeconds(xml)) {
      const callers = files.includes(file) ? [file] : await importers(files, file, root);
      for (const caller of callers.length ? callers : [file]) {
        times.set(caller, (times.get(caller) ?? 0) + seconds / Math.max(1, callers.length));
      }
    }
    if (code !== 0 && chunkCounts.failed === 0) chunkCounts.failed = 1;
    counts.passed += chunkCounts.passed;
    counts.failed += chunkCounts.failed;
    counts.skipped += chunkCounts.skipped;
  }
  return { counts, times };
}

/** Those of `files` whose text names `helper`'s file name (an import of it). */
async function importers(files: readonly string[], helper: string, root: URL): Promise<string[]> {
  const name = `/${helper.slice(helper.lastIndexOf("/") + 1)}"`;
  const found: string[] = [];
  for (const file of files) {
    try {
      if ((await Deno.readTextFile(new URL(file, root))).includes(name)) found.push(file);
    } catch {
      // Unreadable: not counted.
    }
  }
  return found;
}

function unescapeXml(text: string): string {
  return text.replace(
    /&(lt|gt|quot|apos|amp);/g,
    (_, name: string) => ({ lt: "<", gt: ">", quot: '"', apos: "'", amp: "&" })[name]!,
  );
}

interface TestCase {
  readonly name: string;
  readonly file: string;
  readonly seconds: number;
  readonly body: string;
}

/** The test cases of a JUnit report, each with the module it ran in (its suite, not its classname). */
function testCases(xml: string): TestCase[] {
  return [...xml.matchAll(/<testsuite name="([^"]*)"[^>]*>([\s\S]*?)<\/testsuite>/g)].flatMap((
    suite,
  ) =>
    [
      ...suite[2].matchAll(
        /<testcase name="([^"]*)"[^>]*? time="([^"]*)"[^>]*?(\/>|>([\s\S]*?)<\/testcase>)/g,
      ),
    ].map((m) => ({
      name: unescapeXml(m[1]),
      file: unescapeXml(suite[1]),
      seconds: Number(m[2]) || 0,
      body: m[4] ?? "",
    }))
  );
}

/**
 * Counts leaf tests in Deno's JUnit report. Deno lists a test and each of its
 * steps (every bdd `it` is a step of its `describe`) as test cases named
 * `outer > inner > test`; a case with children is a group, counted only when
 * it failed for a reason of its own (a hook), not because a step failed.
 */
function countJunit(xml: string): Counts {
  const cases = testCases(xml);
  const names = new Set(cases.map((c) => `${c.file}\0${c.name}`));
  const parents = new Set<string>();
  for (const name of names) {
    const parts = name.split(" > ");
    for (let i = 1; i < parts.length; i++) parents.add(parts.slice(0, i).join(" > "));
  }
  const counts: Counts = { passed: 0, failed: 0, skipped: 0 };
  for (const { name, file, body } of cases) {
    const group = parents.has(`${file}\0${name}`);
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

/** Seconds of each file's top-level tests in a JUnit report (module loading not included). */
function fileSeconds(xml: string): Map<string, number> {
  const into = new Map<string, number>();
  for (const { name, file, seconds } of testCases(xml)) {
    const path = file.replace(/^\.\//, "");
    if (!name.includes(" > ")) into.set(path, (into.get(path) ?? 0) + seconds);
  }
  return into;
}

/** Test processes at a time: `MARROW_TEST_JOBS`, else one per core. */
export function defaultJobs(): number {
  const text = Deno.env.get("MARROW_TEST_JOBS");
  return text ? parseJobs(text) : Math.max(1, navigator.hardwareConcurrency || 1);
}

/** `--jobs=N`: a whole number from 1 to 64. */
export function parseJobs(text: string): number {
  const jobs = Number(text);
  if (!Number.isInteger(jobs) || jobs < 1 || jobs > 64) {
    throw new Error(`--jobs/MARROW_TEST_JOBS must be a whole number from 1 to 64, not "${text}"`);
  }
  return jobs;
}

/** Seconds since `started` (a `performance.now()`), as "12.3 s". */
export function secondsSince(started: number): string {
  return `${((performance.now() - started) / 1000).toFixed(1)} s`;
}
