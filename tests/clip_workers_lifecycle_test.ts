/**
 * Clip workers are started once and reused, stop when idle, and never keep
 * a process alive: preparations given one `ClipWorkers` start at most its
 * worker count between them; idle workers stop and start again for the
 * next preparation; a process that prepared clips (with workers started for
 * the call, or with workers it never closed) exits by itself.
 */
import { assert, assertEquals } from "@std/assert";
import { SkeletonAsset } from "../mod.ts";
import { createClipWorkers, prepareClipsOnWorkers } from "../clips.ts";
import { clipBuildThreads } from "../animation/clip_workers.ts";
import { createCylinder, waveClip } from "../procedural/cylinder.ts";

const CHILD = new URL("./_clip_workers_exit.ts", import.meta.url);
const IMPORT_MAP = new URL("../import_map.dev.json", import.meta.url);
/** How long a child may take before it counts as kept alive (a bound, not a measurement). */
const CHILD_BOUND_MS = 60_000;

function clipsOf(joints: number, count: number) {
  const skeleton = new SkeletonAsset(createCylinder({ joints }).skeleton);
  const clips = Array.from({ length: count }, (_, i) => waveClip(joints, { keys: 8 + i }));
  return { skeleton, clips };
}

Deno.test("preparations given one ClipWorkers share its workers", async () => {
  using clipWorkers = createClipWorkers({ workers: 2, idleMilliseconds: 60_000 });
  const threads = clipBuildThreads(clipWorkers)!;
  for (let i = 0; i < 3; i++) {
    const { skeleton, clips } = clipsOf(6 + i, 5);
    await prepareClipsOnWorkers(skeleton, clips, { clipWorkers });
  }
  assertEquals(threads.started, 2, "two workers for three preparations of five clips");
  assertEquals(threads.running, 2);
  clipWorkers.close();
  assertEquals(threads.running, 0, "close stops them");
});

Deno.test("idle workers stop, and start again for the next preparation", async () => {
  using clipWorkers = createClipWorkers({ workers: 1, idleMilliseconds: 0 });
  const threads = clipBuildThreads(clipWorkers)!;
  const first = clipsOf(6, 2);
  await prepareClipsOnWorkers(first.skeleton, first.clips, { clipWorkers });
  for (let tries = 0; threads.running > 0 && tries < 1000; tries++) {
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  assertEquals(threads.running, 0, "the idle worker stopped");
  const second = clipsOf(7, 2);
  const prepared = await prepareClipsOnWorkers(second.skeleton, second.clips, { clipWorkers });
  assertEquals(prepared.length, 2);
  assertEquals(threads.started, 2, "started again");
});

for (const mode of ["call", "kept"]) {
  Deno.test(`a process that prepared clips on workers (${mode}) exits by itself`, async () => {
    const child = new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--allow-read",
        "--allow-env",
        `--import-map=${IMPORT_MAP.href}`,
        CHILD.href,
        mode,
      ],
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    let killed = false;
    const bound = setTimeout(() => {
      killed = true;
      child.kill("SIGKILL");
    }, CHILD_BOUND_MS);
    const { code, stdout, stderr } = await child.output();
    clearTimeout(bound);
    const out = new TextDecoder().decode(stdout);
    assert(!killed, `${mode}: still running after ${CHILD_BOUND_MS} ms (output: ${out})`);
    assertEquals(code, 0, new TextDecoder().decode(stderr));
    assertEquals(out.trim(), "prepared 2");
  });
}
