/**
 * Lists of entity ids that game code gives a call: how long one may be.
 * Its own module: the systems' selection and level of detail both read
 * lists, and import each other's modules otherwise.
 *
 * @module
 */

import { describeValue } from "../simd/memory/internal.ts";

/**
 * Most entity ids one call may list: ids past the world's entities are
 * skipped, not refused, so without a bound an array-like of any length
 * (a proxy that makes up its ids) kept a call looping for minutes.
 */
const MAX_LISTED_ENTITIES = 2 ** 20;

/**
 * @internal The length of a list of entity ids, read once: a `TypeError`
 * for anything but an array-like, a `RangeError` past
 * {@linkcode MAX_LISTED_ENTITIES}.
 */
export function listLength(caller: string, entities: ArrayLike<number>): number {
  if (entities === null || typeof entities !== "object" || typeof entities.length !== "number") {
    throw new TypeError(`${caller}: entities: expected an array of entity ids`);
  }
  const length = entities.length;
  if (!Number.isInteger(length) || length < 0 || length > MAX_LISTED_ENTITIES) {
    throw new RangeError(
      `${caller}: entities: expected a length of 0 to ${MAX_LISTED_ENTITIES} entity ids, got ${
        describeValue(length)
      } (call without a list to run every entity)`,
    );
  }
  return length;
}
