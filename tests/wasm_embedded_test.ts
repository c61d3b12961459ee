/**
 * How the cores are carried (`simd/wasm/_embedded.ts`): the LZMA decoder
 * against the `lzma` package's encoder (the build's) at every mode, the
 * delta against random edits of random bytes, malformed input refused with a
 * `RangeError`, and every embedded build decoded to a valid module of its
 * stated length.
 *
 * @module
 */

import { assertEquals, assertThrows } from "@std/assert";
import fc from "fast-check";
import lzma from "lzma";
import { decodeLzma } from "../simd/wasm/_lzma.ts";
import { applyDelta, encodeDelta } from "../simd/wasm/_delta.ts";
import { wasmBytes } from "../simd/wasm/_embedded.ts";
import * as generated from "../simd/wasm/_wasm.generated.ts";
import { isBuildSupported } from "../simd/wasm/internal.ts";
import { fcParams } from "./_arbitrary_numbers.ts";

/** Bytes with repeats near and far, as code has: random runs copied from earlier. */
const compressible = fc.array(
  fc.oneof(
    fc.uint8Array({ minLength: 1, maxLength: 40 }),
    fc.record({ back: fc.nat(), length: fc.integer({ min: 3, max: 300 }) }),
  ),
  { maxLength: 200 },
).map((parts) => {
  const out: number[] = [];
  for (const part of parts) {
    if (part instanceof Uint8Array) out.push(...part);
    else if (out.length > 0) {
      const from = part.back % out.length;
      for (let i = 0; i < part.length; i++) out.push(out[from + i]);
    }
  }
  return Uint8Array.from(out);
});

/** `bytes` in the `.lzma` format, by the `lzma` package at `mode` (1 fastest, 9 strongest). */
function compress(bytes: Uint8Array, mode: number): Uint8Array {
  return Uint8Array.from(lzma.compress(bytes, mode) as number[], (b) => b & 255);
}

Deno.test("decodeLzma: gives back what the lzma package encoded, at every mode", () => {
  fc.assert(
    fc.property(compressible, fc.integer({ min: 1, max: 9 }), (bytes, mode) => {
      assertEquals(decodeLzma(compress(bytes, mode), bytes.length), bytes);
    }),
    fcParams(200, 60),
  );
});

Deno.test("decodeLzma: a truncated, damaged or mis-sized stream is a RangeError", () => {
  const bytes = new TextEncoder().encode("the quick brown fox jumps ".repeat(50));
  const encoded = compress(bytes, 9);
  assertEquals(decodeLzma(encoded, bytes.length), bytes);
  assertThrows(
    () => decodeLzma(encoded.subarray(0, encoded.length >> 1), bytes.length),
    RangeError,
  );
  assertThrows(() => decodeLzma(encoded, bytes.length - 1), RangeError, "the header states");
  assertThrows(() => decodeLzma(encoded.subarray(0, 12), bytes.length), RangeError);
  const badProperties = encoded.slice();
  badProperties[0] = 225;
  assertThrows(() => decodeLzma(badProperties, bytes.length), RangeError, "properties");
  fc.assert(
    fc.property(
      fc.integer({ min: 13, max: encoded.length - 1 }),
      fc.integer({ min: 1, max: 255 }),
      (at, flip) => {
        const damaged = encoded.slice();
        damaged[at] ^= flip;
        try {
          assertEquals(decodeLzma(damaged, bytes.length).length, bytes.length); // decodes, in bounds
        } catch (error) {
          if (!(error instanceof RangeError)) throw error;
        }
      },
    ),
    fcParams(300, 100),
  );
});

Deno.test("delta: rebuilds a target from random edits of its base", () => {
  const edit = fc.record({
    at: fc.nat(),
    remove: fc.nat(40),
    insert: fc.uint8Array({ maxLength: 40 }),
  });
  fc.assert(
    fc.property(compressible, fc.array(edit, { maxLength: 12 }), (base, edits) => {
      let target = [...base];
      for (const { at, remove, insert } of edits) {
        const i = target.length === 0 ? 0 : at % target.length;
        target = [...target.slice(0, i), ...insert, ...target.slice(i + remove)];
      }
      const bytes = Uint8Array.from(target);
      assertEquals(applyDelta(base, encodeDelta(base, bytes), bytes.length), bytes);
    }),
    fcParams(300, 100),
  );
});

Deno.test("delta: a copy outside the base or a mis-sized delta is a RangeError", () => {
  const base = Uint8Array.from({ length: 64 }, (_, i) => i);
  const target = Uint8Array.of(...base.subarray(8, 40), 1, 2, 3);
  const delta = encodeDelta(base, target);
  assertEquals(applyDelta(base, delta, target.length), target);
  assertThrows(() => applyDelta(base.subarray(0, 16), delta, target.length), RangeError);
  assertThrows(() => applyDelta(base, delta, target.length - 1), RangeError);
  assertThrows(() => applyDelta(base, delta, target.length + 1), RangeError);
  assertThrows(() => applyDelta(base, Uint8Array.of(0x80), 1), RangeError);
});

Deno.test("embedded cores: each decodes to a module of its stated length", () => {
  const builds = [
    ["SIMD_WASM", "simd"],
    ["RELAXED_SIMD_WASM", "relaxed-simd"],
    ["SHARED_SIMD_WASM", "simd"],
    ["SHARED_RELAXED_SIMD_WASM", "relaxed-simd"],
  ] as const;
  for (const [name, build] of builds) {
    const bytes = wasmBytes(generated[name]);
    assertEquals(bytes.length, generated[name].length, name);
    assertEquals([...bytes.subarray(0, 4)], [0, 0x61, 0x73, 0x6d], name); // "\0asm"
    if (isBuildSupported(build)) assertEquals(WebAssembly.validate(bytes), true, name);
  }
});
