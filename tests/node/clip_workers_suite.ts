/**
 * Node suite, clip workers part: under the `node` on the PATH (`MARROW_NODE`
 * names another), Marrow bundled with `deno bundle` builds a character's
 * clips on the calling thread when asked to prepare them on workers (Node
 * has no `Worker`), says so, and the clips equal those of
 * `createCharacterAssets`. Run by `deno task test:node` (not named
 * `*_test.ts`: `deno task test` does not give it `node`). Needs
 * `--allow-run`, `--allow-read`, `--allow-write` and `--allow-env`.
 */

import assert from "node:assert/strict";
import { bundle, ROOT, run } from "./_commands.ts";

const NODE = Deno.env.get("MARROW_NODE") ?? "node";

Deno.test("node: createCharacterAssetsAsync builds on the calling thread, says why, same clips", async () => {
  const dir = await Deno.makeTempDir({ prefix: "marrow-node-clip-workers-" });
  try {
    const scenario = `${dir}/scenario.mjs`;
    await bundle("tests/node/_clip_workers_scenario.ts", scenario);
    for (const model of ["CesiumMan.glb", "Fox.glb"]) {
      const path = decodeURIComponent(new URL(`tests/fixtures/gltf/${model}`, ROOT).pathname);
      const report = JSON.parse(await run(NODE, [scenario, path]));
      assert.equal(report.mode, "calling-thread", model);
      assert.equal(report.fallbackReason, "Worker is not available", model);
      assert.ok(report.clips > 0, model);
      assert.equal(report.buildsAfterPreparing, 0, `${model}: a clip was left unprepared`);
      assert.equal(report.equal, true, `${model}: the clips differ from createCharacterAssets'`);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
