/**
 * A chunk's kernel call on the calling thread, and the error a worker
 * recorded for one, rebuilt with its type on the calling thread.
 *
 * @module
 */

import { MESSAGE_AT, MESSAGE_LENGTH_AT } from "./_pool_worker.ts";

const ERROR_TYPES: Record<string, ErrorConstructor> = {
  RangeError,
  TypeError,
};

/**
 * `fn(...args)` without a spread for up to four arguments: a call of the
 * kernel's own arity allocates nothing (a spread makes an array, and a
 * WebAssembly call of another arity boxes its arguments).
 */
export function callWith(fn: (...args: number[]) => number, args: readonly number[]): number {
  switch (args.length) {
    case 2:
      return fn(args[0], args[1]);
    case 3:
      return fn(args[0], args[1], args[2]);
    case 4:
      return fn(args[0], args[1], args[2], args[3]);
    default:
      return fn(...args);
  }
}

/**
 * The error the worker whose slot starts at int32 `base` of the control
 * block recorded: a RuntimeError for a trap, as on this thread.
 */
export function workerError(i32: Int32Array, u16: Uint16Array, base: number): Error {
  const units = u16.subarray(
    (base + MESSAGE_AT) * 2,
    (base + MESSAGE_AT) * 2 + i32[base + MESSAGE_LENGTH_AT],
  );
  const text = String.fromCharCode(...units);
  const nul = text.indexOf("\u0000");
  const [name, message] = nul < 0 ? ["Error", text] : [text.slice(0, nul), text.slice(nul + 1)];
  if (name === "RuntimeError") return new WebAssembly.RuntimeError(message);
  return new (ERROR_TYPES[name] ?? Error)(message);
}
