/**
 * The systems' checks as one pass of compares: whether an entity's checks
 * (`checkedSkeleton`, `checkedPose`, `checkedMatrices`, `checkedPlayer`,
 * `checkedSkin`) can fail this call, found with loads and compares and no
 * call, so that a system calls the checks (which name the field) only for
 * an entity the pass does not vouch for; and the pipeline's vouch for a
 * whole frame.
 *
 * @module
 */

import type { WorldState } from "../components/internal.ts";
import { MATRIX_FLOATS } from "../simd/memory/layout.ts";

/** What {@linkcode firstUnchecked} compares besides the Skeleton's store: the JointQuat's. */
export const CHECK_POSE = 1;
/** What {@linkcode firstUnchecked} compares besides the Skeleton's store: the JointMat's. */
export const CHECK_MATRICES = 2;
/** What {@linkcode firstUnchecked} compares besides the Skeleton's store: a ClipPlayer's record. */
export const CHECK_PLAYER = 4;
/** What {@linkcode firstUnchecked} requires besides the Skeleton's store: no quarantine. */
export const CHECK_UNQUARANTINED = 8;
/** What {@linkcode firstUnchecked} compares besides the Skeleton's store: the Skin's. */
export const CHECK_SKIN = 16;

/**
 * The index of the first entity of `list` from index `from` on whose
 * checks (`checkedSkeleton`, and `checkedPose`, `checkedMatrices`,
 * `checkedPlayer` as `fields` says) may fail this call, or that is
 * quarantined (with `CHECK_UNQUARANTINED`); `list.length` for none. The
 * others' records hold the components and their store fields are those
 * Marrow set. Loads and compares, no call: a system runs it instead of its
 * per-entity checks, and the checks themselves (which name the field)
 * only for the entity it stops at.
 */
export function firstUnchecked(
  state: WorldState,
  list: ArrayLike<number>,
  fields: number,
  from: number,
): number {
  // The pipeline's frame vouched for every entity it runs on: none to check.
  if (vouchedFor === state) return list.length;
  const owned = state.owned, stores = state.components;
  const skeletons = owned.skeleton, quarantine = owned.quarantine, players = owned.player;
  const assets = stores.Skeleton.asset, jointCounts = stores.Skeleton.jointCount;
  const poses = owned.pose, poseOffsets = stores.JointQuat.byteOffset;
  const matrices = owned.matrices;
  const models = stores.JointMat.modelByteOffset, palettes = stores.JointMat.paletteByteOffset;
  const pose = (fields & CHECK_POSE) !== 0, matrix = (fields & CHECK_MATRICES) !== 0;
  const player = (fields & CHECK_PLAYER) !== 0,
    unquarantined = (fields & CHECK_UNQUARANTINED) !== 0;
  const skin = (fields & CHECK_SKIN) !== 0;
  // The Skin's arrays in locals, as the others: `skinIntact`'s loads through
  // the store and the record measured a third of the frame's vouch.
  const skins = owned.skin, skinStore = stores.Skin, skinAssets = skinStore.asset;
  const vertexCounts = skinStore.vertexCount, positions = skinStore.positionsByteOffset;
  const normals = skinStore.normalsByteOffset, tangents = skinStore.tangentsByteOffset;
  const blocks = owned.skinBlock, ownNormals = owned.skinNormals;
  const ownTangents = owned.skinTangents;
  // The last asset's vertex count (a getter), for the next entity of the same asset.
  let lastAsset: typeof skins[number] = undefined, lastVertexCount = 0;
  for (let i = from; i < list.length; i++) {
    const eid = list[i], skeleton = skeletons[eid];
    if (skeleton === undefined || assets[eid] !== skeleton) return i;
    if (unquarantined && quarantine[eid] !== 0) return i;
    const n = skeleton.jointCount;
    if (jointCounts[eid] !== n) return i;
    if (pose && (poses[eid] === 0 || poseOffsets[eid] !== poses[eid])) return i;
    if (player && players[eid] === undefined) return i;
    if (skin) {
      // `checkedSkin` cannot fail: the Skin's store fields are its record's.
      const asset = skins[eid];
      if (asset === undefined || skinAssets[eid] !== asset) return i;
      if (asset !== lastAsset) lastAsset = asset, lastVertexCount = asset.vertexCount;
      if (
        vertexCounts[eid] !== lastVertexCount || positions[eid] !== blocks[eid] ||
        normals[eid] !== ownNormals[eid] || tangents[eid] !== ownTangents[eid]
      ) return i;
    }
    if (!matrix) continue;
    const model = matrices[eid];
    if (model === 0 || models[eid] !== model) return i;
    if (palettes[eid] !== model + n * MATRIX_FLOATS * 4) return i;
  }
  return list.length;
}

/** Every check {@linkcode firstUnchecked} can make, and no quarantine. */
const WHOLE_CHARACTER = CHECK_POSE | CHECK_MATRICES | CHECK_PLAYER | CHECK_SKIN |
  CHECK_UNQUARANTINED;

/**
 * The world whose pipeline frame is running and found, before its first
 * system, every entity it runs on a whole character (Skeleton, JointQuat,
 * JointMat, Skin and ClipPlayer) whose store fields are those Marrow set,
 * none quarantined: until the frame ends or a system quarantines one, no
 * check can fail, and {@linkcode firstUnchecked} makes none. Nothing but
 * the frame's own systems runs meanwhile (the fault callback waits for the
 * frame's end).
 */
let vouchedFor: WorldState | undefined;

/**
 * Starts a blocking pipeline frame on `list` (the entities it runs on):
 * one pass of compares for all its systems, when it vouches for them all.
 * {@linkcode endVouch} must follow, whatever happens.
 */
export function vouchFrame(state: WorldState, list: ArrayLike<number>): void {
  vouchedFor = undefined;
  if (firstUnchecked(state, list, WHOLE_CHARACTER, 0) === list.length) vouchedFor = state;
}

/** Ends a frame's vouch, or withdraws it: a system quarantined an entity. */
export function endVouch(): void {
  vouchedFor = undefined;
}

/**
 * Whether no check of `fields` can fail for any entity of `list` and none
 * is quarantined: a system whose rows are kept (`JobTable.holds`) may run
 * them as they are; on false it writes them again through its checks.
 */
export function storesIntact(state: WorldState, list: ArrayLike<number>, fields: number): boolean {
  return firstUnchecked(state, list, fields | CHECK_UNQUARANTINED, 0) === list.length;
}
