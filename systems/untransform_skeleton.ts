/**
 * The untransform skeleton system: model-space matrices back to local ones,
 * `local[i] = inverse(model[parent[i]]) * model[i]`, written to the JointMat
 * palette for the mat→quat system. For games that edit poses in model space.
 *
 * @module
 */

import { type MatrixRow, runMatrixJobs } from "./_select.ts";
import { HIERARCHY_IN, HIERARCHY_OUT, HIERARCHY_PARENTS } from "../simd/abi.ts";
import { skeletonInternals } from "../animation/internal.ts";

/** Row of `modelToLocalBatch`: model matrices, local matrices (the palette block), parents. */
const modelToLocalRow: MatrixRow = (u32, at, model, palette, skeleton) => {
  u32[at + HIERARCHY_IN] = model, u32[at + HIERARCHY_OUT] = palette;
  u32[at + HIERARCHY_PARENTS] = skeletonInternals(skeleton).parentsByteOffset;
};

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
    modelToLocalRow,
  );
}
