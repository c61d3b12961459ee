/**
 * The core's linear memory and a first-fit allocator over it.
 *
 * Growing a non-shared `WebAssembly.Memory` detaches every view made over
 * its old buffer. Views are therefore never handed out directly: everything
 * reads `CoreMemory.f32` (and friends) at the moment of use, and those are
 * replaced on every growth. Where the runtime can expose the memory as a
 * resizable buffer (`toResizableBuffer`), growth keeps the buffer and
 * fixed-length views stay valid as well.
 *
 * @module
 */

const PAGE = 65536;
const ALIGN = 16;
/** Offset 0 is never allocated, so a zero pointer means "no buffer". */
const HEAP_START = ALIGN;

/** What the allocator needs of a memory: `WebAssembly.Memory` fits. */
interface GrowableMemory {
  readonly buffer: ArrayBufferLike;
  grow(pages: number): number;
}

/**
 * A growable buffer for runtimes without WebAssembly (Node `--jitless`),
 * where only the scalar path runs. Where the runtime has resizable
 * `ArrayBuffer`s (Node 20 does), growth resizes the buffer in place and
 * views stay attached. Elsewhere growth copies into a new buffer and
 * detaches the old one, as WebAssembly's growth does: a kept view then
 * reads as empty instead of showing stale values that writes no longer
 * reach.
 */
export class ArrayBufferMemory implements GrowableMemory {
  buffer: ArrayBuffer;

  /**
   * A memory of one page that may grow to `maxBytes` (rounded up to pages),
   * resizable unless the runtime cannot (or `resizable` is false).
   */
  constructor(maxBytes: number = MAX_PAGES * PAGE, resizable = true) {
    const maxByteLength = Math.ceil(maxBytes / PAGE) * PAGE;
    let buffer = new ArrayBuffer(PAGE);
    if (resizable) {
      try {
        buffer = new ArrayBuffer(PAGE, { maxByteLength });
      } catch {
        // No resizable buffers here, or the address space cannot be reserved.
      }
    }
    this.buffer = buffer;
  }

  grow(pages: number): number {
    const old = this.buffer;
    const oldPages = old.byteLength / PAGE;
    const byteLength = old.byteLength + pages * PAGE;
    if (old.resizable && byteLength <= old.maxByteLength) {
      old.resize(byteLength);
      return oldPages;
    }
    // A copy, not `ArrayBuffer.prototype.transfer`: Node 20 lacks it.
    const grown = new ArrayBuffer(byteLength);
    new Uint8Array(grown).set(new Uint8Array(old));
    this.buffer = grown;
    detach(old);
    return oldPages;
  }
}

/** Detaches `buffer` (a transfer to nowhere), so that views made over it read as empty. */
function detach(buffer: ArrayBuffer): void {
  if (typeof structuredClone === "function") structuredClone(buffer, { transfer: [buffer] });
}

/** Pages in 4 GiB: the most a 32-bit WebAssembly memory can have. */
const MAX_PAGES = 65536;

/** Default budget of a core's buffers: 1 GiB. */
export const DEFAULT_MAX_BYTES = 2 ** 30;

/** Limits of a {@linkcode CoreMemory}. */
export interface MemoryLimits {
  /** The most bytes the heap may reach. */
  readonly maxBytes: number;
  /** Bytes to grow to at once. */
  readonly reserveBytes: number;
}

/** A fresh memory of one page, WebAssembly's where it exists. */
function createMemory(maxBytes?: number): GrowableMemory {
  return typeof WebAssembly === "object"
    ? new WebAssembly.Memory({ initial: 1, maximum: MAX_PAGES })
    : new ArrayBufferMemory(maxBytes);
}

/**
 * Switches `memory` to a resizable buffer where the runtime can, so that
 * growth keeps the buffer and views made over it stay attached.
 */
function makeResizable(memory: GrowableMemory): boolean {
  if (memory instanceof ArrayBufferMemory) return memory.buffer.resizable;
  const toResizable = (memory as { toResizableBuffer?: () => ArrayBuffer }).toResizableBuffer;
  if (typeof toResizable !== "function") return false;
  try {
    toResizable.call(memory);
    return true;
  } catch {
    // Memories without a maximum cannot be made resizable.
    return false;
  }
}

interface FreeBlock {
  ptr: number;
  size: number;
}

/** One linear memory with typed views that are refreshed on growth. */
export class CoreMemory {
  readonly memory: GrowableMemory;
  /** Changes each time the views are replaced. */
  generation = 0;
  f32!: Float32Array;
  u32!: Uint32Array;
  i32!: Int32Array;
  u16!: Uint16Array;
  i16!: Int16Array;
  u8!: Uint8Array;
  #buffer!: ArrayBufferLike;
  /** Whether growth keeps views attached (resizable buffer). */
  readonly #resizable: boolean;
  /** Reserved up to its budget at creation: it never grows afterwards. */
  readonly #fixed: boolean;
  #top = HEAP_START;
  #free: FreeBlock[] = [];
  #held: Set<number> | undefined;
  #sizes = new Map<number, number>();
  #allocated = 0;
  #peak = 0;
  readonly #maxBytes: number;

  constructor(
    memory?: GrowableMemory,
    limits: MemoryLimits = { maxBytes: DEFAULT_MAX_BYTES, reserveBytes: 0 },
  ) {
    this.memory = memory ?? createMemory(limits.maxBytes);
    this.#maxBytes = limits.maxBytes;
    const reserve = Math.min(HEAP_START + limits.reserveBytes, this.#maxBytes);
    // A memory reserved up to its budget never grows again: it keeps its
    // plain, fixed-length buffer, whose views never detach and which WebGL
    // accepts (it refuses views of a resizable buffer).
    this.#fixed = limits.reserveBytes > 0 && reserve === this.#maxBytes;
    this.#resizable = !this.#fixed && makeResizable(this.memory);
    this.#refresh();
    if (limits.reserveBytes > 0) this.#ensure(reserve);
  }

  /** Whether views made now stay attached: the buffer is resizable, or never grows. */
  get viewsSurviveGrowth(): boolean {
    return this.#resizable || this.#fixed;
  }

  /** The most bytes the heap may reach. */
  get maxBytes(): number {
    return this.#maxBytes;
  }

  #refresh(): void {
    const buffer = this.memory.buffer;
    this.#buffer = buffer;
    this.f32 = new Float32Array(buffer);
    this.u32 = new Uint32Array(buffer);
    this.i32 = new Int32Array(buffer);
    this.u16 = new Uint16Array(buffer);
    this.i16 = new Int16Array(buffer);
    this.u8 = new Uint8Array(buffer);
    this.generation++;
  }

  /** Whether growth keeps existing views attached. */
  get resizable(): boolean {
    return this.#resizable;
  }

  /** Current size of the memory in bytes. */
  get byteLength(): number {
    return this.memory.buffer.byteLength;
  }

  /** Bytes currently allocated. */
  get allocatedBytes(): number {
    return this.#allocated;
  }

  /** Highest end of the heap reached so far, in bytes. */
  get peakBytes(): number {
    return this.#peak;
  }

  /** The views, refreshed if the memory grew behind our back. */
  views(): this {
    if (this.memory.buffer !== this.#buffer) this.#refresh();
    return this;
  }

  /** Allocates `bytes` (rounded up to 16), zero-filled; returns the offset. */
  alloc(bytes: number): number {
    if (!(bytes >= 0 && bytes <= this.#maxBytes)) {
      throw new RangeError(
        `core memory: ${bytes} bytes exceed the core's budget of ${this.#maxBytes} bytes (Core.create options.maxBytes)`,
      );
    }
    const size = Math.max(ALIGN, Math.ceil(bytes / ALIGN) * ALIGN);
    let ptr = -1;
    for (let i = 0; i < this.#free.length; i++) {
      const block = this.#free[i];
      if (block.size < size) continue;
      ptr = block.ptr;
      if (block.size === size) this.#free.splice(i, 1);
      else block.ptr += size, block.size -= size;
      break;
    }
    if (ptr < 0) {
      ptr = this.#top;
      if (ptr + size > this.#maxBytes) {
        throw new RangeError(
          `core memory: allocating ${size} bytes would take the heap to ${
            ptr + size
          } bytes, beyond the core's budget of ${this.#maxBytes} bytes (Core.create options.maxBytes)`,
        );
      }
      this.#ensure(ptr + size);
      this.#top += size;
      this.#peak = Math.max(this.#peak, this.#top);
    }
    this.#sizes.set(ptr, size);
    this.#allocated += size;
    this.views().u8.fill(0, ptr, ptr + size);
    return ptr;
  }

  /**
   * Keeps every block freed from now on allocated until
   * {@linkcode releaseHeld}: worker threads may still be writing to it (a
   * frame awaited on a browser's main thread, while the game runs).
   */
  holdFrees(): void {
    this.#held ??= new Set();
  }

  /** Frees the blocks held since {@linkcode holdFrees}, and stops holding. */
  releaseHeld(): void {
    const held = this.#held;
    this.#held = undefined;
    for (const ptr of held ?? []) this.free(ptr);
  }

  /** Returns a block to the free list, merging it with its neighbours. */
  free(ptr: number): void {
    const size = this.#sizes.get(ptr);
    if (size === undefined || this.#held?.has(ptr)) {
      throw new RangeError(`free: ${ptr} is not an allocated block`);
    }
    if (this.#held) {
      this.#held.add(ptr);
      return;
    }
    this.#sizes.delete(ptr);
    this.#allocated -= size;
    const list = this.#free;
    let i = 0;
    while (i < list.length && list[i].ptr < ptr) i++;
    list.splice(i, 0, { ptr, size });
    if (i + 1 < list.length && ptr + size === list[i + 1].ptr) {
      list[i].size += list[i + 1].size;
      list.splice(i + 1, 1);
    }
    if (i > 0 && list[i - 1].ptr + list[i - 1].size === ptr) {
      list[i - 1].size += list[i].size;
      list.splice(i, 1);
      i--;
    }
    // Give the tail back to the bump pointer so the free list stays short.
    const last = list[list.length - 1];
    if (last && last.ptr + last.size === this.#top) {
      this.#top = last.ptr;
      list.pop();
    }
  }

  /** Size in bytes of the block at `ptr`, or undefined if not allocated. */
  sizeOf(ptr: number): number | undefined {
    return this.#sizes.get(ptr);
  }

  #ensure(end: number): void {
    const have = this.memory.buffer.byteLength;
    if (end <= have) return;
    // Grow geometrically so a stream of small allocations grows rarely.
    const want = Math.min(Math.max(end, have + (have >> 1)), Math.max(end, this.#maxBytes));
    this.memory.grow(Math.ceil((want - have) / PAGE));
    this.#refresh();
  }
}
