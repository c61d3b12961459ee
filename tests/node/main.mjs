// Runs the bundled scenarios (tests/node/_scenario.ts) under Node and writes
// each output to OUT_DIR as raw float32 bytes, plus report.json.
// Usage: node main.mjs BUNDLE OUT_DIR MODEL...   (started by tests/node/suite.ts)
import { readFile, writeFile } from "node:fs/promises";
import { basename } from "node:path";
import { pathToFileURL } from "node:url";

const [bundle, outDir, ...models] = process.argv.slice(2);
const scenario = await import(pathToFileURL(bundle).href);

const write = (name, floats) =>
  writeFile(
    `${outDir}/${name}.bin`,
    new Uint8Array(floats.buffer, floats.byteOffset, floats.byteLength),
  );

const builds = scenario.supportedBuilds();
const report = {
  node: process.version,
  webAssembly: typeof WebAssembly === "object",
  builds,
  views: {},
  unsupported: {},
};
for (const build of scenario.BUILDS.filter((b) => !builds.includes(b))) {
  // An unsupported build must be refused with a TypeError, not half-created.
  try {
    scenario.crowd(build);
    report.unsupported[build] = "created";
  } catch (error) {
    report.unsupported[build] = `${error.name}: ${error.message}`;
  }
}
for (const build of builds) {
  await write(`crowd.${build}`, scenario.crowd(build));
  for (const model of models) {
    const bytes = new Uint8Array(await readFile(model));
    await write(`${basename(model)}.${build}`, await scenario.gltf(build, bytes, basename(model)));
  }
  report.views[build] = scenario.views(build);
}
await writeFile(`${outDir}/report.json`, JSON.stringify(report, null, 2));
