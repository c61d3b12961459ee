/**
 * The entities each standard system runs on, as selections: made once, and
 * their queries registered in a world when `createAnimation` sets it up, so
 * that a world's first frame registers none (seven of them were about
 * 0.1 ms of the first play's frame, `deno task bench:first-play`).
 *
 * @module
 */

import { registerSelections, type Selection, selection } from "./_access.ts";
import type { WorldState } from "./registry.ts";
import { LodState } from "./level_of_detail.ts";

/** Entities with a pose and joint matrices: the quat→mat and mat→quat systems'. */
export const POSED_ENTITIES: Selection = selection(
  ["Skeleton", "JointQuat", "JointMat"],
  (owned, eid) => owned.pose[eid] !== 0 && owned.matrices[eid] !== 0,
);
/** Entities with joint matrices (and so a Skeleton). */
export const MATRIX_ENTITIES: Selection = selection(
  ["Skeleton", "JointMat"],
  (owned, eid) => owned.matrices[eid] !== 0,
);
/** Entities with a Skin (and so joint matrices): the skinning systems'. */
export const SKINNED_ENTITIES: Selection = selection(
  ["Skeleton", "JointMat", "Skin"],
  (owned, eid) => owned.skin[eid] !== undefined,
);
/** Entities with clip players: the sample clips system's. */
export const PLAYING_ENTITIES: Selection = selection(
  ["Skeleton", "JointQuat", "ClipPlayer"],
  (owned, eid) => owned.player[eid] !== undefined,
);
/** Entities with IK chains: the IK system's. */
export const IK_ENTITIES: Selection = selection(
  ["Skeleton", "JointMat", "IK"],
  (owned, eid) => owned.ik[eid] !== undefined && owned.matrices[eid] !== 0,
);
/** Entities with a Skeleton: the pipeline's. */
export const SKELETON_ENTITIES: Selection = selection(
  ["Skeleton"],
  (owned, eid) => owned.skeleton[eid] !== undefined,
);

/**
 * Entities with MorphWeights: whether the sample clips system's morph stage
 * has any to look at (their record's array spans every entity id).
 */
const MORPHED_ENTITIES: Selection = selection(
  ["MorphWeights"],
  (owned, eid) => owned.morph[eid] !== undefined,
);

/** Entities with a LevelOfDetail: the frame's level-of-detail step's. */
export const LOD_ENTITIES: Selection = selection(
  ["Skeleton", "LevelOfDetail"],
  (owned, eid) => (owned.lodState[eid] & LodState.Owned) !== 0,
);

const STANDARD: readonly Selection[] = [
  SKELETON_ENTITIES,
  PLAYING_ENTITIES,
  POSED_ENTITIES,
  MATRIX_ENTITIES,
  IK_ENTITIES,
  SKINNED_ENTITIES,
  LOD_ENTITIES,
  MORPHED_ENTITIES,
];

/**
 * Whether `state`'s world may have an entity with MorphWeights: false only
 * when its registered query holds none (a removal not yet committed leaves
 * an entity in it, which errs on the safe side). The morph stages loop
 * over every entity they are given: a world without morphs skips them.
 */
export function anyMorphed(state: WorldState): boolean {
  const query = state.queries.get(MORPHED_ENTITIES.key);
  return query === undefined || query.dense.length > 0;
}

/** Registers the standard systems' queries in `world`, whose state `state` is. */
export function registerStandardSelections(world: object, state: WorldState): void {
  registerSelections(world, state, STANDARD);
}
