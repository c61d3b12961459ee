/**
 * The systems' job tables: rows of batch jobs in the core's memory, staged in
 * a plain array first, and kept from call to call while nothing that fed
 * them has changed ({@linkcode JobTable.keep}).
 *
 * @module
 */

import type { CoreMemory } from "../simd/memory/internal.ts";

/**
 * A list whose entities may be rewritten in place: its `version` changes
 * with every rewrite, so that rows kept for it stop holding. A query's own
 * list (a plain array) has none: its entities change only with a component
 * added or removed, which drops the rows.
 */
interface VersionedList extends ArrayLike<number> {
  readonly version?: number;
}

/**
 * How many sets of rows a table keeps: a level of detail staggers its
 * entities over the frames (update rates 2 and 4 make 2 and 4 lists that
 * come round in turn), and each list keeps rows of its own.
 */
const KEPT_SETS = 4;

/** One set of rows in the core's memory, and what they were written for when kept. */
class RowSet {
  ptr = 0;
  capacity = 0;
  /** The list whose entities the kept rows are, one row each; undefined: none kept. */
  keptFor: VersionedList | undefined;
  keptRows = 0;
  keptVersion: number | undefined;
  keptVariant = 0;
  /** The table's use count when this set was last written or found. */
  used = 0;

  holds(query: VersionedList, variant: number): boolean {
    return this.keptFor === query && this.keptRows === query.length &&
      this.keptVersion === query.version && this.keptVariant === variant;
  }
}

/**
 * @internal A table of batch jobs in the core's memory. A system that wrote
 * one row per entity of a list may {@linkcode keep} the rows: its next call
 * on the same list reuses them ({@linkcode holds}) until they are
 * dropped, which the lifecycle machinery does to every table of the world
 * when any component is added or removed (the only changes to what an
 * entity owns). Up to `KEPT_SETS` lists keep rows at once, each in memory
 * of its own: {@linkcode begin} writes over a set kept for no list, else the
 * one used longest ago, and {@linkcode holds} makes the set it finds the
 * table's (`ptr`).
 */
export class JobTable {
  ptr = 0;
  count = 0;
  readonly #sets: RowSet[] = [new RowSet()];
  #set: RowSet = this.#sets[0];
  /** The set {@linkcode holds} found last, until the next {@linkcode begin}. */
  #found: RowSet | undefined;
  #uses = 0;
  #staged = new Uint32Array(0);
  #stagedPrefix: Uint32Array | undefined;
  #stagedFloats: Float32Array | undefined;
  #tableView: Uint32Array | undefined;
  #tableViewOf: Uint32Array | undefined;
  /** {@linkcode floatsView}'s views, of the core's float view `#floatViewsOf` at `#floatViewsAt`. */
  readonly #floatViews: Float32Array[] = [];
  #floatViewsOf: Float32Array | undefined;
  #floatViewsAt = 0;
  readonly #memory: CoreMemory;

  constructor(memory: CoreMemory) {
    this.#memory = memory;
  }

  /** Makes room for `rows` rows of `words` words and empties the table. */
  begin(rows: number, words: number): void {
    this.count = 0;
    const set = this.#set = this.#writable();
    set.keptFor = undefined, set.used = ++this.#uses;
    const bytes = rows * words * 4;
    if (bytes > set.capacity) {
      if (set.ptr) this.#memory.free(set.ptr);
      set.capacity = Math.max(bytes, set.capacity * 2, 256);
      set.ptr = this.#memory.alloc(set.capacity);
    }
    this.ptr = set.ptr;
  }

  /**
   * The set to write: the current one when it is kept for nothing or was
   * just found (its rows are being written again), else one kept for
   * nothing, else a new one, up to `KEPT_SETS`, else the one used longest ago.
   */
  #writable(): RowSet {
    const sets = this.#sets, found = this.#found;
    this.#found = undefined;
    if (this.#set.keptFor === undefined || this.#set === found) return this.#set;
    let oldest = this.#set;
    for (let i = 0; i < sets.length; i++) {
      if (sets[i].keptFor === undefined) return sets[i];
      if (sets[i].used < oldest.used) oldest = sets[i];
    }
    if (sets.length < KEPT_SETS) {
      const set = new RowSet();
      sets.push(set);
      return set;
    }
    return oldest;
  }

  /**
   * Marks the rows, one per entity of `query` in its order, as kept for the
   * next calls; `variant` is what else they were written from (a fault
   * mode, say), which {@linkcode holds} must be given again.
   */
  keep(query: VersionedList, variant: number): void {
    const set = this.#set;
    set.keptFor = query, set.keptRows = query.length, set.keptVersion = query.version;
    set.keptVariant = variant;
  }

  /**
   * Whether rows are kept for `query` (the same list, of the same length
   * and version: a query's entities change only with a component added or
   * removed, which drops the rows) and `variant`; if so they become the
   * table's. Rows kept for `query` otherwise (another length, version or
   * variant) are dropped, and their set is the one {@linkcode begin} writes.
   */
  holds(query: VersionedList, variant: number): boolean {
    const sets = this.#sets;
    this.#found = undefined;
    for (let i = 0; i < sets.length; i++) {
      const set = sets[i];
      if (set.keptFor !== query) continue;
      this.#set = set, this.ptr = set.ptr, set.used = ++this.#uses;
      if (set.holds(query, variant)) {
        this.#found = set;
        return true;
      }
      set.keptFor = undefined;
      return false;
    }
    return false;
  }

  /** Forgets every kept row: what fed them may have changed. */
  drop(): void {
    for (let i = 0; i < this.#sets.length; i++) this.#sets[i].keptFor = undefined;
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
    return Math.max(words, Math.min(this.#staged.length, this.#set.capacity >> 2));
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

  /**
   * The table's first `floats` floats in the core's memory, as a view kept
   * while the memory and the table's place stay: one per count, for up to
   * `KEPT_SETS` counts (a level of detail's frames alternate a few row
   * counts). Undefined for another count once those are made: a new view
   * every frame would be garbage every frame.
   */
  floatsView(floats: number): Float32Array | undefined {
    const f32 = this.#memory.views().f32, views = this.#floatViews;
    if (this.#floatViewsOf !== f32 || this.#floatViewsAt !== this.ptr) {
      views.length = 0, this.#floatViewsOf = f32, this.#floatViewsAt = this.ptr;
    }
    for (let i = 0; i < views.length; i++) if (views[i].length === floats) return views[i];
    if (views.length === KEPT_SETS) return undefined;
    const view = f32.subarray(this.ptr >> 2, (this.ptr >> 2) + floats);
    views.push(view);
    return view;
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
    for (const set of this.#sets) if (set.ptr) this.#memory.free(set.ptr);
    this.#sets.length = 1;
    this.#set = this.#sets[0];
    this.#set.ptr = this.#set.capacity = 0;
    this.#set.keptFor = undefined;
    this.ptr = this.count = 0;
    this.#staged = new Uint32Array(0);
    this.#floatViews.length = 0;
    this.#stagedPrefix =
      this.#floatViewsOf =
      this.#stagedFloats =
      this.#tableView =
      this.#tableViewOf =
        undefined;
  }
}
