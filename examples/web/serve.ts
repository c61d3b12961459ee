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
import { argsErrorLine, joinDashValues } from "../cli_args.ts";

const FIXTURES = new URL("../../tests/fixtures/gltf/", import.meta.url);
/**
 * Models offered in the page's list (files of `tests/fixtures/gltf/`). The
 * import brings meshes hung on a skeleton's nodes too (attached meshes):
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

/** What `deno task serve` was asked for. */
export interface ServeArgs {
  readonly port: number;
  readonly crossOriginIsolated: boolean;
}

/** `deno task serve`'s arguments, or a one-line message saying what is wrong with them. */
export function parseServeArgs(args: string[]): ServeArgs | string {
  let values;
  try {
    ({ values } = parseArgs({
      args: joinDashValues(args, ["--port"]),
      options: { port: { type: "string" }, "no-isolation": { type: "boolean" } },
    }));
  } catch (error) {
    return argsErrorLine(error);
  }
  const text = values.port;
  const port = Number(text ?? 8000);
  if (text === "" || !Number.isInteger(port) || port < 0 || port > 65535) {
    return `--port: expected a port number from 0 to 65535, got "${text}"`;
  }
  return { port, crossOriginIsolated: !values["no-isolation"] };
}

/** A one-line message when 127.0.0.1:`port` cannot be listened on, else undefined. */
export function portProblem(port: number, error: unknown): string | undefined {
  if (error instanceof Deno.errors.AddrInUse) {
    return `port ${port} is in use on 127.0.0.1: stop what serves there or choose another with --port N`;
  }
  if (error instanceof Deno.errors.PermissionDenied) {
    return `cannot listen on 127.0.0.1:${port} (${
      error.message.split("\n")[0]
    }): choose another with --port N`;
  }
  return undefined;
}

async function main(): Promise<number> {
  const args = parseServeArgs(Deno.args);
  if (typeof args === "string") {
    console.error(`error: ${args} (usage: deno task serve [--port N] [--no-isolation])`);
    return 2;
  }
  // The port first: bundling takes seconds, a busy port is known at once.
  try {
    Deno.listen({ hostname: "127.0.0.1", port: args.port }).close();
  } catch (error) {
    const problem = portProblem(args.port, error);
    if (!problem) throw error;
    console.error(`error: ${problem}`);
    return 1;
  }
  console.log("bundling examples/web/main.ts …");
  let routes: Routes;
  try {
    routes = await demoRoutes();
  } catch (error) {
    console.error(`error: ${error instanceof Error ? error.message : error}`);
    return 1;
  }
  try {
    const served = serveRoutes(routes, args);
    console.log(`Marrow web demo: ${served.origin}/ (Ctrl-C stops it)`);
  } catch (error) {
    const problem = portProblem(args.port, error);
    if (!problem) throw error;
    console.error(`error: ${problem}`);
    return 1;
  }
  return 0;
}

if (import.meta.main) {
  const code = await main();
  if (code !== 0) Deno.exit(code);
}
