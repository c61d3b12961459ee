/**
 * The offline adapter's assertions on one value: truthy, present, of a
 * class, ordered, matching or containing text (`assert.ts` re-exports them).
 *
 * @module
 */

import { AssertionError, show, suffix, viaNode } from "./_failure.ts";
import nodeAssert from "node:assert";

/** Any constructor. */
// deno-lint-ignore no-explicit-any
type AnyConstructor = new (...args: any[]) => any;
/** The instance type of a constructor. */
type GetConstructorType<T extends AnyConstructor> = InstanceType<T>;

/**
 * Asserts that `expr` is truthy.
 *
 * @param expr The value to check.
 * @param msg The message of the error thrown on failure.
 */
export function assert(expr: unknown, msg = ""): asserts expr {
  if (!expr) throw new AssertionError(msg);
}
/**
 * Asserts that `actual` is neither `null` nor `undefined`.
 *
 * @param actual The value to check.
 * @param msg An optional message added to the failure.
 */
export function assertExists<T>(
  actual: T,
  msg?: string,
): asserts actual is NonNullable<T> {
  if (actual === null || actual === undefined) {
    throw new AssertionError(
      `Expected actual: "${actual}" to not be null or undefined${suffix(msg)}`,
    );
  }
}

/**
 * Asserts that `actual` is an instance of `expectedType`.
 *
 * @param actual The value to check.
 * @param expectedType The class it must be an instance of.
 * @param msg An optional message added to the failure.
 */
export function assertInstanceOf<T extends AnyConstructor>(
  actual: unknown,
  expectedType: T,
  msg = "",
): asserts actual is GetConstructorType<T> {
  if (actual instanceof expectedType) return;
  const kind = actual === null
    ? "null"
    : typeof actual === "object"
    ? (actual.constructor?.name ?? "Object")
    : typeof actual;
  throw new AssertionError(
    `Expected object to be an instance of "${expectedType.name}" but was "${kind}"${suffix(msg)}`,
  );
}

function compare(
  holds: boolean,
  actual: unknown,
  relation: string,
  expected: unknown,
  msg?: string,
): void {
  if (holds) return;
  throw new AssertionError(
    `Expect ${show(actual)} ${relation} ${show(expected)}${msg ? `: ${msg}` : ""}`,
  );
}

/**
 * Asserts that `actual > expected`.
 *
 * @param actual The actual value.
 * @param expected The value it must exceed.
 * @param msg An optional message added to the failure.
 */
export function assertGreater<T>(actual: T, expected: T, msg?: string): void {
  compare(actual > expected, actual, ">", expected, msg);
}

/**
 * Asserts that `actual < expected`.
 *
 * @param actual The actual value.
 * @param expected The value it must stay below.
 * @param msg An optional message added to the failure.
 */
export function assertLess<T>(actual: T, expected: T, msg?: string): void {
  compare(actual < expected, actual, "<", expected, msg);
}

/**
 * Asserts that `actual <= expected`.
 *
 * @param actual The actual value.
 * @param expected The upper bound.
 * @param msg An optional message added to the failure.
 */
export function assertLessOrEqual<T>(
  actual: T,
  expected: T,
  msg?: string,
): void {
  compare(actual <= expected, actual, "<=", expected, msg);
}

/**
 * Asserts that `actual` matches the regular expression `expected`.
 *
 * @param actual The string to test.
 * @param expected The pattern it must match.
 * @param msg An optional message added to the failure.
 */
export function assertMatch(
  actual: string,
  expected: RegExp,
  msg?: string,
): void {
  viaNode(
    () => nodeAssert.match(actual, expected),
    `Expected actual: "${actual}" to match: "${expected}"${suffix(msg)}`,
  );
}

/**
 * Asserts that the string `actual` contains `expected`.
 *
 * @param actual The string searched.
 * @param expected The text that must occur in it.
 * @param msg An optional message added to the failure.
 */
export function assertStringIncludes(
  actual: string,
  expected: string,
  msg?: string,
): void {
  if (actual.includes(expected)) return;
  throw new AssertionError(
    `Expected actual: "${actual}" to contain: "${expected}"${suffix(msg)}`,
  );
}
