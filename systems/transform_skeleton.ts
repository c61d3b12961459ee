/**
 * The transform skeleton system: local matrices (left in the palette by
 * quat→mat) to model space, `model[i] = model[parent[i]] * local[i]`, for
 * every entity with Skeleton and JointMat, in one call into the core.
 *
 * @module
 */

import { runMatrixJobs } from "./_select.ts";
import { skeletonInternals } from "../animation/_asset_internals.ts";

/**
 * Runs local→model for every entity with Skeleton and JointMat, or for
 * those of `entities` (others are skipped).
 */
export function transformSkeletonSystem(world: object, entities?: ArrayLike<number>): void {
  runMatrixJobs(
    world,
    "transformSkeletonSystem",
    entities,
    "localToModelBatch",
    (model, palette, skeleton) => [palette, model, skeletonInternals(skeleton).parentsByteOffset],
  );
}
