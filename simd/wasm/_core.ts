/**
 * Instantiates the core: the relaxed-SIMD build where the runtime validates
 * it, else the plain SIMD128 build, else the scalar TypeScript references
 * over the same memory layout, once `scalar.ts` (`@marrow/anim/scalar`)
 * has provided them: a game's bundle carries them only where it imports
 * that entry. Synchronous, no I/O: the bytes are embedded (`_embedded.ts`).
 *
 * @module
 */

import type { CoreKernels } from "../abi.ts";
import {
  CoreMemory,
  DEFAULT_MAX_BYTES,
  describeValue,
  type MemoryLimits,
} from "../memory/internal.ts";
import { RELAXED_SIMD_WASM, SIMD_WASM } from "./_wasm.generated.ts";
import { wasmBytes as embeddedBytes } from "./_embedded.ts";

/** Which implementation of the kernels a core runs. */
export type CoreBuild = "relaxed-simd" | "simd" | "scalar";

const wasmBytes: Record<Exclude<CoreBuild, "scalar">, () => Uint8Array<ArrayBuffer>> = {
  "relaxed-simd": () => embeddedBytes(RELAXED_SIMD_WASM),
  "simd": () => embeddedBytes(SIMD_WASM),
};

const supported = new Map<CoreBuild, boolean>();

/** The scalar build's kernels over a memory, once provided. */
let scalarKernels: ((memory: CoreMemory) => CoreKernels) | undefined;

/** Makes the scalar build available: what importing `scalar.ts` does. */
export function provideScalarBuild(kernels: (memory: CoreMemory) => CoreKernels): void {
  scalarKernels = kernels;
}

/** What a runtime without the scalar build's entry is told. */
const SCALAR_ENTRY = 'import "@marrow/anim/scalar" (the scalar build) first';

/** Whether this runtime can run `build` (the scalar build once provided). */
export function isBuildSupported(build: CoreBuild): boolean {
  if (build === "scalar") return scalarKernels !== undefined;
  if (!(build in wasmBytes)) {
    throw new TypeError(
      `core build: expected "relaxed-simd", "simd" or "scalar", got ${
        describeValue(JSON.stringify(build))
      }`,
    );
  }
  let ok = supported.get(build);
  if (ok === undefined) {
    ok = typeof WebAssembly === "object" &&
      WebAssembly.validate(wasmBytes[build]());
    supported.set(build, ok);
  }
  return ok;
}

/** The fastest build this runtime supports; a `TypeError` when it has none. */
export function bestBuild(): CoreBuild {
  if (isBuildSupported("relaxed-simd")) return "relaxed-simd";
  if (isBuildSupported("simd")) return "simd";
  if (scalarKernels) return "scalar";
  throw new TypeError(`core: this runtime has no WebAssembly SIMD: ${SCALAR_ENTRY}`);
}

/** Options of `Core.create`. */
export interface CoreOptions {
  /**
   * Bytes to reserve up front, so that a program that allocates less never
   * grows the memory (and views never detach, on any runtime). With
   * `maxBytes` equal to it, the memory never grows after creation. Default 0.
   */
  readonly reserveBytes?: number;
  /**
   * The most bytes the core's buffers may take; an allocation beyond it is
   * a `RangeError` naming the budget, so no input can grow memory without
   * bound. Default 1 GiB; at most 4 GiB.
   */
  readonly maxBytes?: number;
}

/** The memory limits `options` ask for, checked: a `RangeError` names the bad option. */
export function coreLimits(caller: string, options: CoreOptions): MemoryLimits {
  if (options === null || typeof options !== "object") {
    throw new TypeError(`${caller}: options: expected an object`);
  }
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  const reserveBytes = options.reserveBytes ?? 0;
  if (!Number.isInteger(maxBytes) || maxBytes < 65536 || maxBytes > 2 ** 32) {
    throw new RangeError(
      `${caller}: options.maxBytes: expected a whole number 65536..2^32, got ${
        describeValue(maxBytes)
      }`,
    );
  }
  if (!Number.isInteger(reserveBytes) || reserveBytes < 0 || reserveBytes > maxBytes) {
    throw new RangeError(
      `${caller}: options.reserveBytes: expected a whole number 0..maxBytes, got ${
        describeValue(reserveBytes)
      }`,
    );
  }
  return { maxBytes, reserveBytes };
}

/** A core instance: its memory and the kernels that work on it. */
export interface CoreInstance {
  readonly build: CoreBuild;
  readonly memory: CoreMemory;
  readonly kernels: CoreKernels;
}

/** Creates a core of the given build (the fastest supported by default). */
export function instantiate(
  build: CoreBuild = bestBuild(),
  limits?: MemoryLimits,
): CoreInstance {
  if (build === "scalar") {
    if (!scalarKernels) throw new TypeError(`core build "scalar": ${SCALAR_ENTRY}`);
    const memory = new CoreMemory(undefined, limits);
    return { build, memory, kernels: scalarKernels(memory) };
  }
  if (!isBuildSupported(build)) {
    throw new TypeError(`core build "${build}" is not supported by this runtime`);
  }
  const module = new WebAssembly.Module(wasmBytes[build]());
  const instance = new WebAssembly.Instance(module, {});
  const exports = instance.exports as unknown as
    & CoreKernels
    & { memory: WebAssembly.Memory };
  const memory = new CoreMemory(exports.memory, limits);
  return { build, memory, kernels: exports };
}
