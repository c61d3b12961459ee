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
import type { SkeletonAsset } from "../animation/skeleton_asset.ts";
import type { SkinAsset } from "../animation/skin_asset.ts";
import { Core } from "../simd/core.ts";
import {
  existingState,
  forget,
  isBitecsWorld,
  isObserved,
  registerWorld,
  stateOf,
} from "./_lifecycle.ts";
import { COMPONENT_NAMES, WorldState } from "./_world.ts";
import type { Fault, FaultMode } from "./_faults.ts";

/**
 * The Skeleton component: which shared skeleton an entity animates. Needs
 * nothing; JointQuat, JointMat, Skin and ClipPlayer need it.
 */
export interface SkeletonComponent {
  /** The entity's skeleton (object references cannot live in typed arrays). */
  readonly asset: readonly (SkeletonAsset | undefined)[];
  /** Its joint count. */
  readonly jointCount: Uint16Array;
}

/** The JointQuat component: the entity's local pose (SoA×4) in the core. Needs Skeleton. */
export interface JointQuatComponent {
  /** Byte offset of the pose in the core's memory. */
  readonly byteOffset: Uint32Array;
}

/**
 * The JointMat component: the entity's model-space matrices and skinning
 * palette (3x4 each) in the core. Needs Skeleton. Between the quat→mat
 * and the multiply-inverse-bind systems the palette holds local matrices.
 */
export interface JointMatComponent {
  /** Byte offset of the model-space matrices. */
  readonly modelByteOffset: Uint32Array;
  /** Byte offset of the skinning palette. */
  readonly paletteByteOffset: Uint32Array;
}

/** The Skin component: the entity's shared meshes and skinned output. Needs Skeleton and JointMat. */
export interface SkinComponent {
  /** The entity's skin. */
  readonly asset: readonly (SkinAsset | undefined)[];
  /** Vertices of all its meshes. */
  readonly vertexCount: Uint32Array;
  /** Byte offset of the skinned positions. */
  readonly positionsByteOffset: Uint32Array;
  /** Byte offset of the skinned normals, 0 when not skinned. */
  readonly normalsByteOffset: Uint32Array;
  /** Byte offset of the skinned tangents, 0 when not skinned. */
  readonly tangentsByteOffset: Uint32Array;
  /**
   * Level of detail, yours to write: skin with at most this many influences
   * per vertex (the heaviest, rescaled to sum to one); 0 uses them all.
   */
  readonly maxInfluences: Uint8Array;
}

/** The ClipPlayer component: an entity plays clips into its JointQuat. Needs Skeleton and JointQuat. */
export interface ClipPlayerComponent {
  /** Name of the clip playing (the one faded to, during a cross-fade). */
  readonly clipName: readonly (string | undefined)[];
  /** Time in seconds of the clip playing, before wrapping; yours to write (seek). */
  readonly time: Float64Array;
  /** Playback rate of the clip playing, negative backwards; yours to write. */
  readonly speed: Float32Array;
}

/**
 * The IK component: the entity's IK chains (two-bone and aim), solved in
 * model space by the IK system. Needs Skeleton and JointMat. The chains'
 * settings are Marrow's (`addTwoBoneIK`, `setIKTarget`, …).
 */
export interface IKComponent {
  /** Number of chains, for reading. */
  readonly chainCount: Uint8Array;
}

/** Marrow's components for one world. */
export interface AnimationComponents {
  /** Shared skeleton of an entity. */
  readonly Skeleton: SkeletonComponent;
  /** Local pose: translation, rotation quaternion, scale per joint. */
  readonly JointQuat: JointQuatComponent;
  /** Model-space matrices and skinning palette. */
  readonly JointMat: JointMatComponent;
  /** Shared skinned meshes and per-entity skinned output. */
  readonly Skin: SkinComponent;
  /** Clip playback state. */
  readonly ClipPlayer: ClipPlayerComponent;
  /** IK chains. */
  readonly IK: IKComponent;
}

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
    const state = stateOf(world, "createAnimation");
    applyFaultOptions(state, options);
    return state.components;
  }
  const core = options?.core ?? Core.default;
  if (!(core instanceof Core)) {
    throw new TypeError("createAnimation: options.core: expected a Core");
  }
  const state = new WorldState(core);
  applyFaultOptions(state, options);
  registerWorld(world, state);
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
      `createAnimation: options.faults: expected "isolate" or "throw", got ${String(faults)}`,
    );
  }
  if (onFault !== undefined && typeof onFault !== "function") {
    throw new TypeError("createAnimation: options.onFault: expected a function");
  }
}

function applyFaultOptions(state: WorldState, options: AnimationOptions): void {
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
    for (const name of COMPONENT_NAMES) {
      const component = state.components[name];
      for (const eid of Array.from(query(world, [component]))) {
        removeComponent(world, eid, component);
      }
    }
  }
  forget(world, state);
}
