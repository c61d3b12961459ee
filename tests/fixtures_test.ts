/**
 * The glTF fixtures: every model in `tests/fixtures/gltf/` is attributed
 * with a license file that exists, none of the test-only models is in the
 * repository, and the fixtures and their license texts are unchanged copies
 * of the shared assets where those are present (`deno fmt` leaves
 * `tests/fixtures/` alone).
 */
import { assert, assertEquals } from "@std/assert";
import { FIXTURE_DIR, SHARED_DIR, TEST_ONLY_MODELS } from "./_assets.ts";

const ROOT = new URL("../", import.meta.url);

function models(dir: URL): string[] {
  return [...Deno.readDirSync(dir)]
    .filter((e) => e.isFile && /\.(glb|gltf)$/i.test(e.name))
    .map((e) => e.name)
    .sort();
}

/** Every file name under `dir`, recursively, skipping `.git`. */
function allNames(dir: URL): string[] {
  const names: string[] = [];
  for (const entry of Deno.readDirSync(dir)) {
    if (entry.name === ".git") continue;
    if (entry.isDirectory) names.push(...allNames(new URL(`${entry.name}/`, dir)));
    else names.push(entry.name);
  }
  return names;
}

Deno.test("every glTF fixture is attributed, with a license file that exists", () => {
  const attribution = Deno.readTextFileSync(new URL("ATTRIBUTION.md", FIXTURE_DIR));
  const fixtures = models(FIXTURE_DIR);
  assertEquals(fixtures.length, 7);
  for (const name of fixtures) {
    const row = attribution.split("\n").find((line) => line.startsWith(`| ${name} `));
    assert(row, `${name}: a row in ATTRIBUTION.md`);
    const licenses = [...row.matchAll(/`(licenses\/[^`]+)`/g)].map((m) => m[1]);
    assert(licenses.length > 0, `${name}: names its license file`);
    for (const license of licenses) {
      assert(Deno.statSync(new URL(license, FIXTURE_DIR)).isFile, `${name}: ${license} exists`);
    }
  }
});

Deno.test("no test-only model is anywhere in the repository", () => {
  const names = new Set(allNames(ROOT));
  for (const model of TEST_ONLY_MODELS) assert(!names.has(model), `${model} must not be copied`);
});

Deno.test("the fixtures are unchanged copies of the shared assets, where those are present", () => {
  const licenses = [...Deno.readDirSync(new URL("licenses/", FIXTURE_DIR))]
    .map((e) => `licenses/${e.name}`);
  for (const name of [...models(FIXTURE_DIR), "stats.json", ...licenses]) {
    let shared: Uint8Array;
    try {
      shared = Deno.readFileSync(new URL(name, SHARED_DIR));
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) continue; // a clone on its own
      throw error;
    }
    const fixture = Deno.readFileSync(new URL(name, FIXTURE_DIR));
    const same = fixture.length === shared.length && fixture.every((byte, i) => byte === shared[i]);
    assert(same, `${name} differs from ${SHARED_DIR.pathname}${name}`);
  }
});
