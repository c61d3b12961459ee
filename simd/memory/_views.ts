/**
 * Typed-array views of core memory kept by offset and length, for the
 * scalar kernels: a job row, a pose or a vertex stream is viewed by the same
 * view every frame instead of a new `subarray` per call, so the scalar
 * build's steady frame allocates nothing. The views of a buffer the memory
 * has outgrown are dropped, and so are all of them past `MAX_VIEWS` (the
 * offsets a long session views are many only when it keeps building and
 * freeing), so the cache stays bounded.
 *
 * @module
 */

import type { CoreMemory } from "./_memory.ts";

/** Views kept at most, over all kinds, before the cache starts again. */
const MAX_VIEWS = 1 << 14;

type View = Float32Array | Uint32Array | Uint16Array | Int16Array | Uint8Array;

/** Views of one element type, by offset, then length. */
class ViewsOf<T extends View> {
  readonly #byOffset = new Map<number, Map<number, T>>();
  size = 0;

  constructor(readonly whole: () => T, readonly shift: number) {}

  get(ptr: number, length: number): T {
    let byLength = this.#byOffset.get(ptr);
    if (byLength === undefined) {
      byLength = new Map();
      this.#byOffset.set(ptr, byLength);
    }
    let view = byLength.get(length);
    if (view === undefined) {
      const start = ptr >> this.shift;
      view = this.whole().subarray(start, start + length) as T;
      byLength.set(length, view);
      this.size++;
    }
    return view;
  }

  clear(): void {
    this.#byOffset.clear();
    this.size = 0;
  }
}

/** Cached views of `memory`: `f32(ptr, n)` is `n` floats from byte offset `ptr`, and so on. */
export class MemoryViews {
  readonly #memory: CoreMemory;
  #buffer: ArrayBufferLike | undefined;
  readonly #kinds: ViewsOf<View>[];
  readonly #f32: ViewsOf<Float32Array>;
  readonly #u32: ViewsOf<Uint32Array>;
  readonly #u16: ViewsOf<Uint16Array>;
  readonly #i16: ViewsOf<Int16Array>;
  readonly #u8: ViewsOf<Uint8Array>;

  constructor(memory: CoreMemory) {
    this.#memory = memory;
    this.#f32 = new ViewsOf(() => memory.views().f32, 2);
    this.#u32 = new ViewsOf(() => memory.views().u32, 2);
    this.#u16 = new ViewsOf(() => memory.views().u16, 1);
    this.#i16 = new ViewsOf(() => memory.views().i16, 1);
    this.#u8 = new ViewsOf(() => memory.views().u8, 0);
    this.#kinds = [this.#f32, this.#u32, this.#u16, this.#i16, this.#u8];
  }

  /** Drops every view when the memory has grown (its buffer changed) or too many are kept. */
  #fresh(): void {
    const buffer = this.#memory.views().u8.buffer;
    let size = 0;
    for (let k = 0; k < this.#kinds.length; k++) size += this.#kinds[k].size;
    if (buffer === this.#buffer && size < MAX_VIEWS) return;
    for (let k = 0; k < this.#kinds.length; k++) this.#kinds[k].clear();
    this.#buffer = buffer;
  }

  f32(ptr: number, length: number): Float32Array {
    this.#fresh();
    return this.#f32.get(ptr, length);
  }
  /** The floats from byte offset `ptr` to the end of the memory. */
  f32From(ptr: number): Float32Array {
    this.#fresh();
    return this.#f32.get(ptr, this.#memory.views().f32.length - (ptr >> 2));
  }
  u32(ptr: number, length: number): Uint32Array {
    this.#fresh();
    return this.#u32.get(ptr, length);
  }
  u16(ptr: number, length: number): Uint16Array {
    this.#fresh();
    return this.#u16.get(ptr, length);
  }
  i16(ptr: number, length: number): Int16Array {
    this.#fresh();
    return this.#i16.get(ptr, length);
  }
  u8(ptr: number, length: number): Uint8Array {
    this.#fresh();
    return this.#u8.get(ptr, length);
  }
}
