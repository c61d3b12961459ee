/**
 * Checked access to what an entity owns, for the systems and the view
 * functions: each reads the public store field and checks it against
 * Marrow's ownership record before the core may use it (a compare per
 * field; the scene bench's "ownership checks" row measures it). A field
 * that game code changed is a `ComponentError` naming entity, component and
 * field, raised before anything is written.
 *
 * @module
 */

import { commitRemovals, registerQuery } from "bitecs";
import type { SkeletonAsset } from "../animation/skeleton_asset.ts";
import type { SkinAsset } from "../animation/skin_asset.ts";
import { ComponentError } from "./errors.ts";
import type { ComponentName, Owned, PlayerState, WorldState } from "./_world.ts";

/** A store value as a message shows it: assets by kind and size, not `[object Object]`. */
function shown(value: unknown): string {
  if (value === null || typeof value !== "object") return String(value);
  const size = value as { jointCount?: number; vertexCount?: number };
  if (typeof size.vertexCount === "number") return `another skin (${size.vertexCount} vertices)`;
  if (typeof size.jointCount === "number") return `another skeleton (${size.jointCount} joints)`;
  return `an object that is not Marrow's (${value.constructor?.name ?? "no constructor"})`;
}

function tampered(
  eid: number,
  component: ComponentName,
  field: string,
  value: unknown,
  expected: unknown,
): ComponentError {
  return new ComponentError(
    eid,
    component,
    `${field} is ${
      shown(value)
    }, but Marrow set it to ${expected}: the fields the core uses are read-only (remove and add the component to change them)`,
    field,
  );
}

function missing(eid: number, component: ComponentName): ComponentError {
  return new ComponentError(eid, component, `the entity has no ${component}`);
}

/** The entity's skeleton, its store fields checked. */
export function checkedSkeleton(state: WorldState, eid: number): SkeletonAsset {
  const skeleton = state.owned.skeleton[eid];
  if (!skeleton) throw missing(eid, "Skeleton");
  const c = state.components.Skeleton;
  if (c.asset[eid] !== skeleton) {
    throw tampered(eid, "Skeleton", "asset", c.asset[eid], "its skeleton");
  }
  if (c.jointCount[eid] !== skeleton.jointCount) {
    throw tampered(eid, "Skeleton", "jointCount", c.jointCount[eid], skeleton.jointCount);
  }
  return skeleton;
}

/** Byte offset of the entity's pose, checked. */
export function checkedPose(state: WorldState, eid: number): number {
  const ptr = state.owned.pose[eid];
  if (!ptr) throw missing(eid, "JointQuat");
  const stored = state.components.JointQuat.byteOffset[eid];
  if (stored !== ptr) throw tampered(eid, "JointQuat", "byteOffset", stored, ptr);
  return ptr;
}

/** Byte offset of the entity's model matrices (the palette follows), checked. */
export function checkedMatrices(state: WorldState, eid: number, jointCount: number): number {
  const ptr = state.owned.matrices[eid];
  if (!ptr) throw missing(eid, "JointMat");
  const c = state.components.JointMat;
  if (c.modelByteOffset[eid] !== ptr) {
    throw tampered(eid, "JointMat", "modelByteOffset", c.modelByteOffset[eid], ptr);
  }
  const palette = ptr + jointCount * 48;
  if (c.paletteByteOffset[eid] !== palette) {
    throw tampered(eid, "JointMat", "paletteByteOffset", c.paletteByteOffset[eid], palette);
  }
  return ptr;
}

/** An entity's skin and its output streams (0 for a stream not skinned). */
export interface SkinRecord {
  readonly asset: SkinAsset;
  readonly positions: number;
  readonly normals: number;
  readonly tangents: number;
}

/** The entity's skin, its store fields checked against what Marrow set. */
function checkSkinFields(state: WorldState, eid: number): SkinAsset {
  const asset = state.owned.skin[eid];
  if (!asset) throw missing(eid, "Skin");
  const c = state.components.Skin;
  if (c.asset[eid] !== asset) throw tampered(eid, "Skin", "asset", c.asset[eid], "its skin");
  if (c.vertexCount[eid] !== asset.vertexCount) {
    throw tampered(eid, "Skin", "vertexCount", c.vertexCount[eid], asset.vertexCount);
  }
  const o = state.owned;
  const positions = c.positionsByteOffset[eid];
  const normals = c.normalsByteOffset[eid], tangents = c.tangentsByteOffset[eid];
  if (positions !== o.skinBlock[eid]) {
    throw tampered(eid, "Skin", "positionsByteOffset", positions, o.skinBlock[eid]);
  }
  if (normals !== o.skinNormals[eid]) {
    throw tampered(eid, "Skin", "normalsByteOffset", normals, o.skinNormals[eid]);
  }
  if (tangents !== o.skinTangents[eid]) {
    throw tampered(eid, "Skin", "tangentsByteOffset", tangents, o.skinTangents[eid]);
  }
  return asset;
}

/** The entity's skin and output offsets, checked. */
export function checkedSkin(state: WorldState, eid: number): SkinRecord {
  const asset = checkSkinFields(state, eid), o = state.owned;
  return {
    asset,
    positions: o.skinBlock[eid],
    normals: o.skinNormals[eid],
    tangents: o.skinTangents[eid],
  };
}

/** The entity's clip players. */
export function checkedPlayer(state: WorldState, eid: number): PlayerState {
  const player = state.owned.player[eid];
  if (!player) throw missing(eid, "ClipPlayer");
  return player;
}

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
  if (entities === null || typeof entities !== "object" || typeof entities.length !== "number") {
    throw new TypeError(`${caller}: entities: expected an array of entity ids`);
  }
  const stamp = state.nextStamp(), marks = state.owned.stamp, owned = state.owned;
  const selected = selectionArray(state, key);
  let count = 0;
  for (let i = 0; i < entities.length; i++) {
    const eid = entities[i];
    if (!Number.isInteger(eid) || eid < 0 || eid >= 2 ** 32) {
      throw new RangeError(`${caller}: entities[${i}]: expected an entity id, got ${eid}`);
    }
    if (eid >= state.resources.capacity) continue;
    if (marks[eid] === stamp) {
      throw new RangeError(`${caller}: entities[${i}]: entity ${eid} is listed twice`);
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
 * use, so that a frame of several systems fails before the first one
 * writes anything.
 */
export function checkEntities(state: WorldState, list: ArrayLike<number>): void {
  const owned = state.owned;
  for (let i = 0; i < list.length; i++) {
    const eid = list[i];
    if (!owned.skeleton[eid]) continue;
    const n = checkedSkeleton(state, eid).jointCount;
    if (owned.pose[eid]) checkedPose(state, eid);
    if (owned.matrices[eid]) checkedMatrices(state, eid, n);
    if (owned.skin[eid]) checkedSkin(state, eid);
  }
}
