/**
 * Deep equality with the rules of `@std/assert` (`0` equals `-0`, `NaN`
 * equals `NaN`) and the equality assertions built on it, for the offline
 * adapter (`assert.ts` re-exports them).
 *
 * @module
 */

import { AssertionError, show, suffix, viaNode } from "./_failure.ts";
import nodeAssert from "node:assert";

/** A human-readable account of how two values differ, for failure messages. */
function describeDifference(actual: unknown, expected: unknown): string {
  try {
    nodeAssert.deepStrictEqual(actual, expected);
  } catch (error) {
    if (error instanceof nodeAssert.AssertionError) return error.message;
  }
  // node:assert's rules differ from ours in a few corners (-0, NaN inside
  // float arrays): fall back to showing both values.
  return `    [Actual]: ${show(actual)}\n  [Expected]: ${show(expected)}`;
}

function sameConstructor(a: object, b: object): boolean {
  const ca = a.constructor;
  const cb = b.constructor;
  if (ca === cb) return true;
  // A plain object and a null-prototype object count as the same kind.
  return (ca === Object && cb === undefined) ||
    (ca === undefined && cb === Object);
}

function ownEnumerableKeys(value: object): PropertyKey[] {
  const keys: PropertyKey[] = Object.keys(value);
  for (const symbol of Object.getOwnPropertySymbols(value)) {
    if (Object.prototype.propertyIsEnumerable.call(value, symbol)) {
      keys.push(symbol);
    }
  }
  return keys;
}

/**
 * Deep equality with the rules of `@std/assert`'s `equal`: numbers compare
 * with `===` except that `NaN` equals `NaN`; dates by time; regular
 * expressions and URLs by their text; objects must share a constructor and
 * have the same own enumerable keys, compared recursively; maps and sets
 * compare their entries regardless of order; `WeakMap`s and `WeakSet`s
 * cannot be compared.
 *
 * @param c The actual value.
 * @param d The expected value.
 * @returns Whether the two are deeply equal.
 */
function equal(c: unknown, d: unknown): boolean {
  const visiting = new Map<object, object>();

  function eq(a: unknown, b: unknown): boolean {
    if (typeof a === "number" && typeof b === "number") {
      return a === b || (Number.isNaN(a) && Number.isNaN(b));
    }
    if (Object.is(a, b)) return true;
    if (
      a === null || b === null || typeof a !== "object" ||
      typeof b !== "object"
    ) {
      return false;
    }
    if (
      (a instanceof RegExp && b instanceof RegExp) ||
      (a instanceof URL && b instanceof URL)
    ) {
      return String(a) === String(b);
    }
    if (a instanceof Date && b instanceof Date) {
      const [ta, tb] = [a.getTime(), b.getTime()];
      return ta === tb || (Number.isNaN(ta) && Number.isNaN(tb));
    }
    if (!sameConstructor(a, b)) return false;
    for (const Weak of [WeakMap, WeakSet]) {
      const wa = a instanceof Weak;
      const wb = b instanceof Weak;
      if (wa !== wb) return false;
      if (wa) throw new TypeError(`cannot compare ${Weak.name} instances`);
    }
    if (a instanceof WeakRef || b instanceof WeakRef) {
      return a instanceof WeakRef && b instanceof WeakRef &&
        eq(a.deref(), b.deref());
    }
    if (visiting.get(a) === b) return true;
    visiting.set(a, b);
    try {
      if (a instanceof Map && b instanceof Map) {
        return a.size === b.size && sameEntries([...a], [...b], true);
      }
      if (a instanceof Set && b instanceof Set) {
        return a.size === b.size &&
          sameEntries(
            [...a].map((v) => [v, v]),
            [...b].map((v) => [v, v]),
            false,
          );
      }
      const keysA = ownEnumerableKeys(a);
      const keysB = ownEnumerableKeys(b);
      if (keysA.length !== keysB.length) return false;
      const recA = a as Record<PropertyKey, unknown>;
      const recB = b as Record<PropertyKey, unknown>;
      for (const key of keysA) {
        if (!Object.prototype.propertyIsEnumerable.call(b, key)) return false;
        if (!eq(recA[key], recB[key])) return false;
      }
      return true;
    } finally {
      visiting.delete(a);
    }
  }

  /** Every entry of `as` matches a distinct entry of `bs` (keys and values deeply equal). */
  function sameEntries(
    as: [unknown, unknown][],
    bs: [unknown, unknown][],
    compareValues: boolean,
  ): boolean {
    const unused = new Set(bs.keys());
    for (const [ka, va] of as) {
      let found = false;
      for (const j of unused) {
        const [kb, vb] = bs[j];
        if (eq(ka, kb) && (!compareValues || eq(va, vb))) {
          unused.delete(j);
          found = true;
          break;
        }
      }
      if (!found) return false;
    }
    return true;
  }

  return eq(c, d);
}

/**
 * Asserts that `actual` and `expected` are deeply equal (see {@linkcode equal}).
 *
 * @param actual The actual value.
 * @param expected The expected value.
 * @param msg An optional message added to the failure.
 */
export function assertEquals<T>(actual: T, expected: T, msg?: string): void {
  if (equal(actual, expected)) return;
  throw new AssertionError(
    `Values are not equal${suffix(msg)}\n\n${describeDifference(actual, expected)}`,
  );
}

/**
 * Asserts that `actual` and `expected` are not deeply equal.
 *
 * @param actual The actual value.
 * @param expected The value it must differ from.
 * @param msg An optional message added to the failure.
 */
export function assertNotEquals<T>(actual: T, expected: T, msg?: string): void {
  if (!equal(actual, expected)) return;
  throw new AssertionError(
    `Expected actual: ${show(actual)} not to be: ${show(expected)}${suffix(msg)}`,
  );
}

/**
 * Asserts that `actual` and `expected` are the same value (`Object.is`).
 *
 * @param actual The actual value.
 * @param expected The expected value.
 * @param msg An optional message added to the failure.
 */
export function assertStrictEquals<T>(
  actual: unknown,
  expected: T,
  msg?: string,
): asserts actual is T {
  viaNode(
    () => nodeAssert.strictEqual(actual, expected),
    `Values are not strictly equal${suffix(msg)}`,
  );
}

/**
 * Asserts that `actual` and `expected` are not the same value (`Object.is`).
 *
 * @param actual The actual value.
 * @param expected The value it must not be.
 * @param msg An optional message added to the failure.
 */
export function assertNotStrictEquals<T>(
  actual: T,
  expected: T,
  msg?: string,
): void {
  viaNode(
    () => nodeAssert.notStrictEqual(actual, expected),
    `Expected "actual" to not be strictly equal to: ${show(expected)}${suffix(msg)}`,
  );
}

/**
 * Asserts that two numbers are equal within `tolerance`. The default
 * tolerance is `|expected| * 1e-7` (`1e-7` when `expected` is not finite).
 *
 * @param actual The actual number.
 * @param expected The expected number.
 * @param tolerance The largest accepted absolute difference.
 * @param msg An optional message added to the failure.
 */
export function assertAlmostEquals(
  actual: number,
  expected: number,
  tolerance?: number,
  msg?: string,
): void {
  if (Object.is(actual, expected)) return;
  const limit = tolerance ??
    (Number.isFinite(expected) ? Math.abs(expected * 1e-7) : 1e-7);
  const delta = Math.abs(expected - actual);
  if (delta <= limit) return;
  throw new AssertionError(
    `Expected actual: ${actual} to be close to ${expected}: delta ${delta} ` +
      `is greater than ${limit}${suffix(msg)}`,
  );
}
