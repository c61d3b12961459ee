/**
 * The offline adapter's assertions on what a call throws or a promise
 * rejects with (`assert.ts` re-exports them).
 *
 * @module
 */

import { AssertionError, show, suffix } from "./_failure.ts";

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
