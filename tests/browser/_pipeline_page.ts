/// <reference lib="dom" />
/**
 * Browser entry of the pipeline suite: fetches the glTF file named by the
 * page's `?model=` parameter and runs the scenario on it. The test reads
 * the result from `globalThis.scenario`, a promise.
 *
 * @module
 */

import { type PageReport, runScenario, runTaskParallel } from "./_scenario.ts";

async function main(): Promise<PageReport> {
  const model = new URL(location.href).searchParams.get("model") ?? "CesiumMan.glb";
  const response = await fetch(`/${model}`);
  if (!response.ok) throw new Error(`/${model}: HTTP ${response.status}`);
  const report = await runScenario(new Uint8Array(await response.arrayBuffer()), model);
  return {
    ...report,
    crossOriginIsolated: globalThis.crossOriginIsolated,
    sharedArrayBuffer: typeof SharedArrayBuffer === "function",
    taskParallel: await runTaskParallel("relaxed-simd"),
  };
}

(globalThis as { scenario?: Promise<PageReport> }).scenario = main();
