/**
 * How the offline `@std/assert` adapter fails: {@linkcode AssertionError},
 * the message parts every assertion shares, and `node:assert` failures
 * turned into ours. Private to `tests/_std/`; `assert.ts` re-exports the
 * public names.
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

export function suffix(msg?: string): string {
  return msg ? `: ${msg}` : ".";
}

export function show(value: unknown): string {
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
export function viaNode(check: () => void, prefix: string): void {
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

/**
 * Throws an {@linkcode AssertionError}.
 *
 * @param msg An optional message added to the failure.
 */
export function fail(msg?: string): never {
  throw new AssertionError(`Failed assertion${suffix(msg)}`);
}
