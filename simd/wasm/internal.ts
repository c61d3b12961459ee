/**
 * What other folders may use of `simd/wasm/` besides its public modules: the
 * private files' names other layers need, in one place, so that a `_` file stays
 * private to its folder (`deno task rules`, rule `private-import`).
 *
 * @internal
 * @module
 */

export {
  bestBuild,
  type CoreBuild,
  type CoreInstance,
  coreLimits,
  type CoreOptions,
  instantiate,
  isBuildSupported,
  provideScalarBuild,
} from "./_core.ts";
export { SHARED_RELAXED_SIMD_WASM, SHARED_SIMD_WASM } from "./_wasm.generated.ts";
export { wasmBytes } from "./_embedded.ts";
