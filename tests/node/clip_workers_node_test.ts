/**
 * Node suite, clip workers part: under the `node` on the PATH (`MARROW_NODE`
 * names another), Marrow bundled with `deno bundle` builds a character's
 * clips on the calling thread when asked to prepare them on workers (Node
 * has no `Worker`), says so, and the clips equal those of
 * `createCharacterAssets`. Needs `--allow-run`, `--allow-read`,
 * `--allow-write` and `--allow-env`.
 */

import assert from "node:assert/strict";

const ROOT = new URL("../../", import.meta.url);
const NODE = Deno.env.get("MARROW_NODE") ?? "node";

async function run(command: string, args: string[]): Promise<string> {
  const { code, stdout, stderr } = await new Deno.Command(command, {
    args,
    cwd: decodeURIComponent(ROOT.pathname),
    env: { DENO_NO_UPDATE_CHECK: "1", NO_COLOR: "1" },
    stdin: "null",
  }).output();
  const text = new TextDecoder().decode(stdout);
  if (code !== 0) {
    throw new Error(
      `${command} ${args.join(" ")} exited with ${code}:\n${text}\n${
        new TextDecoder().decode(stderr)
      }`,
    );
  }
  return text;
}

Deno.test("node: createCharacterAssetsAsync builds on the calling thread, says why, same clips", async () => {
  const dir = await Deno.makeTempDir({ prefix: "marrow-node-clip-workers-" });
  try {
    const bundle = `${dir}/scenario.mjs`;
    await run(Deno.execPath(), [
      "bundle",
      "--quiet",
      "--platform=node",
      "--format=esm",
      "-o",
      bundle,
      "tests/node/_clip_workers_scenario.ts",
    ]);
    for (const model of ["CesiumMan.glb", "Fox.glb"]) {
      const path = decodeURIComponent(new URL(`tests/fixtures/gltf/${model}`, ROOT).pathname);
      const report = JSON.parse(await run(NODE, [bundle, path]));
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
