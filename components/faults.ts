/**
 * A world's faults: the problems in single entities' data that the
 * systems found and isolated instead of throwing (see `createAnimation`'s
 * `faults` and `onFault` options).
 *
 * A fault is a value the frame cannot use: a non-finite pose (written
 * through `getPose`, say), a palette beyond ±1e18 (a pose that overflows),
 * a non-finite `ClipPlayer.time` or `speed`. The entity is skipped by the
 * systems that would use the value, for that call: its model matrices,
 * palette and skinned outputs keep their last good values, and every
 * other entity's output is what it would be without it. The systems check
 * again on every call, so the entity comes back as soon as its data is
 * good. A fault is kept (one record per entity and system, its `count`
 * going up each call that finds it again) until {@linkcode clearFaults}.
 *
 * @example
 * ```ts
 * import { addEntity, createWorld } from "bitecs";
 * import {
 *   addCharacter,
 *   clearFaults,
 *   createAnimation,
 *   createAnimationPipeline,
 *   getFaults,
 *   getPose,
 *   SkeletonAsset,
 *   SkinAsset,
 * } from "@marrow/anim";
 * import { createCylinder } from "@marrow/anim/procedural";
 *
 * const world = createWorld();
 * createAnimation(world, { onFault: (fault) => console.warn(fault.error.message) });
 * const cylinder = createCylinder({ joints: 4 });
 * using skeleton = new SkeletonAsset(cylinder.skeleton);
 * using skin = new SkinAsset(skeleton, cylinder.skin);
 * const eid = addEntity(world);
 * addCharacter(world, eid, skeleton, skin);
 * getPose(world, eid)[0] = NaN; // a bug in game code
 * createAnimationPipeline()(world, 1 / 60); // does not throw
 * const [fault] = getFaults(world);
 * console.assert(fault.entity === eid && fault.system === "quatToMatSystem");
 * clearFaults(world);
 * ```
 * @module
 */

import { stateOf } from "./_lifecycle.ts";
import type { Fault } from "./_faults.ts";
import { describeValue } from "../simd/memory/internal.ts";

export type { Fault, FaultMode } from "./_faults.ts";

/**
 * The faults recorded in `world` since it was created or last cleared,
 * oldest first (copies: reading them changes nothing).
 */
export function getFaults(world: object): Fault[] {
  return stateOf(world, "getFaults").faults.list();
}

/**
 * Forgets `world`'s faults, or only entity `eid`'s. An entity whose data
 * is still bad is recorded again by the next system call that finds it.
 */
export function clearFaults(world: object, eid?: number): void {
  const state = stateOf(world, "clearFaults", eid);
  if (eid !== undefined && (!Number.isInteger(eid) || eid < 0)) {
    throw new RangeError(`clearFaults: eid: expected an entity id, got ${describeValue(eid)}`);
  }
  state.faults.clear(eid);
}
