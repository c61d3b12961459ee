/**
 * What every stage of one import shares: the file's name, the way to fail
 * with a {@linkcode GltfImportError}, the warnings, and the value budget.
 *
 * @module
 */

import { GltfImportError } from "./errors.ts";

/** The message of any thrown value, for wrapping it in a sentence. */
export function messageOf(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** Per-import state: the file's name, warnings and what the budget has left. */
export class ImportContext {
  readonly warnings: string[] = [];
  #values = 0;

  constructor(readonly file: string, readonly maxValues: number) {}

  /** Throws a {@linkcode GltfImportError} at `pointer` (`""` for the file). */
  fail(pointer: string, message: string, cause?: unknown): never {
    throw new GltfImportError(this.file, message, {
      pointer,
      ...(cause === undefined ? {} : { cause }),
    });
  }

  /**
   * Counts `values` numbers (array elements the import will allocate) against
   * `limits.maxValues`, failing at `pointer` before they are allocated.
   */
  spend(values: number, pointer: string, what: string): void {
    this.#values += values;
    if (!(this.#values <= this.maxValues)) {
      this.fail(
        pointer,
        `${what} would bring the import past its budget of ${this.maxValues} values ` +
          `(limits.maxValues)`,
      );
    }
  }
}
