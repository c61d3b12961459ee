/**
 * The scalar build is its own entry (`@marrow/anim/scalar`, `scalar.ts`),
 * so that a game's bundle carries it only where it is imported: without
 * it, `Core.create("scalar")` and a runtime without WebAssembly (`--jitless`)
 * are a `TypeError` saying to import it; with it, that runtime's default
 * core is the scalar build and a frame runs. Each case in a child process
 * (`_scalar_entry_probe.ts`).
 */
import { assertEquals, assertMatch } from "@std/assert";

const ROOT = new URL("../", import.meta.url);
const PROBE = new URL("_scalar_entry_probe.ts", import.meta.url).pathname;

async function probe(entry: boolean, jitless: boolean): Promise<Record<string, string>> {
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      ...(jitless ? ["--v8-flags=--jitless"] : []),
      decodeURIComponent(PROBE),
      entry ? "with" : "without",
    ],
    cwd: decodeURIComponent(ROOT.pathname),
    env: { DENO_NO_UPDATE_CHECK: "1", NO_COLOR: "1" },
  }).output();
  const text = new TextDecoder();
  assertEquals(code, 0, text.decode(stderr));
  return JSON.parse(text.decode(stdout));
}

const ENTRY = /TypeError: .*import "@marrow\/anim\/scalar"/;

Deno.test("scalar build: without its entry, a scalar core is a TypeError naming the entry", async () => {
  const got = await probe(false, false);
  assertMatch(got.scalar, ENTRY);
  assertMatch(got.default, /^(relaxed-)?simd$/);
});

Deno.test("scalar build: without its entry, a runtime without WebAssembly is told to import it", async () => {
  const got = await probe(false, true);
  assertMatch(got.scalar, ENTRY);
  assertMatch(got.default, /no WebAssembly SIMD: import "@marrow\/anim\/scalar"/);
});

Deno.test("scalar build: with its entry, a runtime without WebAssembly runs on it", async () => {
  assertEquals(await probe(true, true), { scalar: "scalar", default: "scalar" });
});
