/**
 * Comparisons of kernel outputs: bit-exact, within a per-float bound (the
 * worst excess reported) and the same rotation up to sign, with failure
 * messages that name the float's place in its layout and the seed.
 *
 * @module
 */

import { assertEquals, fail } from "@std/assert";
import { MATRIX_FLOATS, VERTEX_FLOATS } from "../kernels.ts";
import { SEED } from "./_arbitrary_numbers.ts";

// ------------------------------------------------------------- comparisons

/** The precision bound of `design/math.md`. */
export const EPSILON = 1e-5;

/** {@linkcode EPSILON} scaled by a magnitude above one. */
export function tolerance(magnitude: number): number {
  return EPSILON * Math.max(1, magnitude);
}

/** Describes float `i` of an output for failure messages. */
export type Where = (index: number) => string;

/** Float `i` of a matrix array. */
export const inMatrices: Where = (i) =>
  `matrix ${Math.floor(i / MATRIX_FLOATS)} element ${i % MATRIX_FLOATS}`;
/** Float `i` of a vertex stream. */
export const inVertices: Where = (i) =>
  `vertex ${Math.floor(i / VERTEX_FLOATS)} component ${i % VERTEX_FLOATS}`;
/** Float `i` of a SoA×4 pose. */
export const inPose: Where = (i) =>
  `joint ${Math.floor(i / 40) * 4 + (i % 4)} field ${Math.floor((i % 40) / 4)}`;

function bits(a: Float32Array): Uint32Array {
  return new Uint32Array(a.buffer, a.byteOffset, a.length);
}

/** `actual` has exactly the bits of `expected`. */
export function assertBitwise(
  actual: Float32Array,
  expected: Float32Array,
  what: string,
  where: Where = String,
): void {
  assertEquals(actual.length, expected.length, `${what}: length`);
  const a = bits(actual), e = bits(expected);
  for (let i = 0; i < a.length; i++) {
    if (a[i] !== e[i]) {
      fail(
        `${what}: ${where(i)} (float ${i}) is ${actual[i]}, expected exactly ` +
          `${expected[i]} (seed ${SEED})`,
      );
    }
  }
}

/**
 * `|actual[i] - expected[i]| <= bound(i)` for every float, with the
 * worst excess reported. `bound` is a number, a per-float array or a
 * per-float function.
 */
export function assertClose(
  actual: ArrayLike<number>,
  expected: ArrayLike<number>,
  bound: number | ArrayLike<number> | ((index: number) => number),
  what: string,
  where: Where = String,
): void {
  assertEquals(actual.length, expected.length, `${what}: length`);
  const limitAt = (i: number) =>
    typeof bound === "number" ? bound : typeof bound === "function" ? bound(i) : bound[i];
  let worst = -1, worstRatio = 1;
  for (let i = 0; i < actual.length; i++) {
    const limit = limitAt(i);
    const error = Math.abs(actual[i] - expected[i]);
    // NaN anywhere fails (the comparison below is false).
    const ratio = error <= limit ? 0 : error / limit;
    if (!(error <= limit) && (worst < 0 || !(ratio <= worstRatio))) {
      worst = i;
      worstRatio = Number.isNaN(ratio) ? Infinity : ratio;
    }
  }
  if (worst >= 0) {
    const limit = limitAt(worst);
    fail(
      `${what}: ${where(worst)} (float ${worst}) is ${actual[worst]}, expected ` +
        `${expected[worst]}: error ${
          Math.abs(actual[worst] - expected[worst])
        } > ${limit} (seed ${SEED})`,
    );
  }
}

/** `a` and `b` are the same rotation: equal up to sign within `bound`. */
export function assertSameRotation(
  a: readonly number[],
  b: readonly number[],
  bound: number,
  what: string,
): void {
  const plus = Math.max(...a.map((x, i) => Math.abs(x - b[i])));
  const minus = Math.max(...a.map((x, i) => Math.abs(x + b[i])));
  if (!(Math.min(plus, minus) <= bound)) {
    fail(
      `${what}: quaternion [${a.join(", ")}] is not ±[${b.join(", ")}] ` +
        `(error ${Math.min(plus, minus)} > ${bound}, seed ${SEED})`,
    );
  }
}
