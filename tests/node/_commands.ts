/**
 * What the Node suites run: a command in the repository's root, and Marrow
 * bundled for Node with `deno bundle`.
 *
 * @module
 */

/** The repository's root. */
export const ROOT: URL = new URL("../../", import.meta.url);

/** Runs `command` in the repository's root: its standard output; throws on a non-zero exit. */
export async function run(command: string, args: string[]): Promise<string> {
  const { code, stdout, stderr } = await new Deno.Command(command, {
    args,
    cwd: decodeURIComponent(ROOT.pathname),
    env: { DENO_NO_UPDATE_CHECK: "1", NO_COLOR: "1" },
    stdin: "null",
  }).output();
  const text = new TextDecoder().decode(stdout);
  if (code !== 0) {
    throw new Error(
      `${command} ${args.join(" ")} exited with ${code}:\n${text}\n${
        new TextDecoder().decode(stderr)
      }`,
    );
  }
  return text;
}

/** Bundles `entry` (a path from the root) and what it imports into the ES module `out`, for Node. */
export async function bundle(entry: string, out: string): Promise<void> {
  await run(Deno.execPath(), [
    "bundle",
    "--quiet",
    "--platform=node",
    "--format=esm",
    "-o",
    out,
    entry,
  ]);
}
