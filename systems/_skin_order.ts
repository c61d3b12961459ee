/**
 * The order in which the skinning systems skin their entities. A query's
 * selection, when it is made (a component added or removed), not every
 * frame: those of one skin next to each other. A game adds its
 * characters in whatever order it spawns them; skinned in that order, each
 * job reads another mesh's bind streams (positions, normals, joints and
 * weights: about 950 KB for an Xbot), which the previous jobs' outputs have
 * pushed out of the cache. Grouped, the jobs of one skin read them from the
 * cache after the first. Then, in a frame whose entities differ in level
 * of detail or method, by batch call (`sortByKey`), keeping that order
 * within each call.
 *
 * @module
 */

import type { SkinAsset } from "../animation/skin_asset.ts";
import { MAX_INFLUENCES } from "../simd/memory/internal.ts";
import { rewritten } from "./_lod.ts";

/** Group of each skin seen in the pass, cleared after it (it holds no skin between calls). */
const groupOfSkin = new Map<SkinAsset | undefined, number>();
/** Entities per group, then where each group starts. */
const groupStarts: number[] = [];
/** The entities as they were, while a sort writes them over. */
const entitiesBefore: number[] = [];

/**
 * Reorders `entities` in place so that those of one skin are next to each
 * other: skins in the order of their first entity, the entities of a skin
 * in their order (a counting sort: stable, linear).
 */
export function groupBySkin(
  entities: number[],
  skins: readonly (SkinAsset | undefined)[],
): void {
  let groups = 0;
  for (let i = 0; i < entities.length; i++) {
    const skin = skins[entities[i]];
    let group = groupOfSkin.get(skin);
    if (group === undefined) {
      groupOfSkin.set(skin, group = groups++);
      groupStarts[group] = 0;
    }
    groupStarts[group]++;
  }
  if (groups > 1) {
    for (let g = 0, start = 0; g < groups; g++) {
      const count = groupStarts[g];
      groupStarts[g] = start;
      start += count;
    }
    for (let i = 0; i < entities.length; i++) entitiesBefore[i] = entities[i];
    for (let i = 0; i < entities.length; i++) {
      const eid = entitiesBefore[i];
      entities[groupStarts[groupOfSkin.get(skins[eid])!]++] = eid;
    }
  }
  groupOfSkin.clear();
}

/** Entities per key, then where each key starts: the counting sort's scratch. */
const keyCounts = new Uint32Array(MAX_INFLUENCES * 2 + 3);

/** Sorts `skinned` in place by batch call key, stably (a counting sort: no comparator, no garbage). */
export function sortByKey(
  skinned: number[],
  cap: number,
  lods: Uint8Array,
  skins: readonly (SkinAsset | undefined)[],
): void {
  keyCounts.fill(0);
  rewritten(skinned);
  for (let i = 0; i < skinned.length; i++) keyCounts[skinKey(cap, lods, skins, skinned[i]) + 1]++;
  for (let k = 1; k < keyCounts.length; k++) keyCounts[k] += keyCounts[k - 1];
  for (let i = 0; i < skinned.length; i++) entitiesBefore[i] = skinned[i];
  for (let i = 0; i < skinned.length; i++) {
    const eid = entitiesBefore[i];
    skinned[keyCounts[skinKey(cap, lods, skins, eid)]++] = eid;
  }
}

/** An entity's batch call: level of detail × 2, + 1 for dual quaternions. */
export function skinKey(
  cap: number,
  lods: Uint8Array,
  skins: readonly (SkinAsset | undefined)[],
  eid: number,
): number {
  return Math.min(cap, lods[eid] || MAX_INFLUENCES) * 2 +
    (skins[eid]!.method === "dual-quaternion" ? 1 : 0);
}
