/**
 * Offline stand-in for `@std/assert`, used by `tests/_run.ts` when JSR cannot
 * be reached (it maps `@std/assert` and every `@std/assert/*` subpath here).
 *
 * It is written from scratch on Deno's built-in `node:assert`; it follows the
 * public signatures and the equality rules of `@std/assert` 1.x (deep
 * equality in which `0` equals `-0` and `NaN` equals `NaN`, default
 * `assertAlmostEquals` tolerance relative to `expected`), so a test that
 * passes here passes against the real package. Failure messages differ in
 * wording; they are built from `node:assert` diffs where one applies.
 *
 * It provides only the assertions the tests import (`std_adapter_test.ts`
 * checks each); import any other only from the real package.
 *
 * @module
 */

import nodeAssert from "node:assert";

/** Error thrown when an assertion fails. */
export class AssertionError extends Error {
  /**
   * @param message The error message.
   * @param options Standard error options (`cause`).
   */
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "AssertionError";
  }
}

/** Any constructor. */
// deno-lint-ignore no-explicit-any
type AnyConstructor = new (...args: any[]) => any;
/** The instance type of a constructor. */
type GetConstructorType<T extends AnyConstructor> = InstanceType<T>;

function suffix(msg?: string): string {
  return msg ? `: ${msg}` : ".";
}

function show(value: unknown): string {
  return Deno.inspect(value, {
    depth: 6,
    colors: false,
    sorted: true,
    trailingComma: false,
    compact: true,
    iterableLimit: 50,
    strAbbreviateSize: 500,
  });
}

/** Runs a `node:assert` check and turns its failure into an {@linkcode AssertionError}. */
function viaNode(check: () => void, prefix: string): void {
  try {
    check();
  } catch (error) {
    if (error instanceof nodeAssert.AssertionError) {
      throw new AssertionError(`${prefix}\n${error.message}`, {
        cause: error,
      });
    }
    throw error;
  }
}

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
 * Asserts that `expr` is truthy.
 *
 * @param expr The value to check.
 * @param msg The message of the error thrown on failure.
 */
export function assert(expr: unknown, msg = ""): asserts expr {
  if (!expr) throw new AssertionError(msg);
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

/**
 * Asserts that `error` is an `Error`, optionally of class `ErrorClass` and
 * with a message that includes (string) or matches (RegExp) `msgMatches`.
 *
 * @param error The value to check.
 * @param ErrorClass The class it must be an instance of.
 * @param msgMatches Text the message must include, or a pattern it must match.
 * @param msg An optional message added to the failure.
 */
function assertIsError<E extends Error = Error>(
  error: unknown,
  // deno-lint-ignore no-explicit-any
  ErrorClass?: abstract new (...args: any[]) => E,
  msgMatches?: string | RegExp,
  msg?: string,
): asserts error is E {
  if (!(error instanceof Error)) {
    throw new AssertionError(
      `Expected "error" to be an Error object, got ${show(error)}${suffix(msg)}`,
    );
  }
  if (ErrorClass && !(error instanceof ErrorClass)) {
    throw new AssertionError(
      `Expected error to be instance of "${ErrorClass.name}", but was "${error.constructor.name}"${
        suffix(msg)
      }`,
    );
  }
  if (msgMatches === undefined) return;
  const ok = typeof msgMatches === "string"
    ? error.message.includes(msgMatches)
    : msgMatches.test(error.message);
  if (ok) return;
  throw new AssertionError(
    `Expected error message to ${typeof msgMatches === "string" ? "include" : "match"} ${
      show(msgMatches)
    }, but got ${show(error.message)}${suffix(msg)}`,
  );
}

// deno-lint-ignore no-explicit-any
type ErrorConstructorOf<E> = abstract new (...args: any[]) => E;

/** Whether the optional second argument of assertThrows/assertRejects is an error class. */
function splitThrowsArgs<E extends Error>(
  classOrMsg: ErrorConstructorOf<E> | string | undefined,
  includesOrMsg: string | undefined,
  msg: string | undefined,
): { ErrorClass?: ErrorConstructorOf<E>; includes?: string; msg?: string } {
  if (typeof classOrMsg === "string") return { msg: classOrMsg };
  if (classOrMsg === undefined) return { includes: includesOrMsg, msg };
  const proto = classOrMsg.prototype;
  if (proto instanceof Error || proto === Error.prototype) {
    return { ErrorClass: classOrMsg, includes: includesOrMsg, msg };
  }
  return { msg: includesOrMsg };
}

function checkThrown<E extends Error>(
  error: unknown,
  parts: {
    ErrorClass?: ErrorConstructorOf<E>;
    includes?: string;
    msg?: string;
  },
): void {
  if (!parts.ErrorClass) return;
  if (!(error instanceof Error)) {
    throw new AssertionError(
      `A non-Error object was thrown${suffix(parts.msg)}`,
    );
  }
  assertIsError(error, parts.ErrorClass, parts.includes, parts.msg);
}

/**
 * Calls `fn` and asserts that it throws.
 *
 * @param fn The function to call.
 * @param msg An optional message added to the failure.
 * @returns What `fn` threw.
 */
export function assertThrows(fn: () => unknown, msg?: string): unknown;
/**
 * Calls `fn` and asserts that it throws an instance of `ErrorClass` whose
 * message includes `msgIncludes`.
 *
 * @param fn The function to call.
 * @param ErrorClass The class the thrown error must be an instance of.
 * @param msgIncludes Text the error's message must include.
 * @param msg An optional message added to the failure.
 * @returns The error `fn` threw.
 */
export function assertThrows<E extends Error = Error>(
  fn: () => unknown,
  // deno-lint-ignore no-explicit-any
  ErrorClass: abstract new (...args: any[]) => E,
  msgIncludes?: string,
  msg?: string,
): E;
export function assertThrows<E extends Error = Error>(
  fn: () => unknown,
  classOrMsg?: ErrorConstructorOf<E> | string,
  includesOrMsg?: string,
  msg?: string,
): E | unknown {
  const parts = splitThrowsArgs(classOrMsg, includesOrMsg, msg);
  try {
    fn();
  } catch (error) {
    checkThrown(error, parts);
    return error;
  }
  throw new AssertionError(`Expected function to throw${suffix(parts.msg)}`);
}

/**
 * Awaits `fn()` and asserts that it rejects (or throws).
 *
 * @param fn The function to call.
 * @param msg An optional message added to the failure.
 * @returns What the promise rejected with.
 */
export function assertRejects(
  fn: () => PromiseLike<unknown>,
  msg?: string,
): Promise<unknown>;
/**
 * Awaits `fn()` and asserts that it rejects with an instance of `ErrorClass`
 * whose message includes `msgIncludes`.
 *
 * @param fn The function to call.
 * @param ErrorClass The class the rejection must be an instance of.
 * @param msgIncludes Text the error's message must include.
 * @param msg An optional message added to the failure.
 * @returns The error the promise rejected with.
 */
export function assertRejects<E extends Error = Error>(
  fn: () => PromiseLike<unknown>,
  // deno-lint-ignore no-explicit-any
  ErrorClass: abstract new (...args: any[]) => E,
  msgIncludes?: string,
  msg?: string,
): Promise<E>;
export async function assertRejects<E extends Error = Error>(
  fn: () => PromiseLike<unknown>,
  classOrMsg?: ErrorConstructorOf<E> | string,
  includesOrMsg?: string,
  msg?: string,
): Promise<E | unknown> {
  const parts = splitThrowsArgs(classOrMsg, includesOrMsg, msg);
  let promise: PromiseLike<unknown>;
  try {
    promise = fn();
  } catch (error) {
    // std reports a synchronous throw as a failure too: fn must return a promise.
    throw new AssertionError(
      `Function throws when expected to reject${suffix(parts.msg)}`,
      { cause: error },
    );
  }
  if (!promise || typeof promise.then !== "function") {
    throw new AssertionError(
      `Function returns a non-promise value when expected to reject${suffix(parts.msg)}`,
    );
  }
  try {
    await promise;
  } catch (error) {
    checkThrown(error, parts);
    return error;
  }
  throw new AssertionError(`Expected function to reject${suffix(parts.msg)}`);
}

/**
 * Throws an {@linkcode AssertionError}.
 *
 * @param msg An optional message added to the failure.
 */
export function fail(msg?: string): never {
  throw new AssertionError(`Failed assertion${suffix(msg)}`);
}
