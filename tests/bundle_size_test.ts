/**
 * What a game downloads: the minimal game (`_bundle_game.ts`: `mod.ts`, one
 * generated character playing a clip, the frame's systems) bundled for
 * browsers with `deno bundle --minify`, as a game ships it, then gzipped, is
 * at most {@linkcode LIMIT} bytes; and the bundle runs, on the core build
 * its source runs on, to the same skinned positions. The WebAssembly cores
 * are most of what is at stake: embedded whole as base64, the two builds a
 * bundle carries (relaxed SIMD and SIMD128) took 90 KB of its gzipped size
 * (`simd/wasm/_embedded.ts` says how they are carried now: about 26 KB).
 *
 * Offline: `deno bundle` resolves bitecs from the npm cache that the other
 * tests use.
 *
 * @module
 */

import { assert, assertEquals } from "@std/assert";
import { gzipSync } from "node:zlib";

/**
 * The gzipped bundle's most bytes: issue 32's target, a minimal game's
 * bundle ≤ 100 KB gzipped, whether the game runs the frame's systems by
 * hand or by `createAnimationPipeline`.
 */
const LIMIT = 100_000;

const ROOT = new URL("../", import.meta.url);

async function deno(args: string[], stdin?: Uint8Array): Promise<Uint8Array> {
  const child = new Deno.Command(Deno.execPath(), {
    args,
    cwd: decodeURIComponent(ROOT.pathname),
    env: { DENO_NO_UPDATE_CHECK: "1", NO_COLOR: "1" },
    stdin: stdin ? "piped" : "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  if (stdin) {
    const writer = child.stdin.getWriter();
    await writer.write(stdin);
    await writer.close();
  }
  const { code, stdout, stderr } = await child.output();
  const text = new TextDecoder();
  assertEquals(code, 0, `deno ${args.join(" ")}:\n${text.decode(stderr)}`);
  return stdout;
}

for (const game of ["systems", "pipeline"]) {
  const entry = `tests/_bundle_game_${game}.ts`;
  Deno.test(`bundle size: the minimal game (${game}), minified and gzipped, is at most ${LIMIT} bytes`, async () => {
    const bundle = await deno([
      "bundle",
      "--quiet",
      "--minify",
      "--platform=browser",
      "--format=esm",
      entry,
    ]);
    const gzipped = gzipSync(bundle).length;
    console.log(`${entry}: ${bundle.length} bytes minified, ${gzipped} gzipped`);
    assert(gzipped <= LIMIT, `${entry}: ${gzipped} bytes gzipped, over ${LIMIT}`);
    const fromSource = new TextDecoder().decode(await deno(["run", entry]));
    const fromBundle = new TextDecoder().decode(await deno(["run", "--no-config", "-"], bundle));
    assertEquals(fromBundle, fromSource);
    assert(/^(relaxed-)?simd 8192 /.test(fromSource), fromSource);
  });
}
