/**
 * Browser suite, pipeline part: the bundled module runs the scenario of
 * `_scenario.ts` (generated crowd and a glTF file fetched and read with
 * `parseGltf`) in headless Chromium on every core build the browser
 * supports, served with and without cross-origin isolation, and its output
 * digests must equal Deno's frame for frame.
 *
 * Run by `deno task test:browser` (needs Debian's `chromium`).
 */

import "../../scalar.ts";
import assert from "node:assert/strict";
import { Chromium } from "./_chromium.ts";
import { type PageReport, runScenario, type ScenarioReport } from "./_scenario.ts";
import * as web from "../../examples/web/_server.ts";

const MODELS = ["CesiumMan.glb", "Fox.glb"];
const FIXTURES = new URL("../fixtures/gltf/", import.meta.url);
const PAGE = `<!doctype html><meta charset="utf-8"><title>Marrow pipeline</title>
<script type="module" src="/pipeline.js"></script>`;

async function routes(): Promise<web.Routes> {
  const script = await web.bundle(new URL("./_pipeline_page.ts", import.meta.url));
  const routes: web.Routes = new Map([
    ["/index.html", () => ({ body: PAGE, type: web.HTML })],
    ["/pipeline.js", () => ({ body: script, type: web.JS })],
  ]);
  for (const m of MODELS) routes.set(`/${m}`, web.fileRoute(new URL(m, FIXTURES), web.GLB));
  return routes;
}

function compare(browser: ScenarioReport, deno: ScenarioReport): void {
  for (const run of browser.runs) {
    const twin = deno.runs.find((r) => r.build === run.build && r.character === run.character);
    assert.ok(twin, `Deno has no run of ${run.character} on ${run.build}`);
    assert.ok(run.finite, `${run.character} on ${run.build}: non-finite output in Chromium`);
    assert.ok(run.moved > 100, `${run.character} on ${run.build}: only ${run.moved} floats moved`);
    // Distinct frames: the clip advances, so equal digests cannot come from a frozen scene.
    assert.equal(new Set(run.frames).size, run.frames.length, `${run.character}: frames repeat`);
    assert.deepEqual(
      run.frames,
      twin.frames,
      `${run.character} on ${run.build}: Chromium's output differs from Deno's`,
    );
  }
}

Deno.test("Chromium runs the pipeline bit-identically to Deno on every build, isolated or not", async (t) => {
  const served = await routes();
  await using browser = await Chromium.launch({ timeoutMs: 120_000 });
  for (const model of MODELS) {
    const deno = await runScenario(await Deno.readFile(new URL(model, FIXTURES)), model);
    for (const isolated of [true, false]) {
      await t.step(`${model}, cross-origin isolated: ${isolated}`, async () => {
        const server = web.serveRoutes(served, {
          crossOriginIsolated: isolated,
          lifetimeMs: 300_000,
        });
        try {
          const page = await browser.open(`${server.origin}/?model=${model}`);
          const report = await page.evaluate<PageReport>("globalThis.scenario").catch((e) => {
            throw new Error(`${e.message}\npage log:\n${page.log.join("\n")}`);
          });
          await page.close();
          console.log(
            `  Chromium builds: ${report.builds.join(", ")} (default ${report.defaultBuild}); ` +
              `crossOriginIsolated ${report.crossOriginIsolated}, SharedArrayBuffer ` +
              `${report.sharedArrayBuffer}; ${report.runs.length} runs equal to Deno's`,
          );
          assert.equal(report.crossOriginIsolated, isolated);
          assert.equal(report.sharedArrayBuffer, isolated);
          // Chromium has shipped relaxed SIMD since 114: all three builds must run.
          assert.deepEqual(report.builds, ["relaxed-simd", "simd", "scalar"]);
          assert.equal(report.defaultBuild, "relaxed-simd");
          assert.equal(report.runs.length, report.builds.length * 2);
          compare(report, deno);
          // Task-parallel on a page's main thread (awaited): one call behind the plain frames,
          // on the workers where the page is isolated, on the page's thread where it is not.
          const plain = deno.runs.find((r) =>
            r.build === "relaxed-simd" && r.character.startsWith("generated")
          )!;
          assert.equal(report.taskParallel.mode, isolated ? "task-parallel" : "single-thread");
          assert.deepEqual(
            report.taskParallel.frames,
            plain.frames.map((_, k) => plain.frames[Math.max(0, k - 1)]),
            "Chromium's task-parallel frames are not Deno's one call behind",
          );
        } finally {
          await server.close();
        }
      });
    }
  }
});
