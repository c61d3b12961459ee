/**
 * The skinning systems, both through the collapsed palette
 * `C = sum w * palette[j]` per vertex (paper 002, section 4), in one call
 * into the core per level of detail. {@linkcode skinSystem} skins the
 * positions of the entities whose Skin has no normal or tangent stream;
 * {@linkcode skinWithTangentsSystem} skins positions, normals and tangents
 * of the others. Before skinning, each entity's palette is checked: an
 * entry that is not finite or beyond ±1e18 is a `PoseError`; in the
 * world's default `"isolate"` fault mode it is recorded (`getFaults`), the
 * entity's JointMat is put back to its last good values and the entity is
 * not skinned (its outputs keep their last values); in the `"throw"` mode
 * it is thrown and nothing is written.
 *
 * Paper 002's other method, weighted base vectors with the model matrices
 * (section 3, the `skinPositions` kernel), saves the inverse-bind multiply
 * but is slower here for positions at every influence count
 * (`docs/performance_notes.md`), so the systems do not use it.
 *
 * @module
 */

import {
  anyMorphed,
  Quarantine,
  selectEntities,
  SkinRowWriter,
  stateOf,
} from "../components/internal.ts";
import { morphedStreams, updateMorphs } from "../components/internal.ts";
import { JOB_WORDS, SKIN_PALETTE } from "../simd/abi.ts";
import { redirectToMorph } from "./_skin_morph.ts";
import { describeValue, MAX_INFLUENCES } from "../simd/memory/internal.ts";
import { SkinFlags } from "../simd/memory/layout.ts";
import { checkPalettes, SKINNED_ENTITIES } from "./_select.ts";
import { CHECK_MATRICES, CHECK_SKIN, CHECK_UNQUARANTINED, firstUnchecked } from "./_checks.ts";
import { DualPalettes } from "./_dual_palettes.ts";
import { groupBySkin, skinKey, sortByKey } from "./_skin_order.ts";
import { BOUNDS_FLOATS, SkinBatch } from "./_skin_batch.ts";
import { palettesInRange } from "./_skin_scan.ts";
import type { JobTable, WorldState } from "../components/internal.ts";
import { NOT_SKINNED, rewritten, withoutSkipped } from "./_lod.ts";

/** Options of the skinning systems. */
export interface SkinSystemOptions {
  /**
   * Level of detail for every entity: at most this many influences per
   * vertex. Per entity, `Skin.maxInfluences[eid]` (when not 0) caps it
   * further.
   */
  readonly maxInfluences?: number;
  /** Renormalize skinned normals and tangents (skinWithTangentsSystem). */
  readonly renormalize?: boolean;
  /** Skin only these entities (a game's own query); others are skipped. */
  readonly entities?: ArrayLike<number>;
  /**
   * Compute each entity's skinned bounds (`getSkinnedBounds`) while
   * skinning. Default true; false saves the min/max over the skinned
   * positions (fused with the skinning loop) and leaves the bounds
   * undefined.
   */
  readonly bounds?: boolean;
}

/** Skins the positions of every entity whose Skin has positions only. */
export function skinSystem(world: object, options: SkinSystemOptions = {}): void {
  skinEntities(world, "skinSystem", options, false);
}

/** Skins positions, normals and tangents of every entity whose Skin has them. */
export function skinWithTangentsSystem(world: object, options: SkinSystemOptions = {}): void {
  skinEntities(world, "skinWithTangentsSystem", options, true);
}

/**
 * @internal A skinning system's whole frame. `palettesChecked`: the caller
 * (the pipeline, right after the multiply-inverse-bind system checked the
 * same entities' palettes, with no code between) skips the second scan.
 */
export function skinEntities(
  world: object,
  caller: string,
  options: SkinSystemOptions,
  directions: boolean,
  palettesChecked = false,
): void {
  const skinning = prepareSkinning(world, caller, options, directions, caller, palettesChecked);
  if (!skinning) return;
  const state = stateOf(world, caller);
  for (let i = 0; i < skinning.calls.length; i++) runSkinCall(state, skinning.calls[i]);
  skinning.publish();
}

/**
 * @internal A skinning system's frame up to its batch calls: the entities
 * selected, their palettes checked (unless `palettesChecked`) and turned into dual quaternions where
 * asked), the job rows written into job table `table`; `publish` stores
 * the bounds once the calls have run. Undefined when there is nothing to
 * skin. What it returns is the table's: the next call for the same table
 * rewrites it (a frame allocates nothing).
 */
export function prepareSkinning(
  world: object,
  caller: string,
  options: SkinSystemOptions,
  directions: boolean,
  table: string = caller,
  palettesChecked = false,
): SkinJobs | undefined {
  const state = stateOf(world, caller);
  const all = selectSkinned(world, state, caller, options, directions, table);
  // Level of detail: entities culled, or whose palette has not moved since they were skinned.
  const skinned = withoutSkipped(state, all, NOT_SKINNED, table);
  if (skinned.length === 0) return undefined;
  // Its palettes are the entities' own (or converted from them every frame):
  // the rows of a query's selection may be kept.
  const keepable = options.entities === undefined;
  if (
    !palettesChecked &&
    !palettesInRange(state, skinned, state.jobs(tableName(table, "palette scan")), keepable) &&
    checkPalettes(state, skinned, caller).length === 0
  ) return undefined;
  const palettes = DualPalettes.of(state, tableName(table, "dual quaternions"));
  return writeSkinJobs(state, table, skinned, options, palettes, keepable);
}

/**
 * @internal The entities a skinning system skins (those with positions
 * only, or those with normals or tangents when `directions`), after
 * checking the options; in a list kept for job table `table` of the world,
 * which the next call for the same table rewrites. A query's entities are
 * grouped by skin (`groupBySkin`); a game's own list keeps its order.
 */
export function selectSkinned(
  world: object,
  state: WorldState,
  caller: string,
  options: SkinSystemOptions,
  directions: boolean,
  table: string = caller,
): number[] {
  if (options === null || typeof options !== "object") {
    throw new TypeError(`${caller}: options: expected an object`);
  }
  const cap = options.maxInfluences ?? MAX_INFLUENCES;
  if (!Number.isInteger(cap) || cap < 1) {
    throw new RangeError(
      `${caller}: maxInfluences: expected a whole number >= 1, got ${describeValue(cap)}`,
    );
  }
  const owned = state.owned;
  const list = selectEntities(
    world,
    state,
    caller,
    SKINNED_ENTITIES,
    options.entities,
  );
  const skinned = listFor(state, table);
  // The filter of the last call, while no component was added or removed
  // and nothing shortened the list since (a palette fault, an isolation).
  const selection = state.jobs(tableName(table, "selection"));
  const variant = skinned.length * 2 + (directions ? 1 : 0);
  if (options.entities === undefined && selection.holds(list, variant)) return skinned;
  // Filtered on the owned stream pointers, not the checked record: an entity
  // of the other system costs no checks here (they run once, below).
  const normals = owned.skinNormals, tangents = owned.skinTangents;
  let count = 0;
  rewritten(skinned);
  for (let i = 0; i < list.length; i++) {
    const eid = list[i];
    if ((normals[eid] !== 0 || tangents[eid] !== 0) === directions) skinned[count++] = eid;
  }
  // Written over, then cut: `length = 0` and pushes would reallocate its store every frame.
  if (skinned.length !== count) skinned.length = count;
  if (options.entities === undefined) {
    groupBySkin(skinned, owned.skin);
    selection.keep(list, count * 2 + (directions ? 1 : 0));
  } else selection.drop();
  return skinned;
}

const lists = new WeakMap<WorldState, Map<string, number[]>>();
/** The entity list kept for job table `table` of `state` (an array with a version: see `rewritten`). */
function listFor(state: WorldState, table: string): number[] {
  let byTable = lists.get(state);
  if (!byTable) lists.set(state, byTable = new Map());
  let list = byTable.get(table);
  if (!list) byTable.set(table, list = Object.assign([], { version: 0 }));
  return list;
}

/** @internal One batch call of a skinning: rows of one level of detail and method. */
export interface SkinCall {
  /** Byte offset of its first job row. */
  readonly jobs: number;
  readonly count: number;
  readonly maxInfluences: number;
  readonly dual: boolean;
  /** Byte offset of its rows' bounds, 0 for none. */
  readonly bounds: number;
}

/** @internal Runs one skinning batch call on the world's kernels. */
export function runSkinCall(state: WorldState, call: SkinCall): void {
  const batch = call.dual
    ? state.kernels.skinDualQuaternionsBatch
    : state.kernels.skinVerticesBatch;
  batch(call.jobs, call.count, call.maxInfluences, call.bounds);
}

/** @internal A skinning's batch calls, and what stores their bounds once they have run. */
export interface SkinJobs {
  readonly calls: readonly SkinCall[];
  publish(): void;
}

/**
 * @internal Where each skinned entity's palette is: `at(eid, jointCount,
 * dualQuaternion, palette)` gives the byte offset its rows read (`palette`:
 * that of its checked palette); `size`, when there is one, gets the joint
 * count of the dual-quaternion skins (their skeletons checked) before the
 * first `at`.
 */
export interface PaletteSource {
  size?(dualJoints: number): void;
  at(eid: number, jointCount: number, dual: boolean, palette: number): number;
}

/**
 * @internal Writes the job rows that skin `skinned` (checked here, in the
 * order skinned; sorted in place by level of detail when they differ) with
 * each entity's palette where `palettes` says, into job table `name` (and
 * its bounds table). `keepable`: `skinned` is the list `selectSkinned`
 * made of a query (not of a game's entities) and `palettes` gives each
 * entity's own palette (or converts it): the rows may then be kept for the
 * next calls. Returns the table's {@linkcode SkinJobs}, which the next
 * call for the same table rewrites.
 */
export function writeSkinJobs(
  state: WorldState,
  name: string,
  skinned: number[],
  options: SkinSystemOptions,
  palettes: PaletteSource,
  keepable = false,
): SkinJobs {
  const lods = state.components.Skin.maxInfluences, skins = state.owned.skin;
  const cap = options.maxInfluences ?? MAX_INFLUENCES;
  // Morph hook: bind streams whose weights changed are morphed before any row reads them.
  if (anyMorphed(state)) updateMorphs(state, skinned);
  const table = state.jobs(name);
  // Each job's positions' bounds (8 floats), computed by the kernel in registers.
  const bounds = state.jobs(tableName(name, "bounds"));
  const firstKey = skinKey(cap, lods, skins, skinned[0]);
  // Rows kept for this list array of this length (a component added or
  // removed drops them), all of one key, no palette converted: run as they
  // are while every entity has that key and its checks cannot fail.
  const variant = firstKey * 2 + (options.renormalize ? 1 : 0);
  if (keepable && table.holds(skinned, variant)) {
    const maxEid = maxEidOfInfluences(cap, lods, skinned, firstKey >> 1);
    if (
      maxEid >= 0 &&
      firstUnchecked(state, skinned, CHECK_MATRICES | CHECK_SKIN | CHECK_UNQUARANTINED, 0) ===
        skinned.length
    ) {
      bounds.begin(skinned.length, BOUNDS_FLOATS);
      return batchCalls(state, name, skinned, maxEid, options, bounds, table.ptr, false, firstKey);
    }
  }
  // One batch call per level of detail and method: the kernel takes it per
  // call. A frame of one key (the usual) skips the sort and the grouping.
  let mixed = false, dualJoints = 0;
  for (let i = 0; i < skinned.length; i++) {
    const eid = skinned[i], key = skinKey(cap, lods, skins, eid);
    if (key !== firstKey) mixed = true;
    // Marrow's record sizes the table: the rows below check the stores.
    if (key & 1 && palettes.size) dualJoints += state.owned.skeleton[eid]?.jointCount ?? 0;
  }
  palettes.size?.(dualJoints);
  if (mixed) sortByKey(skinned, cap, lods, skins);
  bounds.begin(skinned.length, BOUNDS_FLOATS);
  const reuse = keepable && !mixed && dualJoints === 0;
  table.begin(skinned.length, JOB_WORDS);
  const rows = table.staging(skinned.length * JOB_WORDS);
  const writer = SkinRowWriter.for(state, rows, options.renormalize ? SkinFlags.RENORMALIZE : 0);
  let maxEid = 0, kept = 0;
  const quarantine = state.owned.quarantine;
  for (let i = 0; i < skinned.length; i++) {
    const eid = skinned[i];
    // Quarantined for its pose or its palette: it publishes nothing new. Its
    // palette is the one it kept, which its skin was not made from when a
    // skinning fault skipped it before.
    if (quarantine[eid] & (Quarantine.Pose | Quarantine.Palette)) continue;
    try {
      writer.write(eid, kept, skinKey(cap, lods, skins, eid) >> 1);
      rows[kept * JOB_WORDS + SKIN_PALETTE] = palettes.at(
        eid,
        writer.jointCount,
        writer.dual,
        writer.palette,
      );
      // Morph hook: a morphed entity's row reads its own bind streams.
      const morphed = morphedStreams(state, eid);
      if (morphed !== undefined) redirectToMorph(rows, kept, morphed, writer);
    } catch (error) {
      // Isolated: no row, so its output and bounds keep last frame's.
      state.faults.isolate(eid, name, error);
      continue;
    }
    skinned[kept++] = eid;
    if (eid > maxEid) maxEid = eid;
  }
  if (kept !== skinned.length) skinned.length = kept, state.faults.notify();
  else if (reuse) table.keep(skinned, variant);
  table.commit(kept * JOB_WORDS);
  return batchCalls(state, name, skinned, maxEid, options, bounds, table.ptr, mixed, firstKey);
}

/**
 * The largest entity of `skinned` when all of them skin with `influences`
 * influences at most (the first one's), else -1. Not their method: a skin
 * changes only with a component added or removed, which drops the rows.
 */
function maxEidOfInfluences(
  cap: number,
  lods: Uint8Array,
  skinned: readonly number[],
  influences: number,
): number {
  let maxEid = 0;
  const first = skinned.length > 0 ? lods[skinned[0]] : 0; // Its level of detail: only compared.
  for (let i = 0; i < skinned.length; i++) {
    const eid = skinned[i], lod = lods[eid];
    if (lod !== first && Math.min(cap, lod || MAX_INFLUENCES) !== influences) return -1;
    if (eid > maxEid) maxEid = eid;
  }
  return maxEid;
}

/** Job table `name`'s batch calls over its rows at byte `rows`, one per key. */
function batchCalls(
  state: WorldState,
  name: string,
  skinned: number[],
  maxEid: number,
  options: SkinSystemOptions,
  bounds: JobTable,
  rows: number,
  mixed: boolean,
  firstKey: number,
): SkinJobs {
  const lods = state.components.Skin.maxInfluences, skins = state.owned.skin;
  const cap = options.maxInfluences ?? MAX_INFLUENCES;
  const jobs = SkinBatch.of(state, name);
  jobs.begin(skinned, maxEid, options.bounds ?? true, bounds);
  for (let first = 0; first < skinned.length;) {
    const key = mixed ? skinKey(cap, lods, skins, skinned[first]) : firstKey;
    let end = mixed ? first + 1 : skinned.length;
    while (end < skinned.length && skinKey(cap, lods, skins, skinned[end]) === key) end++;
    jobs.add(rows + first * JOB_WORDS * 4, first, end - first, key);
    first = end;
  }
  jobs.end();
  return jobs;
}

/**
 * `table: part`, the name of a skinning table's companion table, made once:
 * built per frame, it would be a new string hashed for each table lookup.
 */
function tableName(table: string, part: Companion): string {
  let names = companionNames.get(table);
  if (!names) {
    companionNames.set(
      table,
      names = { bounds: "", "dual quaternions": "", "palette scan": "", selection: "" },
    );
  }
  return names[part] ||= `${table}: ${part}`;
}
/** A skinning table's companions: its bounds, its palettes converted, their scan, its selection's marker. */
type Companion = "bounds" | "dual quaternions" | "palette scan" | "selection";
const companionNames = new Map<string, Record<Companion, string>>();
