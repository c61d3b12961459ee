/**
 * The multiply-inverse-bind system: `palette[i] = model[i] * inverseBind[i]`
 * for every entity with Skeleton and JointMat, in one call into the core.
 * The palette is what GPU skinning and the skinning systems use; it is
 * checked before it is published: an entry that is not finite or beyond
 * ±1e18 (a pose that overflows, like a scale of 1e38) is a `PoseError`
 * naming entity and joint.
 *
 * @module
 */

import { runMatrixJobs, throwBeyondPalette } from "./_select.ts";
import { skeletonInternals } from "../animation/_asset_internals.ts";

/**
 * Computes the skinning palette of every entity with Skeleton and JointMat,
 * or of those of `entities` (others are skipped).
 */
export function multiplyInverseBindSystem(world: object, entities?: ArrayLike<number>): void {
  // The palette is checked as it is written (firstBeyondBatch fused into the multiply).
  const { state, list, found } = runMatrixJobs(
    world,
    "multiplyInverseBindSystem",
    entities,
    "multiplyMatricesCheckedBatch",
    (
      model,
      palette,
      skeleton,
    ) => [model, skeletonInternals(skeleton).inverseBindByteOffset, palette],
  );
  throwBeyondPalette(state, list, found);
}
