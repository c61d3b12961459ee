/**
 * What other folders may use of `simd/memory/` besides its public modules: the
 * private files' names other layers need, in one place, so that a `_` file stays
 * private to its folder (`deno task rules`, rule `private-import`).
 *
 * @internal
 * @module
 */

export {
  checkFinite,
  checkInfluences,
  describeValue,
  MAX_INFLUENCES,
  MAX_MESH_MAGNITUDE,
  readOnce,
  readParents,
  typedArrayKind,
} from "./_checks.ts";
export { coreFromInstance, coreKernels, coreMemory } from "./_instance.ts";
export { CoreMemory, DEFAULT_MAX_BYTES, type MemoryLimits } from "./_memory.ts";
export { findNonFinitePose, writeJointPose } from "./_pose.ts";
export { MemoryViews } from "./_views.ts";
export { checkVertexList, MorphTargetBuffer } from "./_morph_targets.ts";
