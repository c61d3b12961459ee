/**
 * The scalar build of the core: the TypeScript twins of every kernel, over
 * the same memory layout as the WebAssembly builds. Importing this module,
 * once, anywhere, before the first core, makes it available: then
 * `Core.create("scalar")` works, and a runtime without WebAssembly SIMD
 * falls back to it (without it, that runtime's first core is a `TypeError`
 * saying to import it). A game's bundle carries the scalar kernels only
 * where it imports this entry (about 8 KB gzipped). The same functions, one
 * by one, are in `@marrow/anim/reference`.
 *
 * @example
 * ```ts
 * import "@marrow/anim/scalar";
 * import { Core } from "@marrow/anim/kernels";
 *
 * const core = Core.create("scalar");
 * console.log(core.build); // "scalar"
 * ```
 *
 * @module
 */

import { provideScalarBuild } from "./simd/wasm/internal.ts";
import { scalarKernels } from "./simd/scalar/internal.ts";

provideScalarBuild(scalarKernels);
