/**
 * Browser suite, clip workers part: in headless Chromium, a page whose
 * bundle holds Marrow prepares a glTF file's clips on workers running the
 * clip build worker's own bundle, and the compact clip files equal those of
 * the clips built on the page's thread, with no build on the page's thread
 * meanwhile; without that bundle (`moduleUrl`) the clips are built on the
 * page's thread, and `fallbackReason` says why. With and without
 * cross-origin isolation (workers need none).
 *
 * Run with `deno task test:browser`'s flags (needs Debian's `chromium`).
 */

import assert from "node:assert/strict";
import { Chromium } from "./_chromium.ts";
import type { ClipWorkersReport } from "./_clip_workers_page.ts";
import * as web from "../../examples/web/_server.ts";

const MODELS = ["CesiumMan.glb", "Fox.glb"];
const FIXTURES = new URL("../fixtures/gltf/", import.meta.url);
const PAGE = `<!doctype html><meta charset="utf-8"><title>Marrow clip workers</title>
<script type="module" src="/page.js"></script>`;

async function routes(): Promise<web.Routes> {
  const page = await web.bundle(new URL("./_clip_workers_page.ts", import.meta.url));
  const worker = await web.bundle(new URL("../../animation/clip_build_worker.ts", import.meta.url));
  const routes: web.Routes = new Map([
    ["/index.html", () => ({ body: PAGE, type: web.HTML })],
    ["/page.js", () => ({ body: page, type: web.JS })],
    ["/clip_build_worker.js", () => ({ body: worker, type: web.JS })],
  ]);
  for (const m of MODELS) routes.set(`/${m}`, web.fileRoute(new URL(m, FIXTURES), web.GLB));
  return routes;
}

Deno.test("Chromium prepares clips on workers from the worker's bundle, as built on the page", async (t) => {
  const served = await routes();
  await using browser = await Chromium.launch({ timeoutMs: 120_000 });
  for (const model of MODELS) {
    for (const isolated of [true, false]) {
      await t.step(`${model}, cross-origin isolated: ${isolated}`, async () => {
        const server = web.serveRoutes(served, {
          crossOriginIsolated: isolated,
          lifetimeMs: 300_000,
        });
        try {
          const page = await browser.open(`${server.origin}/?model=${model}`);
          const report = await page.evaluate<ClipWorkersReport>("globalThis.clipWorkersReport")
            .catch((e) => {
              throw new Error(`${e.message}\npage log:\n${page.log.join("\n")}`);
            });
          await page.close();
          assert.ok(report.clips > 0, `${model}: has clips`);
          assert.equal(report.workersMode, "workers");
          assert.equal(report.workersEqual, true, `${model}: files prepared on workers differ`);
          assert.equal(report.buildsHereWhileOnWorkers, 0, `${model}: built on the page's thread`);
          assert.equal(report.bundledMode, "calling-thread");
          assert.match(report.bundledReason ?? "", /bundled/);
          assert.equal(report.bundledEqual, true, `${model}: files built as a fallback differ`);
        } finally {
          await server.close();
        }
      });
    }
  }
});
