/**
 * What every stage of one import shares: the file's name, the way to fail
 * with a {@linkcode GltfImportError}, the warnings, and the value budget.
 *
 * @module
 */

import { GltfImportError } from "./errors.ts";
import type { GltfLimits } from "./types.ts";

/** The limit each list of the file counts against (by its key); other lists count against `maxObjects`. */
const LIST_LIMITS: Readonly<Record<string, "maxNodes" | "maxAccessors">> = {
  nodes: "maxNodes",
  accessors: "maxAccessors",
};

/** The message of any thrown value, for wrapping it in a sentence. */
export function messageOf(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** Per-import state: the file's name, warnings and what the budget has left. */
export class ImportContext {
  readonly warnings: string[] = [];
  #values = 0;
  #objects = 0;

  constructor(
    readonly file: string,
    readonly limits: Required<GltfLimits>,
    /** Whether meshes on nodes without a skin come as one-joint skins (`gltf/_attached.ts`). */
    readonly attachedMeshes = true,
  ) {}

  /** `limits.maxValues`. */
  get maxValues(): number {
    return this.limits.maxValues;
  }

  /**
   * Counts the `length` objects of list `key` of the file (at `pointer`)
   * against their limit, failing before any is read: nodes and accessors
   * each against their own, the other lists together against
   * `limits.maxObjects`. Every limit is linear in what the import then
   * does, so a file within them all parses in bounded time and memory.
   */
  countList(key: string, length: number, pointer: string): void {
    const own = LIST_LIMITS[key];
    if (own) {
      if (length > this.limits[own]) {
        this.fail(
          pointer,
          `the file has ${length} ${key}, beyond limits.${own} (${this.limits[own]})`,
        );
      }
      return;
    }
    this.#objects += length;
    if (this.#objects > this.limits.maxObjects) {
      this.fail(
        pointer,
        `${length} ${key} bring the file's buffers, buffer views, meshes, primitives, morph targets, skins, ` +
          `animations, samplers and channels past limits.maxObjects (${this.limits.maxObjects})`,
      );
    }
  }

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
