/**
 * Marrow's components in a game's bitecs world: {@linkcode createAnimation}
 * makes a world animatable and returns its components, plain objects of
 * typed arrays indexed by entity, as bitecs components are;
 * {@linkcode disposeAnimation} gives back everything the world held.
 *
 * @example
 * ```ts
 * import { addEntity, createWorld, query } from "bitecs";
 * import { addCharacter, createAnimation, disposeAnimation, SkeletonAsset, SkinAsset } from "@marrow/anim";
 * import { createCylinder } from "@marrow/anim/procedural";
 *
 * const world = createWorld();
 * const { JointMat, Skin } = createAnimation(world);
 * const cylinder = createCylinder({ joints: 4 });
 * using skeleton = new SkeletonAsset(cylinder.skeleton);
 * using skin = new SkinAsset(skeleton, cylinder.skin);
 * const eid = addEntity(world);
 * addCharacter(world, eid, skeleton, skin);
 * for (const e of query(world, [Skin])) console.log(JointMat.modelByteOffset[e] > 0); // true
 * disposeAnimation(world);
 * ```
 * @module
 */

import { query, removeComponent } from "bitecs";
import { Core } from "../simd/memory/core.ts";
import {
  existingState,
  forget,
  isBitecsWorld,
  isObserved,
  registerWorld,
  stateOf,
} from "./_machinery.ts";
import { WorldBase } from "./_world.ts";
import { registerStandardSelections } from "./_selections.ts";
import { type ComponentName, COMPONENTS, type WorldState } from "./registry.ts";
import type { Fault, FaultMode } from "./_faults.ts";
import type { AnimationComponents } from "./registry.ts";
import { describeValue } from "../simd/memory/internal.ts";

export type { AnimationComponents } from "./registry.ts";
export type { SkeletonComponent } from "./skeleton.ts";
export type { JointQuatComponent } from "./joint_quat.ts";
export type { JointMatComponent } from "./joint_mat.ts";
export type { SkinComponent } from "./skin.ts";
export type { ClipPlayerComponent } from "./clip_player.ts";
export type { IKComponent } from "./ik.ts";

/** Options of {@linkcode createAnimation}. */
export interface AnimationOptions {
  /** The core whose memory holds the entities' data. Default: `Core.default`. */
  readonly core?: Core;
  /**
   * What the systems do with a problem in one entity's data (a non-finite
   * pose, an overflowing palette, a non-finite clip time): `"isolate"`
   * (default) skips the entity, keeps its outputs at their last good
   * values and records the problem (`getFaults`); `"throw"` throws its
   * typed error (`PoseError`, `RangeError`) from the system, as a game that
   * prefers exceptions asks.
   */
  readonly faults?: FaultMode;
  /**
   * Called with each new fault (`getFaults`) once the system call or
   * pipeline frame that found it is over; an error it throws propagates
   * from that call.
   */
  readonly onFault?: (fault: Fault) => void;
}

/**
 * Makes `world` (a bitecs world the game created) animatable and returns
 * Marrow's components for it. Calling it again for the same world returns
 * the same components (and sets the fault options it is given). The world's core memory is released by
 * {@linkcode disposeAnimation}, or when the world is garbage collected.
 */
export function createAnimation(
  world: object,
  options: AnimationOptions = {},
): AnimationComponents {
  if (world === null || typeof world !== "object" || !isBitecsWorld(world)) {
    throw new TypeError("createAnimation: world: expected a bitecs world (createWorld())");
  }
  checkFaultOptions(options);
  const existing = existingState(world);
  if (existing) {
    if (options?.core && options.core !== existing.core) {
      throw new TypeError("createAnimation: this world already uses another core");
    }
    const state = stateOf(world, "createAnimation") as WorldState;
    applyFaultOptions(state, options);
    return publicComponents(state);
  }
  const core = options?.core ?? Core.default;
  if (!(core instanceof Core)) {
    throw new TypeError("createAnimation: options.core: expected a Core");
  }
  const state = new WorldBase(core, COMPONENTS) as WorldState;
  applyFaultOptions(state, options);
  registerWorld(world, state);
  registerStandardSelections(world, state);
  return publicComponents(state);
}

/**
 * The world's stores as their public types. The type says that every
 * registered component is in {@linkcode AnimationComponents} (a name
 * missing there is a compile error here).
 */
function publicComponents(
  state: WorldState,
): AnimationComponents & Record<Exclude<ComponentName, keyof AnimationComponents>, never> {
  return state.components;
}

function checkFaultOptions(options: AnimationOptions): void {
  if (options === null || options === undefined) return;
  if (typeof options !== "object") {
    throw new TypeError("createAnimation: options: expected an object");
  }
  const { faults, onFault } = options;
  if (faults !== undefined && faults !== "isolate" && faults !== "throw") {
    throw new RangeError(
      `createAnimation: options.faults: expected "isolate" or "throw", got ${
        describeValue(faults)
      }`,
    );
  }
  if (onFault !== undefined && typeof onFault !== "function") {
    throw new TypeError("createAnimation: options.onFault: expected a function");
  }
}

function applyFaultOptions(state: WorldBase, options: AnimationOptions): void {
  if (options?.faults !== undefined) state.faults.mode = options.faults;
  if (options?.onFault !== undefined) state.faults.onFault = options.onFault;
}

/**
 * Removes Marrow's components from every entity of `world` and gives all
 * the core memory the world held back to its core (the assets it used are
 * released, and freed if disposed). The world itself stays usable;
 * {@linkcode createAnimation} makes it animatable again. `deleteWorld`
 * followed by any Marrow call on the world, or collecting the world,
 * releases it too.
 */
export function disposeAnimation(world: object): void {
  const state = existingState(world);
  if (!state) return;
  if (isObserved(world, state)) {
    for (const { name } of state.resources.removalOrder) {
      const component = state.components[name];
      for (const eid of Array.from(query(world, [component]))) {
        removeComponent(world, eid, component);
      }
    }
  }
  forget(world, state);
}
