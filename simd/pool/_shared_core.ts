/**
 * The core on shared memory: the shared-memory builds (same kernels as the
 * plain builds, memory imported and declared shared) instantiated on one
 * `WebAssembly.Memory({ shared: true })` that worker threads instantiate
 * the same module on.
 *
 * Only the calling thread allocates and grows the memory. Growth of a
 * shared memory never detaches: where the runtime exposes it as a growable
 * `SharedArrayBuffer` (`toResizableBuffer`), views made over it track its
 * length, so views from before a growth read and write the whole memory
 * after it, on every thread.
 *
 * @module
 */

import type { CoreBuild, CoreInstance } from "../wasm/internal.ts";
import { CoreMemory, type MemoryLimits } from "../memory/internal.ts";
import { SHARED_RELAXED_SIMD_WASM, SHARED_SIMD_WASM, wasmBytes } from "../wasm/internal.ts";
import type { CoreKernels } from "../abi.ts";

const PAGE = 65536;

/** The WebAssembly builds, each with its shared-memory twin. */
export type WasmBuild = Exclude<CoreBuild, "scalar">;

const sharedBytes: Record<WasmBuild, () => Uint8Array<ArrayBuffer>> = {
  "relaxed-simd": () => wasmBytes(SHARED_RELAXED_SIMD_WASM),
  "simd": () => wasmBytes(SHARED_SIMD_WASM),
};

const validated = new Map<WasmBuild, boolean>();

/**
 * Why this runtime cannot run the core on threads, or undefined when it
 * can: shared memory needs `SharedArrayBuffer` (a cross-origin isolated page
 * in browsers), `Atomics`, module workers and WebAssembly threads.
 */
export function sharedUnsupportedReason(build: WasmBuild): string | undefined {
  const scope = globalThis as { crossOriginIsolated?: boolean };
  if (typeof SharedArrayBuffer !== "function") return "SharedArrayBuffer is not available";
  if (scope.crossOriginIsolated === false) return "the page is not cross-origin isolated";
  if (typeof Atomics !== "object") return "Atomics is not available";
  if (typeof Worker !== "function") return "Worker is not available";
  if (typeof WebAssembly !== "object") return "WebAssembly is not available";
  let ok = validated.get(build);
  if (ok === undefined) {
    ok = WebAssembly.validate(sharedBytes[build]());
    validated.set(build, ok);
  }
  return ok ? undefined : `this runtime cannot run the shared-memory ${build} build`;
}

/** A shared-memory core: what workers need to join it, and the calling thread's instance. */
export interface SharedCore {
  readonly module: WebAssembly.Module;
  readonly memory: WebAssembly.Memory;
  readonly instance: CoreInstance;
}

/** Instantiates the shared-memory twin of `build` on a fresh shared memory. */
export function instantiateShared(build: WasmBuild, limits: MemoryLimits): SharedCore {
  const module = new WebAssembly.Module(sharedBytes[build]());
  // The maximum is reserved as address space by the runtime: the budget's
  // pages, not the 4 GiB the module allows.
  const maximum = Math.ceil(limits.maxBytes / PAGE);
  const memory = new WebAssembly.Memory({ initial: 1, maximum, shared: true });
  const exports = new WebAssembly.Instance(module, { env: { memory } }).exports;
  const kernels = exports as unknown as CoreKernels;
  return {
    module,
    memory,
    instance: { build, memory: new CoreMemory(memory, limits), kernels },
  };
}
