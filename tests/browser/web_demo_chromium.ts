/**
 * Browser suite, web demo part: `deno task serve`'s page in headless
 * Chromium (WebGL on SwiftShader) must open on a real character drawn with
 * its texture (more than one colour family), draw an animated crowd from
 * Marrow's skinned output (pixels drawn, pixels changing between frames),
 * in the right vertex order (pixel-identical to a drawing of the same
 * frame in the file's vertex order), show its time table and core build,
 * switch to the scalar path, and draw glTF files picked from its list and
 * chosen in its file input. Screenshots go to `$MARROW_SCREENSHOTS`
 * (default: a temporary folder).
 *
 * Run by `deno task test:browser` (needs Debian's `chromium`).
 */

import "../../scalar.ts";
import assert from "node:assert/strict";
import { Chromium, type Page } from "./_chromium.ts";
import { serveRoutes } from "../../examples/web/_server.ts";
import { demoRoutes } from "../../examples/web/serve.ts";

interface Pixels {
  readonly width: number;
  readonly height: number;
  readonly grey: number[];
}

/** The page's background, as grey level (#20242b). */
const BACKGROUND = Math.round((0x20 * 3 + 0x24 * 6 + 0x2b) / 10);
const CESIUM_MAN = new URL("../fixtures/gltf/CesiumMan.glb", import.meta.url).pathname;
const SYSTEMS = [
  "sampleClips",
  "quatToMat",
  "transformSkeleton",
  "multiplyInverseBind",
  "skin",
  "skinWithTangents",
];

async function until<T>(page: Page, expression: string, what: string, ms = 60_000): Promise<T> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    const value = await page.evaluate<T>(expression);
    if (value) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${what}: not within ${ms} ms\npage log:\n${page.log.join("\n")}`);
}

/** Waits for `frames` more frames, then reads the canvas back. */
async function pixelsAfter(page: Page, frames: number): Promise<Pixels> {
  const now = await page.evaluate<number>("marrowDemo.frames");
  await until(page, `marrowDemo.frames >= ${now + frames}`, `${frames} frames`);
  return await page.evaluate<Pixels>("marrowDemo.pixels()");
}

/** Share of pixels not of the background colour, and share that changed from `a` to `b`. */
function measure(a: Pixels, b: Pixels): { drawn: number; changed: number } {
  const n = a.grey.length;
  const drawn = a.grey.filter((g) => Math.abs(g - BACKGROUND) > 6).length / n;
  const changed = a.grey.filter((g, i) => Math.abs(g - b.grey[i]) > 8).length / n;
  return { drawn, changed };
}

async function checkAnimatedCrowd(page: Page, scene: string): Promise<void> {
  const a = await pixelsAfter(page, 2);
  const b = await pixelsAfter(page, 3);
  const { drawn, changed } = measure(a, b);
  console.log(
    `  ${scene}: ${(drawn * 100).toFixed(1)}% of pixels drawn, ` +
      `${(changed * 100).toFixed(1)}% changed between two frames`,
  );
  assert.ok(drawn > 0.03, `${scene}: only ${(drawn * 100).toFixed(2)}% of pixels drawn`);
  assert.ok(changed > 0.003, `${scene}: only ${(changed * 100).toFixed(2)}% of pixels changed`);
}

/**
 * A textured drawing: at least two colour families (hue sectors or grey)
 * each hold 5 % of the drawn pixels once the texture has loaded; a plain
 * material, lit, stays in one.
 */
async function checkTextured(page: Page, scene: string): Promise<void> {
  let families: Record<string, number> = {};
  const deadline = Date.now() + 30_000;
  do {
    await pixelsAfter(page, 2);
    families = await page.evaluate<Record<string, number>>("marrowDemo.colourFamilies()");
    if (Object.values(families).filter((share) => share >= 0.05).length >= 2) break;
  } while (Date.now() < deadline);
  const shown = Object.entries(families).map(([k, v]) => `${k} ${(v * 100).toFixed(1)}%`);
  console.log(`  ${scene}: colour families of the drawn pixels: ${shown.join(", ")}`);
  const wide = Object.values(families).filter((share) => share >= 0.05).length;
  assert.ok(wide >= 2, `${scene}: not textured (${shown.join(", ")})`);
}

/** The zero-copy drawing must equal the file-order drawing of the same frame, pixel for pixel. */
async function checkVertexOrder(page: Page, scene: string): Promise<void> {
  const { differing, drawn, total } = await page.evaluate<
    { differing: number; drawn: number; total: number }
  >("marrowDemo.sourceOrderDifference()");
  console.log(
    `  ${scene}: ${differing} of ${drawn} drawn pixels (${total} in all) differ from the ` +
      "drawing in the file's vertex order",
  );
  assert.ok(drawn > total * 0.01, `${scene}: only ${drawn} pixels drawn`);
  assert.ok(differing <= drawn * 0.001, `${scene}: ${differing} pixels differ`);
}

/** Waits for glTF file `name` to be on screen, checks it, and saves a screenshot to `png`. */
async function checkModel(page: Page, name: string, how: string, png: string): Promise<void> {
  await until(
    page,
    `document.getElementById('status').textContent.startsWith(${JSON.stringify(name)})`,
    `${name} on screen`,
  );
  await checkAnimatedCrowd(page, `${name} (${how}; parseGltf in the page), scalar`);
  await checkVertexOrder(page, name);
  await Deno.writeFile(png, await page.screenshot());
}

/**
 * The crowd mode: 2,000 small characters animate, in more than one level
 * of detail band, and the culled ones are not drawn.
 */
async function checkCrowdMode(page: Page, png: string): Promise<void> {
  await page.evaluate(`(() => { const s = document.getElementById("model");
    s.value = "crowd"; document.getElementById("count").value = "2000";
    s.dispatchEvent(new Event("change")); })()`);
  await until(page, "globalThis.marrowDemo?.entities === 2000", "2,000 characters on screen");
  await checkAnimatedCrowd(page, "crowd mode, 2,000 characters");
  const { drawn, bands } = await page.evaluate<{ drawn: number; bands: number[] }>(
    "marrowDemo.crowdBands",
  );
  console.log(`  crowd mode: ${drawn} drawn; per band, then culled: ${bands.join(", ")}`);
  assert.ok(bands.slice(0, -1).filter((n) => n > 0).length >= 2, "two bands or more in use");
  assert.ok(bands.at(-1)! > 0, "some characters culled");
  assert.equal(drawn, 2000 - bands.at(-1)!, "the culled characters are not drawn");
  await Deno.writeFile(png, await page.screenshot());
}

async function tableRows(page: Page): Promise<string[]> {
  return await until<string[]>(
    page,
    `(() => { const rows = [...document.querySelectorAll("#times tbody tr")]
       .map((tr) => tr.cells[0].textContent + " = " + tr.cells[1].textContent);
       return rows.length ? rows : null; })()`,
    "the time table",
  );
}

Deno.test("the web demo draws an animated skinned crowd with its time table", async () => {
  const server = serveRoutes(await demoRoutes(), { lifetimeMs: 300_000 });
  try {
    await using browser = await Chromium.launch({ timeoutMs: 120_000 });
    const page = await browser.open(`${server.origin}/`);
    // It opens on a real character, drawn with its texture, then shows the generated crowd.
    await until(
      page,
      "document.getElementById('status').textContent.startsWith('CesiumMan.glb')",
      "the opening character",
    );
    await checkTextured(page, "CesiumMan.glb, the opening model");
    await checkAnimatedCrowd(page, "CesiumMan.glb, the opening model");
    await page.evaluate(`(() => { document.getElementById("count").value = "64";
      const s = document.getElementById("model");
      s.value = ""; s.dispatchEvent(new Event("change")); })()`);
    await until(page, "globalThis.marrowDemo?.entities === 64", "64 entities on screen");
    await checkAnimatedCrowd(page, "generated crowd, relaxed-simd");
    await checkVertexOrder(page, "generated crowd");

    const rows = await tableRows(page);
    console.log(`  time table: ${rows.join(", ")}`);
    for (const name of [...SYSTEMS, "Marrow frame"]) {
      assert.ok(
        rows.some((row) => new RegExp(`^${name} = \\d+(\\.\\d+)? (µs|ms)$`).test(row)),
        `no row for ${name} in ${rows.join(", ")}`,
      );
    }
    assert.equal(
      await page.evaluate("document.getElementById('build').textContent"),
      "relaxed-simd",
    );

    const folder = Deno.env.get("MARROW_SCREENSHOTS") ??
      await Deno.makeTempDir({ prefix: "marrow-screenshots-" });
    await Deno.mkdir(folder, { recursive: true });
    const png = await page.screenshot();
    assert.deepEqual([...png.subarray(1, 4)], [0x50, 0x4e, 0x47]); // "PNG"
    await Deno.writeFile(`${folder}/web_demo.png`, png);
    console.log(`  screenshot: ${folder}/web_demo.png (${png.length} bytes)`);

    await page.evaluate("document.getElementById('core').click()");
    await until(page, "marrowDemo.build === 'scalar'", "the switch to scalar");
    assert.equal(await page.evaluate("document.getElementById('build').textContent"), "scalar");
    await checkAnimatedCrowd(page, "generated crowd, scalar");

    // A model from the page's list, then a file chosen in its file input, as a user would.
    await page.evaluate(`(() => { const s = document.getElementById("model");
      s.value = "Fox.glb"; s.dispatchEvent(new Event("change")); })()`);
    await checkModel(
      page,
      "Fox.glb",
      "from the list, no index buffer",
      `${folder}/web_demo_fox.png`,
    );
    const { root } = await page.send("DOM.getDocument") as { root: { nodeId: number } };
    const { nodeId } = await page.send("DOM.querySelector", {
      nodeId: root.nodeId,
      selector: "#file",
    });
    await page.send("DOM.setFileInputFiles", { nodeId, files: [CESIUM_MAN] });
    await checkModel(page, "CesiumMan.glb", "file input, indexed", `${folder}/web_demo_cesium.png`);
    await page.evaluate(`(() => { const s = document.getElementById("model");
      s.value = "RobotExpressive.glb"; s.dispatchEvent(new Event("change")); })()`);
    await checkModel(
      page,
      "RobotExpressive.glb",
      "from the list, attached meshes and a face with morph targets",
      `${folder}/web_demo_robot.png`,
    );
    await checkCrowdMode(page, `${folder}/web_demo_crowd.png`);
    assert.deepEqual(page.log.filter((line) => line.startsWith("uncaught")), []);
    await page.close();
  } finally {
    await server.close();
  }
});
