/**
 * Where the glTF test models are. No imports, so that `tests/_run.ts` can
 * say what it skips without loading three.js.
 *
 * - `tests/fixtures/gltf/`: the freely licensed models (CC0 / CC-BY), in
 *   the repository, always present, plus `stats.json` (statistics of every
 *   model, the test-only ones included).
 * - `../shared/assets/gltf/` (beside the repository): also the three models
 *   licensed for testing only, which are never copied into the repository.
 *   Tests on them run when that folder holds them (CI always does) and are
 *   skipped otherwise.
 *
 * @module
 */

/** The repository's own glTF fixtures. */
export const FIXTURE_DIR: URL = new URL("fixtures/gltf/", import.meta.url);

/** The shared assets beside the repository (may be absent). */
export const SHARED_DIR: URL = new URL("../../shared/assets/gltf/", import.meta.url);

/** Models licensed for testing only: read from {@linkcode SHARED_DIR}, never copied. */
export const TEST_ONLY_MODELS: readonly string[] = ["BrainStem.glb", "Soldier.glb", "Xbot.glb"];

function isFile(url: URL): boolean {
  try {
    return Deno.statSync(url).isFile;
  } catch {
    return false;
  }
}

/** The test-only models missing from {@linkcode SHARED_DIR} (all of them when it is absent). */
export function missingTestOnlyModels(): string[] {
  return TEST_ONLY_MODELS.filter((name) => !isFile(new URL(name, SHARED_DIR)));
}

/** The one line that says what is skipped and why, or undefined when nothing is. */
export function skippedModelsLine(): string | undefined {
  const missing = missingTestOnlyModels();
  if (missing.length === 0) return undefined;
  return `glTF: skipping the tests on ${missing.join(", ")}: licensed for testing only, ` +
    `they are read from ${decodeURIComponent(SHARED_DIR.pathname)}, which does not have them ` +
    `(the freely licensed models in tests/fixtures/gltf/ are tested)`;
}

/** Where a test model is: the fixtures, else the shared folder; undefined when in neither. */
export function findModel(name: string): URL | undefined {
  const fixture = new URL(name, FIXTURE_DIR);
  if (isFile(fixture)) return fixture;
  if (TEST_ONLY_MODELS.includes(name)) {
    const shared = new URL(name, SHARED_DIR);
    if (isFile(shared)) return shared;
  }
  return undefined;
}
