/**
 * What other folders may use of `simd/kernels/` besides its public modules: the
 * private files' names other layers need, in one place, so that a `_` file stays
 * private to its folder (`deno task rules`, rule `private-import`).
 *
 * @internal
 * @module
 */

export { convertToDualQuaternions, DUAL_QUATERNION_FLOATS } from "./_dual_quaternions.ts";
export { hypotArgs, hypotOf } from "./_hypot.ts";
