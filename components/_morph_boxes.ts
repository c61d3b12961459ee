/**
 * The joint boxes `getJointSkinBounds` uses for an entity with
 * MorphWeights: its skin's, widened by its weighted morph displacements.
 * Read from the record by field name, so that `skin.ts` need not import
 * the MorphWeights component (which needs the Skin).
 *
 * @module
 */

import { morphedJointBoxes, type MorphedStreams } from "../animation/internal.ts";

/** Entity `eid`'s joint boxes at its morph weights, or undefined when it has no MorphWeights. */
export function entityMorphBoxes(
  owned: object,
  eid: number,
  base: Float32Array,
): Float32Array | undefined {
  const morph = (owned as { morph?: readonly (MorphedStreams | undefined)[] }).morph?.[eid];
  return morph && morphedJointBoxes(morph, base);
}
