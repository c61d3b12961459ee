/**
 * Typed reads of untrusted glTF JSON: each either returns a value of the
 * expected shape or fails with a {@linkcode GltfImportError} at its JSON
 * pointer.
 *
 * @module
 */

import type { ImportContext } from "./_context.ts";

/** A JSON object of the file. */
export type JsonObject = Readonly<Record<string, unknown>>;

/** `value` as a JSON object. */
export function object(ctx: ImportContext, value: unknown, pointer: string): JsonObject {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    ctx.fail(pointer, `expected a JSON object, found ${describe(value)}`);
  }
  return value as JsonObject;
}

/** `parent[key]` as an array of objects, its length within its limit (`ctx.countList`); `[]` when absent. */
export function objects(
  ctx: ImportContext,
  parent: JsonObject,
  key: string,
  pointer: string,
): JsonObject[] {
  const list = array(ctx, parent[key], `${pointer}/${key}`);
  ctx.countList(key, list.length, `${pointer}/${key}`);
  return list.map((v, i) => object(ctx, v, `${pointer}/${key}/${i}`));
}

/** `value` as an array; `[]` when undefined. */
export function array(ctx: ImportContext, value: unknown, pointer: string): unknown[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) ctx.fail(pointer, `expected an array, found ${describe(value)}`);
  return value;
}

/** `value` as a whole number in `min..max`, or `fallback` when undefined. */
export function integer(
  ctx: ImportContext,
  value: unknown,
  pointer: string,
  min: number,
  max: number,
  fallback?: number,
): number {
  if (value === undefined && fallback !== undefined) return fallback;
  if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > max) {
    ctx.fail(pointer, `expected a whole number in ${min}..${max}, found ${describe(value)}`);
  }
  return value;
}

/** `value` as an index into a list of `count` `what`s (e.g. "accessors"). */
export function index(
  ctx: ImportContext,
  value: unknown,
  pointer: string,
  count: number,
  what: string,
): number {
  if (typeof value !== "number" || !Number.isInteger(value) || value < 0 || value >= count) {
    ctx.fail(
      pointer,
      count === 0
        ? `refers to ${what} ${describe(value)}, but the file has none`
        : `refers to ${what} ${describe(value)}, but the file has ${count} (0..${count - 1})`,
    );
  }
  return value;
}

/** `value` as `length` finite numbers, or undefined when absent. */
export function numbers(
  ctx: ImportContext,
  value: unknown,
  pointer: string,
  length: number,
): number[] | undefined {
  if (value === undefined) return undefined;
  if (
    !Array.isArray(value) || value.length !== length ||
    !value.every((v) => typeof v === "number" && Number.isFinite(v))
  ) {
    ctx.fail(pointer, `expected ${length} finite numbers, found ${describe(value)}`);
  }
  return value;
}

/** `value` as a string, or `""` when absent. */
export function string(ctx: ImportContext, value: unknown, pointer: string): string {
  if (value === undefined) return "";
  if (typeof value !== "string") ctx.fail(pointer, `expected a string, found ${describe(value)}`);
  return value;
}

/** A short description of a JSON value for messages. */
export function describe(value: unknown): string {
  if (Array.isArray(value)) return `an array of ${value.length}`;
  if (value === null) return "null";
  if (typeof value === "object") return "an object";
  if (typeof value === "string") {
    return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  }
  return String(value);
}
