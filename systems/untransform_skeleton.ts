/**
 * The untransform skeleton system: model-space matrices back to local ones,
 * `local[i] = inverse(model[parent[i]]) * model[i]`, written to the JointMat
 * palette for the mat→quat system. For games that edit poses in model space.
 *
 * @module
 */

import { runMatrixJobs } from "./_select.ts";
import { skeletonInternals } from "../animation/_asset_internals.ts";

/**
 * Runs model→local for every entity with Skeleton and JointMat, or for
 * those of `entities` (others are skipped).
 */
export function untransformSkeletonSystem(world: object, entities?: ArrayLike<number>): void {
  runMatrixJobs(
    world,
    "untransformSkeletonSystem",
    entities,
    "modelToLocalBatch",
    (model, palette, skeleton) => [model, palette, skeletonInternals(skeleton).parentsByteOffset],
  );
}
