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
 * but measured slower here for positions at every influence count (1.31x at
 * one influence, 1.12x at two, 1.09x at four, 100,000 vertices, relaxed
 * SIMD), so the systems do not use it.
 *
 * @module
 */

import { checkedSkeleton, selectEntities } from "../components/_access.ts";
import { SkinRowWriter } from "../components/_skin_rows.ts";
import type { SkinAsset } from "../animation/skin_asset.ts";
import { stateOf } from "../components/_lifecycle.ts";
import { boundsFloats } from "../components/_skin_bounds.ts";
import { JOB_WORDS } from "../simd/_abi.ts";
import { MAX_INFLUENCES } from "../simd/_checks.ts";
import { MATRIX_FLOATS, SkinFlags } from "../simd/layout.ts";
import { checkPalettes, SKINNED_ENTITIES } from "./_select.ts";
import { DUAL_QUATERNION_FLOATS, paletteToDualQuaternions } from "../simd/reference_dq.ts";
import { DualQuaternionError } from "../components/skin.ts";
import type { WorldState } from "../components/_world.ts";

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
   * skinning. Default true; false saves the min/max (measured 1.2x–1.3x on
   * positions-only two-influence loops, up to 1.1x at one and four
   * influences, a few percent with normals and tangents) and leaves the
   * bounds undefined.
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
  for (const call of skinning.calls) runSkinCall(state, call);
  skinning.publish();
}

/**
 * @internal A skinning system's frame up to its batch calls: the entities
 * selected, their palettes checked (unless `palettesChecked`) and turned into dual quaternions where
 * asked), the job rows written into job table `table`; `publish` stores
 * the bounds once the calls have run. Undefined when there is nothing to
 * skin.
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
  const skinned = selectSkinned(world, state, caller, options, directions);
  if (skinned.length === 0) return undefined;
  if (!palettesChecked && checkPalettes(state, skinned, caller).length === 0) return undefined;
  const dual = state.jobs(tableName(table, "dual quaternions"));
  let dualAt = 0;
  const sizeDual = (dualJoints: number) => {
    if (dualJoints) dual.begin(dualJoints, DUAL_QUATERNION_FLOATS);
    dualAt = dual.ptr;
  };
  return writeSkinJobs(state, table, skinned, options, (eid, n, isDual, palette) => {
    if (!isDual) return palette;
    const at = dualAt;
    dualAt += n * DUAL_QUATERNION_FLOATS * 4;
    return toDualQuaternions(state, eid, palette, n, at);
  }, sizeDual);
}

/**
 * @internal The entities a skinning system skins (those with positions
 * only, or those with normals or tangents when `directions`), after
 * checking the options.
 */
export function selectSkinned(
  world: object,
  state: WorldState,
  caller: string,
  options: SkinSystemOptions,
  directions: boolean,
): number[] {
  if (options === null || typeof options !== "object") {
    throw new TypeError(`${caller}: options: expected an object`);
  }
  const cap = options.maxInfluences ?? MAX_INFLUENCES;
  if (!Number.isInteger(cap) || cap < 1) {
    throw new RangeError(`${caller}: maxInfluences: expected a whole number >= 1, got ${cap}`);
  }
  const owned = state.owned;
  const list = selectEntities(
    world,
    state,
    caller,
    SKINNED_ENTITIES,
    options.entities,
  );
  // Filtered on the owned stream pointers, not the checked record: an entity
  // of the other system costs no checks here (they run once, below).
  const skinned: number[] = [];
  const normals = owned.skinNormals, tangents = owned.skinTangents;
  for (let i = 0; i < list.length; i++) {
    const eid = list[i];
    if ((normals[eid] !== 0 || tangents[eid] !== 0) === directions) skinned.push(eid);
  }
  return skinned;
}

/**
 * @internal Writes entity `eid`'s palette (`n` joints at byte `palette`)
 * as dual quaternions at byte `at`; a {@linkcode DualQuaternionError} when
 * a joint's matrix is not a rotation and translation. Returns `at`.
 */
export function toDualQuaternions(
  state: WorldState,
  eid: number,
  palette: number,
  n: number,
  at: number,
): number {
  const f32 = state.memory.f32;
  const bad = paletteToDualQuaternions(
    f32.subarray(palette >> 2, (palette >> 2) + n * MATRIX_FLOATS),
    n,
    f32.subarray(at >> 2, (at >> 2) + n * DUAL_QUATERNION_FLOATS),
  );
  if (bad >= 0) throw new DualQuaternionError(eid, bad);
  return at;
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
 * @internal Writes the job rows that skin `skinned` (checked here, in the
 * order skinned) with each entity's palette where `paletteOf(eid,
 * jointCount, dualQuaternion, palette)` says (`palette`: the byte offset of
 * its checked palette), into job table `name` (and its bounds table).
 * `sizeDual`, when given, gets the joint count of the dual-quaternion
 * skins (their skeletons checked) before the first `paletteOf`.
 */
export function writeSkinJobs(
  state: WorldState,
  name: string,
  skinned: number[],
  options: SkinSystemOptions,
  paletteOf: (eid: number, jointCount: number, dual: boolean, palette: number) => number,
  sizeDual?: (dualJoints: number) => void,
): SkinJobs {
  const lods = state.components.Skin.maxInfluences, skins = state.owned.skin;
  const cap = options.maxInfluences ?? MAX_INFLUENCES;
  const withBounds = options.bounds ?? true;
  // One batch call per level of detail and method: the kernel takes it per
  // call. A frame of one key (the usual) skips the sort and the grouping.
  const keyOf = (eid: number) => skinKey(cap, lods, skins, eid);
  const firstKey = keyOf(skinned[0]);
  let mixed = false, dualJoints = 0;
  for (let i = 0; i < skinned.length; i++) {
    const eid = skinned[i], key = keyOf(eid);
    if (key !== firstKey) mixed = true;
    if (key & 1 && sizeDual) dualJoints += checkedSkeleton(state, eid).jointCount;
  }
  sizeDual?.(dualJoints);
  if (mixed) skinned.sort((a, b) => keyOf(a) - keyOf(b));
  const table = state.jobs(name);
  table.begin(skinned.length, JOB_WORDS);
  // Each job's positions' bounds (8 floats), computed by the kernel in registers.
  const bounds = state.jobs(tableName(name, "bounds"));
  bounds.begin(skinned.length, BOUNDS_FLOATS);
  const rows = table.staging(skinned.length * JOB_WORDS);
  const writer = SkinRowWriter.for(state, rows, options.renormalize ? SkinFlags.RENORMALIZE : 0);
  let maxEid = 0;
  for (let i = 0, at = 0; i < skinned.length; i++, at += JOB_WORDS) {
    const eid = skinned[i];
    writer.write(eid, i);
    rows[at] = paletteOf(eid, writer.jointCount, writer.dual, writer.palette);
    if (eid > maxEid) maxEid = eid;
  }
  table.commit(skinned.length * JOB_WORDS);
  const call = (first: number, end: number, key: number): SkinCall => ({
    jobs: table.ptr + first * JOB_WORDS * 4,
    count: end - first,
    maxInfluences: key >> 1,
    dual: (key & 1) === 1,
    bounds: withBounds ? bounds.ptr + first * BOUNDS_FLOATS * 4 : 0,
  });
  const calls: SkinCall[] = [];
  if (!mixed) calls.push(call(0, skinned.length, firstKey));
  for (let first = 0; mixed && first < skinned.length;) {
    const key = keyOf(skinned[first]);
    let end = first + 1;
    while (end < skinned.length && keyOf(skinned[end]) === key) end++;
    calls.push(call(first, end, key));
    first = end;
  }
  const publish = () => {
    const stored = boundsFloats(state, maxEid);
    if (!withBounds) {
      for (const eid of skinned) stored.fill(NaN, eid * BOUNDS_FLOATS, (eid + 1) * BOUNDS_FLOATS);
      return;
    }
    // Unrolled copies per entity (a loop over the 8 floats measured 4 % of a
    // frame of 1,000 small characters), from one copy of the whole table:
    // reads from the core's resizable buffer cost more.
    const computed = bounds.readBack(skinned.length * BOUNDS_FLOATS);
    const f32 = new Float32Array(computed.buffer);
    for (let i = 0; i < skinned.length; i++) {
      const to = skinned[i] * BOUNDS_FLOATS, from = i * BOUNDS_FLOATS;
      stored[to] = f32[from];
      stored[to + 1] = f32[from + 1];
      stored[to + 2] = f32[from + 2];
      stored[to + 3] = f32[from + 3];
      stored[to + 4] = f32[from + 4];
      stored[to + 5] = f32[from + 5];
      stored[to + 6] = f32[from + 6];
      stored[to + 7] = f32[from + 7];
    }
  };
  return { calls, publish };
}

const BOUNDS_FLOATS = 8;

/**
 * `table: part`, the name of a skinning table's companion table, made once:
 * building it per frame (a new string, hashed for the table lookup) cost
 * about 60 ns a call.
 */
function tableName(table: string, part: "bounds" | "dual quaternions"): string {
  let names = companionNames.get(table);
  if (!names) companionNames.set(table, names = { bounds: "", "dual quaternions": "" });
  return names[part] ||= `${table}: ${part}`;
}
const companionNames = new Map<string, Record<"bounds" | "dual quaternions", string>>();

/** An entity's batch call: level of detail × 2, + 1 for dual quaternions. */
function skinKey(
  cap: number,
  lods: Uint8Array,
  skins: readonly (SkinAsset | undefined)[],
  eid: number,
): number {
  return Math.min(cap, lods[eid] || MAX_INFLUENCES) * 2 +
    (skins[eid]!.method === "dual-quaternion" ? 1 : 0);
}
