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
 * The assertions live in private files by what they check (`_equal.ts`,
 * `_compare.ts`, `_throws.ts`, with `_failure.ts` for the error and its
 * messages); this file is the one path the import maps point at.
 *
 * @module
 */

export { AssertionError, fail } from "./_failure.ts";
export {
  assertAlmostEquals,
  assertEquals,
  assertNotEquals,
  assertNotStrictEquals,
  assertStrictEquals,
} from "./_equal.ts";
export {
  assert,
  assertExists,
  assertGreater,
  assertInstanceOf,
  assertLess,
  assertLessOrEqual,
  assertMatch,
  assertStringIncludes,
} from "./_compare.ts";
export { assertRejects, assertThrows } from "./_throws.ts";
