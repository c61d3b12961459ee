/**
 * The Node suite (`deno task test:node`; `.ci/run` runs it after the Deno
 * tests): Marrow bundled with `deno bundle` and run under the `node` on the
 * PATH, compared bit for bit with the same runs in Deno.
 *
 * 1. Bundles `mod.ts` alone and checks that Node imports it and sees the
 *    public API (bitecs and @gltf-transform/core are inside the bundle).
 * 2. Bundles `tests/node/_scenario.ts` (the runs: the generated crowd, glTF
 *    files through `parseGltf(bytes)`, views across growth) and runs it
 *    with `tests/node/main.mjs` under `node`, then under `node --jitless`
 *    (no WebAssembly: only the scalar fallback).
 * 3. Runs the same scenarios here, in Deno, from source, and compares every
 *    output of every build Node ran byte for byte.
 * 4. Checks what kept views did: attached exactly when
 *    `core.viewsSurviveGrowth`, always attached with `reserveBytes`.
 * 5. Runs the Node example of `docs/node_and_browsers.md`, bundled, under `node` and
 *    `node --jitless`.
 *
 * Needs `--allow-run` (deno, node), `--allow-read`, `--allow-write` (the
 * temporary bundle and outputs) and `--allow-env`. `MARROW_NODE` names
 * another Node executable (default: `node` on the PATH).
 *
 * @module
 */

import "../../scalar.ts";
import assert from "node:assert/strict";
import { crowd, gltf, supportedBuilds, views, type ViewsReport } from "./_scenario.ts";
import type { CoreBuild } from "../../kernels.ts";
import { bundle, ROOT, run } from "./_commands.ts";

const MODELS = ["Fox.glb", "CesiumMan.glb"].map((name) =>
  decodeURIComponent(new URL(`tests/fixtures/gltf/${name}`, ROOT).pathname)
);
const NODE = Deno.env.get("MARROW_NODE") ?? "node";

interface NodeReport {
  node: string;
  webAssembly: boolean;
  builds: string[];
  views: Record<string, ViewsReport>;
  unsupported: Record<string, string>;
}

/** The first index at which two float outputs differ, for the failure message. */
function firstDifference(a: Float32Array, b: Float32Array): string {
  if (a.length !== b.length) return `lengths ${a.length} (node) vs ${b.length} (deno)`;
  const ua = new Uint32Array(a.buffer, a.byteOffset, a.length);
  const ub = new Uint32Array(b.buffer, b.byteOffset, b.length);
  const i = ua.findIndex((bits, k) => bits !== ub[k]);
  return i < 0 ? "identical" : `float ${i}: ${a[i]} (node) vs ${b[i]} (deno)`;
}

const dir = await Deno.makeTempDir({ prefix: "marrow-node-" });
const nodeVersion = (await run(NODE, ["--version"])).trim();
const scenario = `${dir}/scenario.mjs`;
await bundle("tests/node/_scenario.ts", scenario);

/** Deno's outputs, computed once per build and case. */
const denoOutputs = new Map<string, Float32Array>();
async function denoOutput(key: string): Promise<Float32Array> {
  let out = denoOutputs.get(key);
  if (!out) {
    const [name, build] = [key.slice(0, key.lastIndexOf(".")), key.slice(key.lastIndexOf(".") + 1)];
    const model = MODELS.find((m) => m.endsWith(`/${name}`));
    out = model
      ? await gltf(build as CoreBuild, await Deno.readFile(model), name)
      : crowd(build as CoreBuild);
    denoOutputs.set(key, out);
  }
  return out;
}

Deno.test(`node ${nodeVersion}: the bundled module imports and shows the public API`, async () => {
  const out = `${dir}/marrow.mjs`;
  await bundle("mod.ts", out);
  const script = `const m = await import(${JSON.stringify(`file://${out}`)});` +
    `console.log(JSON.stringify(Object.keys(m).sort()));`;
  const keys: string[] = JSON.parse(await run(NODE, ["--input-type=module", "-e", script]));
  for (
    const name of ["createAnimation", "createAnimationPipeline", "playClip", "SkeletonAsset"]
  ) {
    assert.ok(keys.includes(name), `${name} is exported (got ${keys.length} names)`);
  }
});

for (const flags of [[], ["--jitless"]]) {
  const label = `node ${nodeVersion}${flags.length ? ` ${flags.join(" ")}` : ""}`;
  Deno.test(`${label}: crowd, parseGltf and views match Deno bit for bit`, async () => {
    const out = await Deno.makeTempDir({ dir, prefix: "out-" });
    await run(NODE, [
      ...flags,
      decodeURIComponent(new URL("tests/node/main.mjs", ROOT).pathname),
      scenario,
      out,
      ...MODELS,
    ]);
    const report: NodeReport = JSON.parse(await Deno.readTextFile(`${out}/report.json`));

    // What the runtime offers.
    if (flags.includes("--jitless")) {
      assert.equal(report.webAssembly, false, "--jitless has no WebAssembly");
      assert.deepEqual(report.builds, ["scalar"]);
    } else {
      assert.equal(report.webAssembly, true);
      assert.ok(
        report.builds.includes("simd") || report.builds.includes("relaxed-simd"),
        `a SIMD build runs under Node (got ${report.builds.join(", ")})`,
      );
      assert.ok(report.builds.includes("scalar"));
    }
    for (const [build, error] of Object.entries(report.unsupported)) {
      assert.match(error, /^TypeError: core build ".*" is not supported/, build);
    }

    // Bit for bit against Deno, per build.
    const denoBuilds = supportedBuilds();
    const compared: string[] = [];
    for (const build of report.builds) {
      assert.ok(denoBuilds.includes(build as CoreBuild), `Deno runs ${build} too`);
      for (const name of ["crowd", ...MODELS.map((m) => m.slice(m.lastIndexOf("/") + 1))]) {
        const key = `${name}.${build}`;
        const bytes = await Deno.readFile(`${out}/${key}.bin`);
        const node = new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4);
        const deno = await denoOutput(key);
        assert.ok(deno.length > 0, `${key}: output is not empty`);
        assert.ok(
          node.every(Number.isFinite),
          `${key}: Node's output is finite`,
        );
        assert.equal(firstDifference(node, deno), "identical", key);
        compared.push(`${key} (${deno.length} floats)`);
      }

      // Views: attached exactly when the core says so; reserved ones always.
      const v = report.views[build];
      const where = `${label}, ${build}`;
      assert.equal(v.keptViewReads, v.viewsSurviveGrowth, `${where}: kept view reads`);
      assert.equal(v.keptViewWrites, v.viewsSurviveGrowth, `${where}: kept view writes`);
      assert.deepEqual(
        [v.reservedViewReads, v.reservedViewWrites, v.reservedGrew],
        [true, true, false],
        `${where}: reserveBytes keeps views attached`,
      );
    }
    console.log(
      `${label}: builds ${report.builds.join(", ")}; bit-identical to Deno: ${
        compared.join(", ")
      }; viewsSurviveGrowth ${
        report.builds.map((b) => `${b}=${report.views[b].viewsSurviveGrowth}`).join(" ")
      }`,
    );
  });
}

/** The first `js` code block under the "Node" heading of `docs/node_and_browsers.md`. */
async function guideNodeExample(): Promise<string> {
  const guide = await Deno.readTextFile(new URL("docs/node_and_browsers.md", ROOT));
  const section = guide.slice(guide.indexOf("\n## Node"));
  const block = section.match(/\n```js\n([\s\S]*?)\n```\n/)?.[1];
  if (!block) throw new Error('docs/node_and_browsers.md: no js block under "## Node"');
  return block;
}

Deno.test(`node ${nodeVersion}: the Node example of docs/node_and_browsers.md runs as written`, async () => {
  const source = `${dir}/guide_node.mjs`, bundled = `${dir}/guide_node.bundle.mjs`;
  await Deno.writeTextFile(source, await guideNodeExample());
  // @marrow/anim resolves to this checkout, bitecs to the same npm package.
  await run(Deno.execPath(), [
    "bundle",
    "--quiet",
    "--config",
    decodeURIComponent(new URL("deno.json", ROOT).pathname),
    "--platform=node",
    "--format=esm",
    "-o",
    bundled,
    source,
  ]);
  assert.match((await run(NODE, [bundled])).trim(), /^(relaxed-)?simd true$/);
  assert.equal((await run(NODE, ["--jitless", bundled])).trim(), "scalar true");
});

Deno.test("Deno: the comparison tells builds apart (SIMD and scalar round differently)", async () => {
  const name = MODELS[1].slice(MODELS[1].lastIndexOf("/") + 1);
  const simd = await denoOutput(`${name}.simd`);
  const scalar = await denoOutput(`${name}.scalar`);
  assert.notEqual(firstDifference(simd, scalar), "identical");
});

Deno.test("Deno: views report agrees with viewsSurviveGrowth on every build", () => {
  for (const build of supportedBuilds()) {
    const v = views(build);
    assert.equal(v.keptViewReads, v.viewsSurviveGrowth, build);
    assert.equal(v.keptViewWrites, v.viewsSurviveGrowth, build);
    assert.equal(v.reservedGrew, false, build);
  }
});

globalThis.addEventListener("unload", () => {
  Deno.removeSync(dir, { recursive: true });
});
