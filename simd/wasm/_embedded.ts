/**
 * The core builds embedded in `_wasm.generated.ts`, decoded: base64, then
 * LZMA (`_lzma.ts`), then, for a build carried as a delta from another, the
 * delta applied to the other's bytes (`_delta.ts`). A bundle
 * holds the builds its code names: the plain SIMD build whole and the
 * relaxed-SIMD build as a delta from it for `Core.create`, the
 * shared-memory deltas only where the worker pool is used. Decoded once
 * per build, on first use, synchronously.
 *
 * @module
 */

import { applyDelta } from "./_delta.ts";
import { decodeLzma } from "./_lzma.ts";

/** A core build as `_wasm.generated.ts` embeds it. */
export interface EmbeddedWasm {
  /** The build this one is a delta from; absent when `lzma` holds the build itself. */
  readonly base?: EmbeddedWasm;
  /** Bytes of the build. */
  readonly length: number;
  /** Bytes `lzma` decodes to: the build, or its delta from `base`. */
  readonly payloadLength: number;
  /** The build or its delta, in the `.lzma` format, base64. */
  readonly lzma: string;
}

/** The bytes of base64 `text`. */
function decode(text: string): Uint8Array<ArrayBuffer> {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

const decoded = new WeakMap<EmbeddedWasm, Uint8Array<ArrayBuffer>>();

/** The WebAssembly bytes of `build` (shared between callers: read, never written). */
export function wasmBytes(build: EmbeddedWasm): Uint8Array<ArrayBuffer> {
  let bytes = decoded.get(build);
  if (bytes === undefined) {
    const payload = decodeLzma(decode(build.lzma), build.payloadLength);
    bytes = build.base ? applyDelta(wasmBytes(build.base), payload, build.length) : payload;
    decoded.set(build, bytes);
  }
  return bytes;
}
