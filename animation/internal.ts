/**
 * What other folders may use of `animation/` besides its public modules: the
 * private files' names other layers need, in one place, so that a `_` file stays
 * private to its folder (`deno task rules`, rule `private-import`).
 *
 * @internal
 * @module
 */

export { guardBuilds, settleBuilds, skeletonInternals, skinInternals } from "./_asset_internals.ts";
export { sampleCompactPose } from "./_compact_pose.ts";
export { animatedProperties } from "./_keyless_clip.ts";
export { lifetimeOf } from "./_lifetime.ts";
export { applyMorphToStreams, morphedJointBoxes, type MorphedStreams } from "./_morph_apply.ts";
export { addRootMotion, removeRootMotion, restRoot } from "./_root_motion.ts";
export { describeValue } from "../simd/memory/internal.ts";
