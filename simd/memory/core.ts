/**
 * The WebAssembly core: one linear memory and the kernels that run on it.
 *
 * A {@linkcode Core} owns one linear memory. Buffers are allocated in it and
 * handed out as handles (`simd/memory/buffers.ts`, `simd/memory/immutable.ts`); their
 * `array` getter returns a typed-array view made for the memory as it is
 * now. Growing a WebAssembly memory detaches views made before the growth
 * unless the runtime can expose the memory as a resizable buffer
 * ({@linkcode Core.viewsSurviveGrowth}); where it cannot (Node 20), a kept
 * view reads as empty (length 0) after a growth, never stale values. There,
 * either read `array` again after anything that may allocate, or fix the
 * memory's size: `Core.create(build, { reserveBytes: n, maxBytes: n })`
 * grows once, at creation, and never again (an allocation that does not fit
 * is a `RangeError`), so views stay attached on every runtime.
 *
 * @example
 * ```ts
 * import { Core, MatrixBuffer, PoseBuffer, quatToMat } from "@marrow/anim/kernels";
 *
 * const core = Core.default;
 * const pose = new PoseBuffer(3, core);
 * pose.setJoint(1, [0, 1, 0], [0, 0, 0, 1], [1, 1, 1]);
 * const matrices = new MatrixBuffer(3, core);
 * quatToMat(pose, matrices);
 * console.log(matrices.array[7]); // 1: joint 1's y translation
 * ```
 * @module
 */

import {
  bestBuild,
  type CoreBuild,
  type CoreInstance,
  coreLimits,
  type CoreOptions,
  instantiate,
} from "../wasm/internal.ts";
import { registerCoreFactory, registerInstance } from "./_instance.ts";

export type { CoreBuild, CoreOptions } from "../wasm/internal.ts";
export * from "./buffers.ts";
export * from "./immutable.ts";

/** A WebAssembly core: one linear memory and the kernels that run on it. */
export class Core {
  static #default: Core | undefined;
  readonly #instance: CoreInstance;

  static {
    registerCoreFactory((instance) => new Core(instance));
  }

  private constructor(instance: CoreInstance) {
    this.#instance = instance;
    registerInstance(this, instance);
  }

  /**
   * Creates an independent core with its own memory. `build` defaults to
   * the fastest this runtime supports: `"relaxed-simd"`, then `"simd"`,
   * then `"scalar"` (the TypeScript references, once `@marrow/anim/scalar`
   * is imported). Throws a `TypeError` for a build the runtime cannot run
   * (the scalar build without its entry: the error says to import it) and a
   * `RangeError` for a bad option.
   */
  static create(build: CoreBuild = bestBuild(), options: CoreOptions = {}): Core {
    return new Core(instantiate(build, coreLimits("Core.create", options)));
  }

  /** The shared core, created on first use with the fastest build. */
  static get default(): Core {
    return Core.#default ??= Core.create();
  }

  /** Which implementation runs the kernels. */
  get build(): CoreBuild {
    return this.#instance.build;
  }

  /** Size of the core's memory in bytes. */
  get byteLength(): number {
    return this.#instance.memory.byteLength;
  }

  /** Bytes currently allocated to buffers. */
  get allocatedBytes(): number {
    return this.#instance.memory.allocatedBytes;
  }

  /** Highest extent the heap has reached, in bytes. */
  get peakBytes(): number {
    return this.#instance.memory.peakBytes;
  }

  /** The most bytes the core's buffers may take (`CoreOptions.maxBytes`). */
  get maxBytes(): number {
    return this.#instance.memory.maxBytes;
  }

  /**
   * Whether views of the memory stay attached when it grows: true where the
   * memory is a resizable buffer (Deno, recent Chromium, and the scalar
   * build without WebAssembly on Node 20 and later), and on every runtime
   * for a memory fixed at creation (`reserveBytes` = `maxBytes`), which
   * never grows. Where false (WebAssembly on Node 20), a view made before a
   * growth is detached: its length is 0, it reads as empty and writes to it
   * are dropped. Buffers' `array` getters always return a view of the
   * memory as it is now.
   *
   * WebGL refuses views of a resizable buffer: a fixed memory's views can be
   * handed to it directly, a resizable memory's must be copied first.
   */
  get viewsSurviveGrowth(): boolean {
    return this.#instance.memory.viewsSurviveGrowth;
  }

  /**
   * Whether the memory's buffer is resizable. WebGL (`bufferData`,
   * `bufferSubData`) refuses views of a resizable buffer; a memory fixed at
   * creation (`Core.create(build, { reserveBytes: n, maxBytes: n })`) is not
   * resizable, so its views go to the GPU without a copy.
   */
  get resizableViews(): boolean {
    return this.#instance.memory.resizable;
  }
}
