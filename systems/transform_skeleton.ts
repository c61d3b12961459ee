/**
 * The transform skeleton system: local matrices (left in the palette by
 * quat→mat) to model space, `model[i] = model[parent[i]] * local[i]`, for
 * every entity with Skeleton, JointQuat and JointMat, in one call into the
 * core.
 *
 * An entity with a JointMat but no JointQuat (`addSkeleton` + `addJointMat`,
 * or a `removeJointQuat`) has model matrices that are the game's own: this
 * system leaves them as they are (they are not local matrices, and
 * transforming them again would compound them every frame); the
 * multiply-inverse-bind and skinning systems use them as they are. So are
 * entities the quat→mat system quarantined for a bad pose.
 *
 * @module
 */

import { type MatrixRow, runMatrixJobs, SKIP_UNPOSED } from "./_select.ts";
import { NOT_ANIMATED } from "./_lod.ts";
import { HIERARCHY_IN, HIERARCHY_OUT, HIERARCHY_PARENTS } from "../simd/abi.ts";
import { skeletonInternals } from "../animation/internal.ts";

/** Row of `localToModelBatch`: local matrices (the palette block), model matrices, parents. */
const localToModelRow: MatrixRow = (u32, at, model, palette, skeleton) => {
  u32[at + HIERARCHY_IN] = palette, u32[at + HIERARCHY_OUT] = model;
  u32[at + HIERARCHY_PARENTS] = skeletonInternals(skeleton).parentsByteOffset;
};

/**
 * Runs local→model for every entity with Skeleton, JointQuat and
 * JointMat, or for those of `entities` (others are skipped, and so are
 * entities without a JointQuat: their model matrices are the game's).
 */
export function transformSkeletonSystem(world: object, entities?: ArrayLike<number>): void {
  runMatrixJobs(
    world,
    "transformSkeletonSystem",
    entities,
    "localToModelBatch",
    localToModelRow,
    SKIP_UNPOSED,
    NOT_ANIMATED,
  );
}
