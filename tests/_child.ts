/**
 * A test's child process: a Deno script of `tests/` run with the
 * development import map, read and env permissions and the given V8 flags,
 * for what a test must measure in a process of its own (a collector's
 * trace, a fresh heap). Fails the test, with the child's stderr, when the
 * child exits non-zero; gives back its stdout.
 *
 * @module
 */
import { assertEquals } from "@std/assert";

const IMPORT_MAP = new URL("../import_map.dev.json", import.meta.url);

/**
 * Runs `child` with `v8Flags` (comma-separated), `args` and any further
 * `permissions` flags; returns its stdout.
 */
export async function runChild(
  child: URL,
  v8Flags: string,
  args: readonly string[],
  permissions: readonly string[] = [],
): Promise<string> {
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-read",
      "--allow-env",
      ...permissions,
      `--import-map=${IMPORT_MAP.href}`,
      `--v8-flags=${v8Flags}`,
      child.href,
      ...args,
    ],
    stdin: "null",
  }).output();
  assertEquals(code, 0, new TextDecoder().decode(stderr));
  return new TextDecoder().decode(stdout);
}
