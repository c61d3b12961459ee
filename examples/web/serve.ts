/**
 * `deno task serve [--port N] [--no-isolation]`: serves the web demo on
 * http://127.0.0.1:8000 (cross-origin isolated unless `--no-isolation`),
 * with the freely licensed models of `tests/fixtures/gltf/` to choose from.
 *
 * @module
 */

import { parseArgs } from "node:util";
import {
  type Asset,
  bundle,
  fileRoute,
  GLB,
  HTML,
  JS,
  type Routes,
  serveRoutes,
} from "./_server.ts";

const FIXTURES = new URL("../../tests/fixtures/gltf/", import.meta.url);
/**
 * Models offered in the page's list (files of `tests/fixtures/gltf/`). The
 * page imports meshes hung on a skeleton's nodes too (`attachedMeshes`):
 * RobotExpressive's body and face, the face making faces (morph targets).
 */
export const DEMO_MODELS: readonly string[] = [
  "CesiumMan.glb",
  "Fox.glb",
  "RobotExpressive.glb",
  "RiggedFigure.glb",
];

/** The demo's routes: the page, its bundled script, the model list and the models. */
export async function demoRoutes(): Promise<Routes> {
  const script = await bundle(new URL("./main.ts", import.meta.url));
  const routes: Routes = new Map<string, () => Asset | Promise<Asset>>([
    ["/index.html", fileRoute(new URL("./index.html", import.meta.url), HTML)],
    ["/main.js", () => ({ body: script, type: JS })],
    ["/models.json", () => ({ body: JSON.stringify(DEMO_MODELS), type: "application/json" })],
  ]);
  for (const m of DEMO_MODELS) routes.set(`/models/${m}`, fileRoute(new URL(m, FIXTURES), GLB));
  return routes;
}

if (import.meta.main) {
  const { values } = parseArgs({
    args: Deno.args,
    options: { port: { type: "string" }, "no-isolation": { type: "boolean" } },
  });
  const port = Number(values.port ?? 8000);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    console.error(`error: --port: expected a port number, got "${values.port}"`);
    Deno.exit(2);
  }
  console.log("bundling examples/web/main.ts …");
  const served = serveRoutes(await demoRoutes(), {
    port,
    crossOriginIsolated: !values["no-isolation"],
  });
  console.log(`Marrow web demo: ${served.origin}/ (Ctrl-C stops it)`);
}
