/**
 * Level of detail in the frame: once per frame, what each entity with a
 * LevelOfDetail skips (`components/level_of_detail.ts` says what the
 * settings mean); each system then leaves those entities out of its list.
 * A world with no entity skipping anything pays one flag test per system.
 *
 * @module
 */

import { LOD_ENTITIES, selectEntities } from "../components/internal.ts";
import type { WorldState } from "../components/internal.ts";
import { LodState } from "../components/level_of_detail.ts";

/** What a system leaves out: entities not animated this frame. */
export const NOT_ANIMATED = 1;
/**
 * What a system leaves out: entities not skinned this frame (culled, or
 * not animated since they were last skinned).
 */
export const NOT_SKINNED = 2;
/** Culled this frame: the task-parallel frame skins nothing of it, not even last frame's pose. */
export const CULLED = 4;

/** A world's level-of-detail frame: whether any entity skips anything, its lists. */
interface LodFrame {
  active: boolean;
  /** Per rate, how many entities were given a phase: the next one's phase. */
  readonly phases: Uint32Array;
  readonly lists: Map<string, KeptLists>;
}
/**
 * A key's lists of the entities left in: those of the last frames, kept
 * unchanged so that their job rows are kept too (`JobTable.holds`), and the
 * list the next frame is written into before it is looked up among them.
 */
interface KeptLists {
  readonly kept: EntityList[];
  next: EntityList;
  /** The kept list the next new one replaces: they are replaced in turn. */
  oldest: number;
}
/**
 * Lists kept per key: as many as a job table keeps rows for, so that a
 * crowd staggered over update rates 1, 2 and 4 finds every frame's list.
 */
const KEPT_LISTS = 4;
const frames = new WeakMap<WorldState, LodFrame>();

/**
 * Begins a frame of `world` on `entities` (all when undefined; a bad list
 * is `caller`'s `RangeError`, before anything is written): for each
 * of them with a LevelOfDetail, what the systems skip of it (`lodSkip`).
 * An entity at rate N is animated on every Nth frame that includes it: its
 * phase counts down the frames to its next update, and a new rate's first
 * countdowns are handed out in turn, so that each frame animates 1/N of
 * them. A frame on a subset counts for its entities only: a game that
 * alternates halves of its crowd would otherwise never animate the
 * entities whose turn fell on the other half's frames. An entity animated
 * but not skinned (culled) is skinned on its next visible frame.
 */
export function beginLodFrame(
  world: object,
  state: WorldState,
  caller: string,
  entities?: ArrayLike<number>,
): void {
  let lod = frames.get(state);
  if (!lod) {
    frames.set(state, lod = { active: false, phases: new Uint32Array(256), lists: new Map() });
  }
  const list = selectEntities(world, state, caller, LOD_ENTITIES, entities);
  const o = state.owned, store = state.components.LevelOfDetail;
  const rates = store.updateRate, culled = store.culled, paused = store.pausedWhenCulled;
  const states = o.lodState, skips = o.lodSkip, phase = o.lodPhase, phaseRate = o.lodPhaseRate;
  let any = 0;
  for (let i = 0; i < list.length; i++) {
    const eid = list[i], rate = rates[eid];
    let now = states[eid], skip = 0;
    if (now & LodState.Fresh) now &= ~LodState.Fresh;
    else if (rate > 1) {
      if (phaseRate[eid] !== rate) phase[eid] = lod.phases[rate]++ % rate, phaseRate[eid] = rate;
      if (phase[eid] === 0) phase[eid] = rate - 1;
      else phase[eid]--, skip = NOT_ANIMATED;
    }
    if (culled[eid] !== 0) {
      skip |= NOT_SKINNED | CULLED;
      if (paused[eid] !== 0) skip |= NOT_ANIMATED;
    } else if (skip !== 0 && (now & LodState.Stale) === 0) {
      // Its palette has not moved since it was last skinned.
      skip |= NOT_SKINNED;
    }
    if ((skip & (NOT_ANIMATED | NOT_SKINNED)) === NOT_SKINNED) now |= LodState.Stale;
    else if ((skip & NOT_SKINNED) === 0) now &= ~LodState.Stale;
    states[eid] = now, skips[eid] = skip;
    any |= skip;
  }
  lod.active = any !== 0;
}

/**
 * `list` without the entities whose `lodSkip` has a bit of `mask` this
 * frame: `list` itself when none has (a query's list: its rows may be
 * kept), else one of the lists kept for `key`. A list comes back, the same
 * object, unchanged, on every frame that leaves the same entities in, while
 * it is one of the last `KEPT_LISTS` different ones: rows kept for it hold
 * (its version changes when it is written over), so a staggered crowd's
 * rows are written once per list, not every frame.
 */
export function withoutSkipped<L extends ArrayLike<number>>(
  state: WorldState,
  list: L,
  mask: number,
  key: string,
): L | EntityList {
  const lod = frames.get(state);
  if (lod === undefined || !lod.active) return list;
  const skips = state.owned.lodSkip;
  let first = 0;
  while (first < list.length && (skips[list[first]] & mask) === 0) first++;
  if (first === list.length) return list;
  let lists = lod.lists.get(key);
  if (lists === undefined) {
    lod.lists.set(key, lists = { kept: [], next: entityList(), oldest: 0 });
  }
  const kept = lists.kept;
  for (let k = 0; k < kept.length; k++) {
    if (leftIn(kept[k], list, first, skips, mask)) return kept[k];
  }
  const out = lists.next;
  out.version++;
  let count = 0;
  for (let i = 0; i < first; i++) out[count++] = list[i];
  for (let i = first + 1; i < list.length; i++) {
    if ((skips[list[i]] & mask) === 0) out[count++] = list[i];
  }
  out.length = count;
  // A new list: kept in place of the oldest, which is written over next (a new version).
  if (kept.length < KEPT_LISTS) kept.push(out), lists.next = entityList();
  else lists.next = kept[lists.oldest], kept[lists.oldest] = out;
  lists.oldest = (lists.oldest + 1) % KEPT_LISTS;
  return out;
}

/**
 * Whether `kept` is `list` without the entities skipped (`first` the
 * first of them), in one pass that writes nothing.
 */
function leftIn(
  kept: EntityList,
  list: ArrayLike<number>,
  first: number,
  skips: Uint8Array,
  mask: number,
): boolean {
  if (kept.length > list.length - 1) return false;
  for (let i = 0; i < first; i++) if (kept[i] !== list[i]) return false;
  let at = first;
  for (let i = first + 1; i < list.length; i++) {
    const eid = list[i];
    if ((skips[eid] & mask) !== 0) continue;
    if (at === kept.length || kept[at++] !== eid) return false;
  }
  return at === kept.length;
}

/**
 * A list of entities whose length may fall and rise from frame to frame
 * (those a level of detail leaves in), used as an array is, with a
 * `version` that changes when it is written over. An array's store is cut
 * when its length falls below half of it, and grown again, new, when it
 * rises: garbage every frame of a staggered crowd; an object's `length` is
 * a plain field.
 */
export type EntityList = number[] & { version: number };

/**
 * Marks `list` as written over in place (its entities reordered, say): rows
 * kept for it stop holding. A query's own list has no version, and is never
 * written over.
 */
export function rewritten(list: ArrayLike<number>): void {
  const versioned = list as Partial<EntityList>;
  if (versioned.version !== undefined) versioned.version++;
}

/** A new, empty {@linkcode EntityList}. */
export function entityList(): EntityList {
  return { length: 0, version: 0 } as unknown as EntityList;
}
