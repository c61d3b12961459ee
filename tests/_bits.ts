/**
 * Bit-for-bit comparison of output arrays, for the worker pool's tests
 * (kept apart from `_workers.ts`, which the benches import without
 * `@std/assert`).
 *
 * @module
 */

import { assert, assertEquals } from "@std/assert";

/** Bits of each output array, so that equal means bit-identical (NaNs included). */
export const bits = (arrays: Float32Array[]): Uint32Array[] =>
  arrays.map((a) => new Uint32Array(a.buffer, a.byteOffset, a.length));

/** Fails at the first word that differs (a deep-equal diff of this much output takes minutes). */
export function assertSameBits(actual: Uint32Array[], expected: Uint32Array[], what: string): void {
  assertEquals(actual.length, expected.length, `${what}: arrays`);
  actual.forEach((array, a) => {
    const i = array.findIndex((word, k) => word !== expected[a][k]);
    assert(
      i < 0 && array.length === expected[a].length,
      `${what}: array ${a}, word ${i}: ${array[i]} != ${expected[a][i]}`,
    );
  });
}
