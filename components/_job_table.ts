/**
 * The systems' job tables: rows of batch jobs in the core's memory, staged in
 * a plain array first, and kept from call to call while nothing that fed
 * them has changed ({@linkcode JobTable.keep}).
 *
 * @module
 */

import type { CoreMemory } from "../simd/memory/internal.ts";

/**
 * @internal A table of batch jobs in the core's memory. A system that wrote
 * one row per entity of a query may {@linkcode keep} the rows: its next call
 * on the same query reuses them ({@linkcode holds}) until they are
 * dropped, which the lifecycle machinery does to every table of the world
 * when any component is added or removed (the only changes to what an
 * entity owns), and {@linkcode begin} does for any other writer.
 */
export class JobTable {
  ptr = 0;
  count = 0;
  #capacity = 0;
  /** The query whose entities the kept rows are, one row each; undefined: none kept. */
  #keptFor: ArrayLike<number> | undefined;
  #keptRows = 0;
  #keptVariant = 0;
  #staged = new Uint32Array(0);
  #stagedPrefix: Uint32Array | undefined;
  #stagedFloats: Float32Array | undefined;
  #tableView: Uint32Array | undefined;
  #tableViewOf: Uint32Array | undefined;
  readonly #memory: CoreMemory;

  constructor(memory: CoreMemory) {
    this.#memory = memory;
  }

  /** Makes room for `rows` rows of `words` words and empties the table. */
  begin(rows: number, words: number): void {
    this.count = 0;
    this.#keptFor = undefined;
    const bytes = rows * words * 4;
    if (bytes <= this.#capacity) return;
    if (this.ptr) this.#memory.free(this.ptr);
    this.#capacity = Math.max(bytes, this.#capacity * 2, 256);
    this.ptr = this.#memory.alloc(this.#capacity);
  }

  /**
   * Marks the rows, one per entity of `query` in its order, as kept for the
   * next calls; `variant` is what else they were written from (a fault
   * mode, say), which {@linkcode holds} must be given again.
   */
  keep(query: ArrayLike<number>, variant: number): void {
    this.#keptFor = query, this.#keptRows = query.length, this.#keptVariant = variant;
  }

  /**
   * Whether the rows are still those kept for `query` (the same array, of
   * the same length: its entities change only with a component added or
   * removed, which drops the rows) and `variant`.
   */
  holds(query: ArrayLike<number>, variant: number): boolean {
    return this.#keptFor === query && this.#keptRows === query.length &&
      this.#keptVariant === variant;
  }

  /** Forgets the kept rows: what fed them may have changed. */
  drop(): void {
    this.#keptFor = undefined;
  }

  /**
   * A plain array of at least `words` words to write rows into before
   * {@linkcode commit} copies them into the table at once: an element
   * access to the core's memory (a resizable buffer) costs more than one to
   * a plain array, and the copy less than the difference.
   */
  staging(words: number): Uint32Array {
    if (this.#staged.length < words) {
      this.#staged = new Uint32Array(Math.max(words, this.#staged.length * 2));
    }
    return this.#staged;
  }

  /** The staging array of {@linkcode staging} read as floats (kept while it is). */
  stagingFloats(): Float32Array {
    if (this.#stagedFloats?.buffer !== this.#staged.buffer) {
      this.#stagedFloats = new Float32Array(this.#staged.buffer);
    }
    return this.#stagedFloats;
  }

  /**
   * Copies the first `words` staged words into the table. It copies as many
   * words as both the staging array and the table hold, not just `words`:
   * a view of that span is kept while the two keep their sizes, where one
   * of `words` would be a new view whenever the row count changes (a level
   * of detail's frames skinning more or fewer entities).
   */
  commit(words: number): void {
    const u32 = this.#memory.views().u32;
    const span = this.#span(words);
    if (span === this.#staged.length) u32.set(this.#staged, this.ptr >> 2);
    else u32.set(this.#stagedView(span), this.ptr >> 2);
  }

  /** Words both the staging array and the table hold (at least `words`, which both do). */
  #span(words: number): number {
    return Math.max(words, Math.min(this.#staged.length, this.#capacity >> 2));
  }

  /**
   * The table's first `words` words (what a kernel wrote), copied into the
   * staging array (with the words after them that both hold, as
   * {@linkcode commit} copies).
   */
  readBack(words: number): Uint32Array {
    const staged = this.staging(words), u32 = this.#memory.views().u32, from = this.ptr >> 2;
    words = this.#span(words);
    // The view of the table is kept while the table and the core's views stay: no garbage a frame.
    let view = this.#tableView;
    if (
      view === undefined || this.#tableViewOf !== u32 || view.byteOffset !== this.ptr ||
      view.length !== words
    ) {
      view = this.#tableView = u32.subarray(from, from + words);
      this.#tableViewOf = u32;
    }
    staged.set(view);
    return staged;
  }

  /** {@linkcode readBack} read as floats (the same staging array). */
  readBackFloats(words: number): Float32Array {
    this.readBack(words);
    return this.stagingFloats();
  }

  /** The first `words` staged words, a view kept while their count stays. */
  #stagedView(words: number): Uint32Array {
    let view = this.#stagedPrefix;
    if (view === undefined || view.buffer !== this.#staged.buffer || view.length !== words) {
      view = this.#stagedPrefix = this.#staged.subarray(0, words);
    }
    return view;
  }

  free(): void {
    if (this.ptr) this.#memory.free(this.ptr);
    this.ptr = this.#capacity = this.count = 0;
    this.#keptFor = undefined;
    this.#staged = new Uint32Array(0);
    this.#stagedPrefix =
      this.#stagedFloats =
      this.#tableView =
      this.#tableViewOf =
        undefined;
  }
}
