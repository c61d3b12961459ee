/**
 * The LevelOfDetail component: how much of the frame an entity gets. An
 * entity at update rate N is animated every Nth pipeline frame that
 * includes it (a frame on a subset of entities counts for those only; sampling,
 * layers, quat→mat, transform skeleton, IK, inverse bind and skinning skip
 * it on the others; its outputs keep their last values), staggered so that
 * each frame carries about 1/N of the entities of that rate. Its clips'
 * clocks, fades, markers and root motion advance every frame as at full
 * rate, so that on the frames it is animated its outputs are those of full
 * rate bit for bit. A culled entity is not skinned (it publishes nothing
 * new) and keeps animating, unless it is paused when culled. The influence
 * cap is the Skin's own `maxInfluences`, which {@linkcode setLevelOfDetail}
 * writes.
 *
 * The rate counts the frames of `createAnimationPipeline`'s pipelines; a
 * game that runs the systems itself begins each frame with
 * `sampleClipsSystem`. An entity is animated on its first frame after the
 * component is added, whatever its rate.
 *
 * @example
 * ```ts ignore
 * setLevelOfDetail(world, eid, { updateRate: 2, maxInfluences: 2 });
 * setLevelOfDetailByDistance(world, crowd, camera, [
 *   { maxDistance: 20 },
 *   { maxDistance: 60, updateRate: 2, maxInfluences: 2 },
 * ]); // beyond 60: culled
 * ```
 * @module
 */

import { hasComponent } from "bitecs";
import { addPlain, defineComponent, removeOwn, type StoreOf } from "./_component.ts";
import { checkEntity, stateOf } from "./_machinery.ts";
import type { WorldBase } from "./_world.ts";
import { SKELETON } from "./skeleton.ts";
import { type Bounds, getJointSkinBounds } from "./skin.ts";
import { ComponentError } from "./errors.ts";
import { describeValue } from "../simd/memory/internal.ts";
import { listLength } from "./_entity_list.ts";

/** The LevelOfDetail component's store: every field yours to write (any value is safe). */
export interface LevelOfDetailComponent {
  /** Animate every Nth frame; 0 and 1: every frame. */
  readonly updateRate: Uint8Array;
  /** Not 0: the entity is not skinned (its skinned outputs and bounds keep their last values). */
  readonly culled: Uint8Array;
  /** Not 0: a culled entity is not animated either (its clocks still advance). */
  readonly pausedWhenCulled: Uint8Array;
}

/** @internal Bits of the record's `lodState`. */
export const enum LodState {
  /** The entity has the component. */
  Owned = 1,
  /** Not animated since the component was added: the next frame animates it. */
  Fresh = 2,
  /** Animated since it was last skinned: skinned on its next visible frame. */
  Stale = 4,
}

/** @internal The LevelOfDetail's definition. */
export const LEVEL_OF_DETAIL = defineComponent({
  name: "LevelOfDetail",
  needs: [SKELETON],
  shape: { updateRate: Uint8Array, culled: Uint8Array, pausedWhenCulled: Uint8Array },
  record: {
    lodState: Uint8Array,
    /** What the systems skip of the entity this frame (the flags of `systems/_lod.ts`). */
    lodSkip: Uint8Array,
    /** The frame offset of its updates, and the rate it was given for. */
    lodPhase: Uint8Array,
    lodPhaseRate: Uint8Array,
  },
  addedBy: "setLevelOfDetail",
  has: (state: WorldBase, eid: number): boolean =>
    (LEVEL_OF_DETAIL.recordOf(state).lodState[eid] & LodState.Owned) !== 0,
  allocate(state: WorldBase, eid: number): void {
    const o = LEVEL_OF_DETAIL.recordOf(state);
    o.lodState[eid] = LodState.Owned | LodState.Fresh;
    o.lodSkip[eid] = o.lodPhase[eid] = o.lodPhaseRate[eid] = 0;
    (state.components.LevelOfDetail as LodStore).updateRate[eid] = 1;
  },
  release(resources, eid): void {
    const o = LEVEL_OF_DETAIL.recordOf(resources);
    o.lodState[eid] =
      o.lodSkip[eid] =
      o.lodPhase[eid] =
      o.lodPhaseRate[eid] =
        0;
  },
});

type LodStore = StoreOf<typeof LEVEL_OF_DETAIL>;

/** Settings of {@linkcode setLevelOfDetail}; a setting left out keeps its value. */
export interface LevelOfDetailSettings {
  /** Animate every Nth frame, 1 to 255 (1: every frame). */
  readonly updateRate?: number;
  /**
   * Skin with at most this many influences per vertex (the heaviest,
   * renormalized), 0 to 255 (0: all); the Skin's `maxInfluences`.
   */
  readonly maxInfluences?: number;
  /** False: not skinned (culled). */
  readonly visible?: boolean;
  /** True: not animated either while culled. */
  readonly pausedWhenCulled?: boolean;
}

/** A distance band of {@linkcode setLevelOfDetailByDistance}. */
export interface DistanceBand {
  /** The band holds entities up to this distance from the viewpoint (a number >= 0). */
  readonly maxDistance: number;
  /** Its update rate, 1 to 255. Default 1. */
  readonly updateRate?: number;
  /** Its influence cap, 0 to 255 (0: all). Default 0. */
  readonly maxInfluences?: number;
}

/**
 * `value` checked as a whole number from `low` to 255, or a RangeError
 * naming the argument (`argument`, or `bands[index].argument` for an
 * index >= 0): the name is built only for the error, a call allocates nothing.
 */
function checkedByte(
  caller: string,
  argument: string,
  value: unknown,
  low: number,
  index = -1,
): number {
  if (typeof value !== "number" || !Number.isInteger(value) || value < low || value > 255) {
    const name = index < 0 ? argument : `bands[${index}].${argument}`;
    throw new RangeError(
      `${caller}: ${name}: expected a whole number from ${low} to 255, got ${describeValue(value)}`,
    );
  }
  return value;
}

/** `value` checked as undefined or a boolean, or a TypeError naming `settings.argument`. */
function checkBoolean(caller: string, argument: string, value: unknown): void {
  if (value !== undefined && typeof value !== "boolean") {
    throw new TypeError(
      `${caller}: settings.${argument}: expected a boolean, got ${describeValue(value)}`,
    );
  }
}

/**
 * Sets entity `eid`'s level of detail, giving it a LevelOfDetail when it
 * has none. Checks everything before writing anything: a `RangeError` or
 * `TypeError` naming the setting, a `ComponentError` for an entity without
 * a Skeleton (or without a Skin, given `maxInfluences`).
 */
export function setLevelOfDetail(
  world: object,
  eid: number,
  settings: LevelOfDetailSettings,
): void {
  const caller = "setLevelOfDetail";
  const state = stateOf(world, caller, eid);
  checkEntity(world, eid, "LevelOfDetail");
  if (settings === null || typeof settings !== "object") {
    throw new TypeError(`${caller}: settings: expected an object`);
  }
  const { updateRate, maxInfluences, visible, pausedWhenCulled } = settings;
  if (updateRate !== undefined) checkedByte(caller, "settings.updateRate", updateRate, 1);
  if (maxInfluences !== undefined) {
    checkedByte(caller, "settings.maxInfluences", maxInfluences, 0);
    if (!hasComponent(world, eid, state.components.Skin)) {
      throw new ComponentError(eid, "Skin", `${caller}: maxInfluences needs a Skin (addSkin)`);
    }
  }
  checkBoolean(caller, "visible", visible);
  checkBoolean(caller, "pausedWhenCulled", pausedWhenCulled);
  if (!hasComponent(world, eid, state.components.LevelOfDetail)) {
    addPlain(world, caller, LEVEL_OF_DETAIL, eid);
  }
  const store = state.components.LevelOfDetail as LodStore;
  if (updateRate !== undefined) store.updateRate[eid] = updateRate;
  if (visible !== undefined) store.culled[eid] = visible ? 0 : 1;
  if (pausedWhenCulled !== undefined) store.pausedWhenCulled[eid] = pausedWhenCulled ? 1 : 0;
  if (maxInfluences !== undefined) {
    (state.components.Skin as { maxInfluences: Uint8Array }).maxInfluences[eid] = maxInfluences;
  }
}

/** Removes entity `eid`'s LevelOfDetail: it is animated and skinned every frame again. */
export function removeLevelOfDetail(world: object, eid: number): void {
  removeOwn(world, "removeLevelOfDetail", LEVEL_OF_DETAIL, eid);
}

/** The box {@linkcode setLevelOfDetailByDistance} reuses: the call allocates nothing. */
const box: Bounds = { min: [0, 0, 0], max: [0, 0, 0] };

/** The ids {@linkcode setLevelOfDetailByDistance} was given, read once (no array per call). */
const listedScratch: number[] = [];

/**
 * Sets the level of detail of each entity of `entities` (each with a Skin)
 * by its distance from `viewpoint` (x, y, z): the distance to its
 * conservative joint bounds (`getJointSkinBounds`, last frame's model
 * matrices; 0 inside) picks the first band whose `maxDistance` holds it,
 * whose update rate and influence cap it gets; beyond the last band it is
 * culled (not skinned; it keeps animating at the last band's rate). Bands
 * must be in increasing `maxDistance`. Every argument is checked before
 * anything is written (errors name it); the call allocates nothing.
 */
export function setLevelOfDetailByDistance(
  world: object,
  entities: ArrayLike<number>,
  viewpoint: ArrayLike<number>,
  bands: readonly DistanceBand[],
): void {
  const caller = "setLevelOfDetailByDistance";
  const state = stateOf(world, caller);
  // Read once: the checks and the writes see the same ids, whatever the list answers.
  const count = listLength(caller, entities);
  // Written in place, its length set after: an emptied array drops its storage.
  const listed = listedScratch;
  for (let i = 0; i < count; i++) listed[i] = entities[i];
  listed.length = count;
  if (viewpoint === null || typeof viewpoint !== "object" || viewpoint.length !== 3) {
    throw new TypeError(`${caller}: viewpoint: expected 3 numbers`);
  }
  for (let k = 0; k < 3; k++) {
    if (!Number.isFinite(viewpoint[k])) {
      throw new RangeError(`${caller}: viewpoint[${k}]: expected a finite number`);
    }
  }
  if (!Array.isArray(bands) || bands.length === 0) {
    throw new TypeError(`${caller}: bands: expected a non-empty array of bands`);
  }
  for (let b = 0; b < bands.length; b++) {
    const band = bands[b];
    if (band === null || typeof band !== "object") {
      throw new TypeError(`${caller}: bands[${b}]: expected an object`);
    }
    const limit = band.maxDistance, below = b > 0 ? bands[b - 1].maxDistance : 0;
    if (typeof limit !== "number" || !(limit >= below)) {
      throw new RangeError(
        `${caller}: bands[${b}].maxDistance: expected a number >= ${below}, got ${
          describeValue(limit)
        }`,
      );
    }
    checkedByte(caller, "updateRate", band.updateRate ?? 1, 1, b);
    checkedByte(caller, "maxInfluences", band.maxInfluences ?? 0, 0, b);
  }
  for (let i = 0; i < count; i++) {
    const eid = listed[i];
    checkEntity(world, eid, "LevelOfDetail");
    if (!hasComponent(world, eid, state.components.Skin)) {
      throw new ComponentError(eid, "Skin", `${caller}: entities[${i}] has no Skin (addSkin)`);
    }
    // Checks the Skeleton, JointMat and Skin fields it reads, before anything is written.
    getJointSkinBounds(world, eid, box);
  }
  const store = state.components.LevelOfDetail as LodStore;
  const caps = (state.components.Skin as { maxInfluences: Uint8Array }).maxInfluences;
  const x = viewpoint[0], y = viewpoint[1], z = viewpoint[2];
  for (let i = 0; i < count; i++) {
    const eid = listed[i];
    const { min, max } = getJointSkinBounds(world, eid, box);
    const dx = Math.max(min[0] - x, 0, x - max[0]), dy = Math.max(min[1] - y, 0, y - max[1]);
    const dz = Math.max(min[2] - z, 0, z - max[2]);
    const distance = Math.sqrt(dx * dx + dy * dy + dz * dz);
    let b = 0;
    while (b < bands.length - 1 && !(distance <= bands[b].maxDistance)) b++;
    if (!hasComponent(world, eid, store)) addPlain(world, caller, LEVEL_OF_DETAIL, eid);
    const band = bands[b];
    store.updateRate[eid] = band.updateRate ?? 1;
    caps[eid] = band.maxInfluences ?? 0;
    store.culled[eid] = distance <= band.maxDistance ? 0 : 1;
  }
}
