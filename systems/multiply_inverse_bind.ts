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

import { checkPalettes, runMatrixJobs } from "./_select.ts";

/**
 * Computes the skinning palette of every entity with Skeleton and JointMat,
 * or of those of `entities` (others are skipped).
 */
export function multiplyInverseBindSystem(world: object, entities?: ArrayLike<number>): void {
  const { state, list } = runMatrixJobs(
    world,
    "multiplyInverseBindSystem",
    entities,
    "multiplyMatricesBatch",
    (model, palette, skeleton) => [model, skeleton.inverseBindByteOffset, palette],
  );
  if (list.length) checkPalettes(state, list);
}
