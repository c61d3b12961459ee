/**
 * What other folders may use of `simd/scalar/` besides its public modules: the
 * private files' names other layers need, in one place, so that a `_` file stays
 * private to its folder (`deno task rules`, rule `private-import`).
 *
 * @internal
 * @module
 */

export { scalarKernels } from "./_core_kernels.ts";
export { IK_REACH_TOLERANCE, IKField } from "./_ik_solve.ts";
