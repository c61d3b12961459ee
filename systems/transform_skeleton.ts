/**
 * The transform skeleton system: local matrices (left in the palette by
 * quat→mat) to model space, `model[i] = model[parent[i]] * local[i]`, for
 * every entity with Skeleton and JointMat, in one call into the core.
 *
 * @module
 */

import { type MatrixRow, runMatrixJobs } from "./_select.ts";

/** Row of `localToModelBatch`: local matrices (the palette block), model matrices, parents. */
const localToModelRow: MatrixRow = (u32, at, model, palette, skeleton) => {
  u32[at] = palette, u32[at + 1] = model, u32[at + 2] = skeleton.parentsByteOffset;
};

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
    localToModelRow,
  );
}
