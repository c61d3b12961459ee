/**
 * Marrow's private handle on a core's memory and kernels. Not exported by
 * any public module: holding it lets code free any block or call a kernel
 * with any offset, so only Marrow's own modules may.
 *
 * @module
 */

import type { CoreKernels } from "../abi.ts";
import type { CoreInstance } from "../wasm/internal.ts";
import type { CoreMemory } from "./_memory.ts";

const instances = new WeakMap<object, CoreInstance>();

/** Records `core`'s instance; called once by the Core constructor. */
export function registerInstance(core: object, instance: CoreInstance): void {
  instances.set(core, instance);
}

function instanceOf(core: object): CoreInstance {
  const instance = instances.get(core);
  if (!instance) throw new TypeError("core: expected a Core");
  return instance;
}

/** The allocator and views of `core`'s memory. */
export function coreMemory(core: object): CoreMemory {
  return instanceOf(core).memory;
}

/** The kernels of `core`. */
export function coreKernels(core: object): CoreKernels {
  return instanceOf(core).kernels;
}

let coreFactory: ((instance: CoreInstance) => object) | undefined;

/** Records how a Core is made from an instance; called once by the Core class. */
export function registerCoreFactory(factory: (instance: CoreInstance) => object): void {
  coreFactory = factory;
}

/** A Core over `instance` (a shared-memory core made by the worker pool). */
export function coreFromInstance(instance: CoreInstance): object {
  if (!coreFactory) throw new TypeError("core: the Core class is not loaded");
  return coreFactory(instance);
}
