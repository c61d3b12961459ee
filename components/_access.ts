/**
 * The entities a system runs on (a registered bitecs query, or a list the
 * game passes, checked), and the frame's up-front checks of every store
 * field the core would use: each component's `check` compares its public
 * fields with Marrow's ownership record (a compare per field; the scene
 * bench's "ownership checks" row measures it). A field that game code
 * changed is a `ComponentError` naming entity, component and field, raised
 * before anything is written.
 *
 * @module
 */

import { commitRemovals, registerQuery } from "bitecs";
import type { ComponentName, Owned, WorldState } from "./registry.ts";
import { describeValue } from "../simd/memory/internal.ts";
import { listLength } from "./_entity_list.ts";

/**
 * What a system runs on: the components its entities have (a bitecs
 * query, registered once per world under `key`), and, for a list the game
 * passes, whether Marrow's records hold them for an entity. Made once per
 * system ({@linkcode selection}): a system's frame builds no terms, key or
 * closure.
 */
export interface Selection {
  readonly terms: readonly ComponentName[];
  /** The terms joined: the key of the world's registered query. */
  readonly key: string;
  readonly has: (owned: Owned, eid: number) => boolean;
}

/** The {@linkcode Selection} of entities with `terms` whose records pass `has`. */
export function selection(
  terms: readonly ComponentName[],
  has: (owned: Owned, eid: number) => boolean,
): Selection {
  return { terms, key: terms.join(), has };
}

/**
 * The entities a system runs on: all that have the selection's terms (a
 * bitecs query), or those of `entities` that have them (`has`), in the
 * order given. Entities of the list without the components are skipped, as
 * a query would; a value that is not an entity id, or one listed twice, is
 * a `RangeError` naming its index.
 */
export function selectEntities(
  world: object,
  state: WorldState,
  caller: string,
  { terms, key, has }: Selection,
  entities?: ArrayLike<number>,
): ArrayLike<number> {
  if (entities === undefined) {
    // bitecs' query() hashes its terms on every call; the registered query
    // is the same set, kept until a resetWorld (which stateOf notices).
    const cached = state.queries.get(key) ?? registerTerms(world, state, terms, key);
    commitRemovals(world);
    return cached.dense;
  }
  const length = listLength(caller, entities);
  const stamp = state.nextStamp(), marks = state.owned.stamp, owned = state.owned;
  const selected = selectionArray(state, key);
  let count = 0;
  for (let i = 0; i < length; i++) {
    const eid = entities[i];
    if (!Number.isInteger(eid) || eid < 0 || eid >= 2 ** 32) {
      throw new RangeError(
        `${caller}: entities[${i}]: expected an entity id, got ${describeValue(eid)}`,
      );
    }
    if (eid >= state.resources.capacity) continue;
    if (marks[eid] === stamp) {
      throw new RangeError(
        `${caller}: entities[${i}]: entity ${describeValue(eid)} is listed twice`,
      );
    }
    marks[eid] = stamp;
    if (has(owned, eid)) selected[count++] = eid;
  }
  // Set once at the end, not emptied first: an emptied array drops its storage.
  selected.length = count;
  return selected;
}

/** Each world state's last listed selection per query key, which the next one rewrites. */
const selections = new WeakMap<WorldState, Map<string, number[]>>();

/**
 * The array of `state`'s listed selections of `key`, to rewrite: a frame over a
 * listed set of entities allocates nothing. A selection is read before the
 * next one of the same key is made (each system consumes its own).
 */
function selectionArray(state: WorldState, key: string): number[] {
  let byKey = selections.get(state);
  if (byKey === undefined) selections.set(state, byKey = new Map());
  let selected = byKey.get(key);
  if (selected === undefined) byKey.set(key, selected = []);
  return selected;
}

/**
 * Registers the queries of `list` not yet registered in `world`: a query
 * registered before its entities are added costs the world's first frame
 * nothing (bitecs fills it as components are added).
 */
export function registerSelections(
  world: object,
  state: WorldState,
  list: readonly Selection[],
): void {
  for (const { terms, key } of list) {
    if (!state.queries.has(key)) registerTerms(world, state, terms, key);
  }
}

/**
 * Registers the query of `terms` under `key`. Its own function: a closure
 * in {@linkcode selectEntities} would make every call allocate a context.
 */
function registerTerms(
  world: object,
  state: WorldState,
  terms: readonly ComponentName[],
  key: string,
): { readonly dense: ArrayLike<number> } {
  const query = registerQuery(world, terms.map((name) => state.components[name]));
  state.queries.set(key, query);
  return query;
}

/**
 * Checks every store field of every entity of `list` that the core would
 * use (each component's `check`, in dependency order), so that a frame of
 * several systems fails before the first one writes anything.
 */
export function checkEntities(state: WorldState, list: ArrayLike<number>): void {
  const checked = state.checked;
  for (let i = 0; i < list.length; i++) {
    const eid = list[i];
    for (let c = 0; c < checked.length; c++) checked[c].check!(state, eid);
  }
}
