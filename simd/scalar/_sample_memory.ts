/**
 * The memory the scalar clip sampler reads and writes: typed views of one
 * buffer (a core's memory, or a build's own bytes), and reads of a clip's
 * fields at any byte offset.
 *
 * Why not a `DataView`: V8 does not inline its reads on a resizable buffer
 * (the core's memory is one), so every float read was a call returning a
 * new heap number, about 0.3 MB a frame of the zero-allocation scene.
 * Typed-array reads are inlined. A clip's fields are read at any byte
 * offset all the same: a track's key times follow the previous track's
 * values unpadded (a ranged key is 6 bytes, so times may start 2 bytes off
 * a word), and a loaded file's offsets are checked for bounds, not
 * alignment. The caches and poses the sampler writes are allocations of the
 * core (16-byte aligned) or of a build (aligned by its layout), so they are
 * read and written through the views directly. Typed arrays are in the
 * platform's byte order; the core's memory is little-endian, and so is
 * every platform the scalar build runs on (the rest of it views the memory
 * the same way).
 *
 * @module
 */

/** Typed views of one buffer, all from its byte 0 (a core's memory has them all). */
export interface SampleMemory {
  readonly f32: Float32Array;
  readonly u32: Uint32Array;
  readonly u16: Uint16Array;
  readonly i16: Int16Array;
  readonly u8: Uint8Array;
}

/**
 * Views of `buffer` for the sampler (a build's bytes; a core passes its own
 * views), its whole elements of each size.
 */
export function sampleMemory(buffer: ArrayBuffer): SampleMemory {
  const words = buffer.byteLength >> 2, halves = buffer.byteLength >> 1;
  return {
    f32: new Float32Array(buffer, 0, words),
    u32: new Uint32Array(buffer, 0, words),
    u16: new Uint16Array(buffer, 0, halves),
    i16: new Int16Array(buffer, 0, halves),
    u8: new Uint8Array(buffer),
  };
}

/**
 * The views of the sampling in progress, set by {@linkcode useMemory}
 * (sampling is synchronous). One object of one shape, whose fields change
 * only when another buffer is sampled (a build's, or the core's after it
 * grew), so the sampler's reads stay monomorphic.
 */
export const heap: { -readonly [K in keyof SampleMemory]: SampleMemory[K] } = {
  f32: new Float32Array(0),
  u32: new Uint32Array(0),
  u16: new Uint16Array(0),
  i16: new Int16Array(0),
  u8: new Uint8Array(0),
};

/**
 * The time of the sampling in progress (float32): read from here, not
 * passed from function to function, since a double passed to a function
 * the compiler does not inline is a new heap number.
 */
export const sampleTime = new Float64Array(1);

/** Samples `memory` from now on. */
export function useMemory(memory: SampleMemory): void {
  if (heap.u8 === memory.u8) return;
  heap.f32 = memory.f32;
  heap.u32 = memory.u32;
  heap.u16 = memory.u16;
  heap.i16 = memory.i16;
  heap.u8 = memory.u8;
}

// A field read off its alignment is gathered here byte by byte, then read
// as its type (in the platform's order, as the views read).
const word = new Uint8Array(4);
const wordF32 = new Float32Array(word.buffer);
const wordU32 = new Uint32Array(word.buffer);
const wordU16 = new Uint16Array(word.buffer);
const wordI16 = new Int16Array(word.buffer);

/**
 * Copies the `bytes` at byte `at` into `word`. A read past the memory
 * throws a RangeError, as a `DataView`'s does (the clip file tests sample a
 * file's image at the end of its buffer to catch reads past it).
 */
function gather(at: number, bytes: number): void {
  const u8 = heap.u8;
  if (!(at >= 0 && at + bytes <= u8.length)) {
    throw new RangeError(`sampler: ${bytes} bytes at ${at} are outside its ${u8.length} bytes`);
  }
  for (let i = 0; i < bytes; i++) word[i] = u8[at + i];
}

// Each read takes its view's element where the offset is aligned and
// within the memory, else gathers (which throws past the memory).

/**
 * Writes the float32 of the clip at byte `at` to `out[i]`: written, not
 * returned, since a double returned by a function the compiler does not
 * inline is a new heap number.
 */
export function readF32(at: number, out: Float32Array | Float64Array, i: number): void {
  if ((at & 3) === 0 && at >= 0 && at + 4 <= heap.u8.length) out[i] = heap.f32[at >>> 2];
  else {
    gather(at, 4);
    out[i] = wordF32[0];
  }
}

/** The uint32 of the clip at byte `at`, for counts and offsets (a whole key word: {@linkcode readU32}). */
export function u32At(at: number): number {
  if ((at & 3) === 0 && at >= 0 && at + 4 <= heap.u8.length) return heap.u32[at >>> 2];
  gather(at, 4);
  return wordU32[0];
}

/** Writes the uint32 of the clip at byte `at` to `out[i]` (a key word may be past a small integer's range). */
export function readU32(at: number, out: Uint32Array, i: number): void {
  if ((at & 3) === 0 && at >= 0 && at + 4 <= heap.u8.length) out[i] = heap.u32[at >>> 2];
  else {
    gather(at, 4);
    out[i] = wordU32[0];
  }
}

/** The uint16 of the clip at byte `at`. */
export function u16At(at: number): number {
  if ((at & 1) === 0 && at >= 0 && at + 2 <= heap.u8.length) return heap.u16[at >>> 1];
  gather(at, 2);
  return wordU16[0];
}

/** The int16 of the clip at byte `at`. */
export function i16At(at: number): number {
  if ((at & 1) === 0 && at >= 0 && at + 2 <= heap.u8.length) return heap.i16[at >>> 1];
  gather(at, 2);
  return wordI16[0];
}
