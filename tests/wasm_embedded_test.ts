/**
 * How the cores are carried (`simd/wasm/_embedded.ts`): the DEFLATE decoder
 * against node:zlib's encoder (stored, fixed and dynamic blocks, every
 * level), the delta against random edits of random bytes, malformed input
 * refused with a `RangeError`, and every embedded build decoded to a valid
 * module of its stated length.
 *
 * @module
 */

import { assertEquals, assertThrows } from "@std/assert";
import fc from "fast-check";
import { constants, deflateRawSync } from "node:zlib";
import { inflateRaw } from "../simd/wasm/_inflate.ts";
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

const OPTIONS = [
  { level: 0 }, // stored blocks
  { level: 1 },
  { level: 9 },
  { level: 9, strategy: constants.Z_FIXED },
  { level: 9, strategy: constants.Z_HUFFMAN_ONLY },
  { level: 9, strategy: constants.Z_RLE },
];

Deno.test("inflateRaw: gives back what node:zlib deflated, at every level and block type", () => {
  fc.assert(
    fc.property(compressible, fc.constantFrom(...OPTIONS), (bytes, options) => {
      assertEquals(inflateRaw(deflateRawSync(bytes, options), bytes.length), bytes);
    }),
    fcParams(300, 100),
  );
});

Deno.test("inflateRaw: a truncated, damaged or mis-sized stream is a RangeError", () => {
  const bytes = new TextEncoder().encode("the quick brown fox ".repeat(50));
  const deflated = deflateRawSync(bytes, { level: 9 });
  assertThrows(
    () => inflateRaw(deflated.subarray(0, deflated.length - 3), bytes.length),
    RangeError,
  );
  assertThrows(() => inflateRaw(deflated, bytes.length - 1), RangeError);
  assertThrows(() => inflateRaw(deflated, bytes.length + 1), RangeError);
  assertThrows(() => inflateRaw(Uint8Array.of(0b111), 10), RangeError, "block type 3");
  fc.assert(
    fc.property(fc.nat(deflated.length - 1), fc.integer({ min: 1, max: 255 }), (at, flip) => {
      const damaged = deflated.slice();
      damaged[at] ^= flip;
      try {
        const out = inflateRaw(damaged, bytes.length);
        assertEquals(out.length, bytes.length); // a damage that still decodes: in bounds
      } catch (error) {
        if (!(error instanceof RangeError)) throw error;
      }
    }),
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
