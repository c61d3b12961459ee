/**
 * The demo's `--workers N`: it runs the crowd on a pool of N threads and
 * prints the mode it ran in, then the task-parallel pipeline's mode; a worker count the pool refuses is a one-line
 * error.
 */
import { assertEquals, assertMatch } from "@std/assert";
import { runDemo } from "../examples/demo.ts";

async function demo(...args: string[]): Promise<{ code: number; out: string; err: string[] }> {
  const out: string[] = [], err: string[] = [];
  const code = await runDemo(args, { out: (l) => out.push(l), err: (l) => err.push(l) });
  return { code, out: out.join("\n"), err };
}

Deno.test("demo --workers N prints the mode it ran in", async () => {
  for (const [workers, mode] of [["2", "workers"], ["1", "single-thread"]]) {
    const { code, out, err } = await demo("--count", "4", "--frames", "2", "--workers", workers);
    assertEquals([code, err], [0, []]);
    assertMatch(out, new RegExp(`workers: mode ${mode}, ${workers} thread\\(s\\): [\\d.]+ ms`));
    const task = workers === "1" ? "single-thread" : "task-parallel";
    assertMatch(out, new RegExp(`task-parallel: mode ${task}: [\\d.]+ ms per frame`));
  }
});

Deno.test("demo --workers refuses a count the pool cannot run, before any work", async () => {
  const { code, out, err } = await demo("--count", "4", "--frames", "2", "--workers", "99");
  assertEquals([code, out], [2, ""]);
  assertMatch(err[0], /^error: --workers: expected a whole number from 1 to 16, got "99"/);
});
