/**
 * The multiply-inverse-bind system: `palette[i] = model[i] * inverseBind[i]`
 * for every entity with Skeleton and JointMat, in one call into the core.
 * The palette is what GPU skinning and the skinning systems use; it is
 * checked before it is published: an entry that is not finite or beyond
 * ±1e18 (a pose that overflows, like a scale of 1e38) is a `PoseError`
 * naming entity and joint. In the world's default `"isolate"` fault mode
 * it goes to the world's faults (`getFaults`) and the entity's JointMat is
 * put back to its last good values (the multiply saves each good frame's
 * model matrices for that, as it reads them);
 * in the `"throw"` mode it is thrown. Entities quarantined by the quat→mat
 * system for a bad pose are skipped.
 *
 * @module
 */

import { type MatrixRow, runMatrixJobs, settlePalettes, SKIP_QUARANTINED } from "./_select.ts";
import { NOT_ANIMATED } from "./_lod.ts";
import { MULTIPLY_A, MULTIPLY_B, MULTIPLY_OUT } from "../simd/abi.ts";
import { skeletonInternals } from "../animation/internal.ts";

/** Row of `multiplyMatricesCheckedBatch`: model matrices × inverse bind matrices → palette. */
const multiplyInverseBindRow: MatrixRow = (u32, at, model, palette, skeleton) => {
  u32[at + MULTIPLY_A] = model;
  u32[at + MULTIPLY_B] = skeletonInternals(skeleton).inverseBindByteOffset;
  u32[at + MULTIPLY_OUT] = palette;
};

/**
 * Computes the skinning palette of every entity with Skeleton and JointMat,
 * or of those of `entities` (others are skipped).
 */
export function multiplyInverseBindSystem(world: object, entities?: ArrayLike<number>): void {
  // The palette is checked as it is written (firstBeyondBatch fused into the
  // multiply), and a good row's model matrices saved as they are read.
  const { state, list, found } = runMatrixJobs(
    world,
    "multiplyInverseBindSystem",
    entities,
    "multiplyMatricesCheckedBatch",
    multiplyInverseBindRow,
    SKIP_QUARANTINED,
    NOT_ANIMATED,
  );
  settlePalettes(state, list, found, "multiplyInverseBindSystem", SKIP_QUARANTINED);
}
