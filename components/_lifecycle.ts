/**
 * The lifecycle of Marrow's components in a bitecs world: one add observer
 * per component allocates an entity's data (whichever function added it),
 * one remove observer frees it and removes the components that need it
 * (whichever function removed it: Marrow's, bitecs' `removeComponent` or
 * `removeEntity`), and every entry point notices a `resetWorld` or
 * `deleteWorld` and releases what the world held.
 *
 * The dependency graph, enforced here:
 *
 * ```
 * Skeleton ← JointQuat ← ClipPlayer
 * Skeleton ← JointMat  ← Skin, IK
 * ```
 *
 * An add whose prerequisites are missing is undone and throws a
 * `ComponentError`; removing a prerequisite removes its dependents.
 *
 * @module
 */

import { ClipSampler } from "../animation/clip_sampler.ts";
import { entityExists, observe, onAdd, onRemove, query, removeComponent } from "bitecs";
import { JOINT_COLUMN_BYTES } from "../simd/_abi.ts";
import { MATRIX_FLOATS, poseFloats, VERTEX_FLOATS } from "../simd/layout.ts";
import { ComponentError } from "./errors.ts";
import { JOINT_MAT_BLOCKS } from "./_faults.ts";
import { lifetimeOf } from "../animation/_lifetime.ts";
import {
  COMPONENT_NAMES,
  type ComponentName,
  type WorldResources,
  type WorldState,
} from "./_world.ts";
import { skeletonInternals, skinInternals } from "../animation/_asset_internals.ts";

const BITECS_INTERNAL = Symbol.for("bitecs_internal");

/** bitecs 0.4's per-world context; `resetWorld` replaces its entity index. */
function bitecsContext(world: object): { entityIndex: unknown } | undefined {
  return (world as Record<symbol, { entityIndex: unknown } | undefined>)[BITECS_INTERNAL];
}

const states = new WeakMap<object, WorldState>();
/** Releases a collected world's core memory. */
const collectedWorlds = new FinalizationRegistry<WorldResources>((resources) =>
  resources.releaseAll()
);

/** @internal Registers `world`'s new state and observes it. */
export function registerWorld(world: object, state: WorldState): void {
  states.set(world, state);
  collectedWorlds.register(world, state.resources, state);
  observeWorld(world, state);
}

/** @internal The state of `world` if it has one, without checks. */
export function existingState(world: object): WorldState | undefined {
  return states.get(world);
}

/** @internal Whether bitecs still knows `world` as `state` observed it. */
export function isObserved(world: object, state: WorldState): boolean {
  return bitecsContext(world)?.entityIndex === state.entityIndex;
}

/** @internal Whether `world` is a live bitecs world. */
export function isBitecsWorld(world: object): boolean {
  return !!bitecsContext(world);
}

/** @internal Stops observing `world` and releases everything it held. */
export function forget(world: object, state: WorldState): void {
  for (const unobserve of state.unobserve) unobserve();
  state.unobserve = [];
  state.resources.releaseAll();
  state.forgetJobs();
  collectedWorlds.unregister(state);
  states.delete(world);
}

/**
 * @internal The state of `world`, or a TypeError naming `caller`. Notices
 * a `deleteWorld` (releases everything, then throws) and a `resetWorld`
 * (releases everything, observes the fresh world, and removes components
 * bitecs let code add while nobody was observing).
 */
export function stateOf(world: object, caller: string): WorldState {
  const state = states.get(world);
  if (!state) {
    throw new TypeError(`${caller}: the world has no animation: call createAnimation(world) first`);
  }
  const context = bitecsContext(world);
  if (!context) {
    forget(world, state);
    throw new TypeError(`${caller}: the world was deleted (deleteWorld)`);
  }
  if (context.entityIndex !== state.entityIndex) {
    for (const unobserve of state.unobserve) unobserve();
    state.resources.releaseAll();
    state.forgetJobs();
    // The entities the faults name are gone with the reset.
    state.faults.clear();
    for (const name of COMPONENT_NAMES) {
      for (let eid = 0; eid < state.resources.capacity; eid++) state.clearStore(name, eid);
    }
    observeWorld(world, state);
    for (const name of COMPONENT_NAMES) {
      const component = state.components[name];
      for (const eid of Array.from(query(world, [component]))) {
        removeComponent(world, eid, component);
      }
    }
  }
  return state;
}

function observeWorld(world: object, state: WorldState): void {
  state.entityIndex = bitecsContext(world)!.entityIndex;
  state.unobserve = COMPONENT_NAMES.flatMap((name) => {
    const component = state.components[name];
    return [
      observe(world, onAdd(component), (eid: number) => {
        try {
          state.ensureCapacity(eid);
          allocate(state, name, eid);
        } catch (error) {
          removeComponent(world, eid, component);
          throw error;
        }
      }),
      observe(world, onRemove(component), (eid: number) => {
        for (const dependent of DEPENDENTS[name]) {
          removeComponent(world, eid, state.components[dependent]);
        }
        state.resources.release(name, eid);
        state.clearStore(name, eid);
      }),
    ];
  });
}

/** The components that need each component. */
const DEPENDENTS: Record<ComponentName, readonly ComponentName[]> = {
  Skeleton: ["JointQuat", "JointMat"],
  JointQuat: ["ClipPlayer"],
  JointMat: ["Skin", "IK"],
  Skin: [],
  ClipPlayer: [],
  IK: [],
};

/** Allocates entity `eid`'s data for `name`, or throws a ComponentError. */
function allocate(state: WorldState, name: ComponentName, eid: number): void {
  const o = state.owned, c = state.components;
  const skeleton = o.skeleton[eid];
  if (name === "Skeleton") {
    const asset = state.pending.Skeleton;
    state.pending.Skeleton = undefined;
    if (!asset) throw addWith(eid, name, "addSkeleton(world, eid, skeleton)");
    lifetimeOf(asset).acquire();
    o.skeleton[eid] = asset;
    (c.Skeleton.asset as unknown[])[eid] = asset;
    c.Skeleton.jointCount[eid] = asset.jointCount;
    return;
  }
  if (!skeleton) {
    throw new ComponentError(eid, name, "the entity needs a Skeleton first (addSkeleton)");
  }
  const memory = state.resources.memory;
  const n = skeleton.jointCount;
  switch (name) {
    case "JointQuat": {
      const floats = poseFloats(n);
      const ptr = memory.alloc(floats * 4);
      memory.views().f32.set(skeletonInternals(skeleton).restPose, ptr >> 2);
      o.pose[eid] = c.JointQuat.byteOffset[eid] = ptr;
      return;
    }
    case "JointMat": {
      // Model, palette, and their last good copy (restored on a fault).
      const bytes = n * MATRIX_FLOATS * 4;
      const ptr = memory.alloc(bytes * JOINT_MAT_BLOCKS);
      const f32 = memory.views().f32;
      for (let m = ptr >> 2; m < (ptr + bytes * JOINT_MAT_BLOCKS) >> 2; m += MATRIX_FLOATS) {
        f32[m] = f32[m + 5] = f32[m + 10] = 1;
      }
      o.matrices[eid] = c.JointMat.modelByteOffset[eid] = ptr;
      c.JointMat.paletteByteOffset[eid] = ptr + bytes;
      return;
    }
    case "Skin": {
      const pending = state.pending.Skin;
      state.pending.Skin = undefined;
      if (!pending) throw addWith(eid, name, "addSkin(world, eid, skin)");
      if (!o.matrices[eid]) {
        throw new ComponentError(eid, name, "the entity needs a JointMat first (addJointMat)");
      }
      const { asset, normals, tangents } = pending;
      const stream = asset.vertexCount * VERTEX_FLOATS * 4;
      const streams = stream * (1 + +normals + +tangents);
      // Linear skins get the kernel's scratch for their palette transposed.
      const columns = asset.method === "linear"
        ? skinInternals(asset).mesh.jointCount * JOINT_COLUMN_BYTES
        : 0;
      const block = memory.alloc(streams + columns);
      lifetimeOf(asset).acquire();
      o.skin[eid] = asset;
      o.skinBlock[eid] = block;
      o.skinColumns[eid] = columns ? block + streams : 0;
      (c.Skin.asset as unknown[])[eid] = asset;
      c.Skin.vertexCount[eid] = asset.vertexCount;
      c.Skin.positionsByteOffset[eid] = block;
      o.skinNormals[eid] = c.Skin.normalsByteOffset[eid] = normals ? block + stream : 0;
      o.skinTangents[eid] = c.Skin.tangentsByteOffset[eid] = tangents
        ? block + stream * (1 + +normals)
        : 0;
      c.Skin.maxInfluences[eid] = 0;
      return;
    }
    case "IK": {
      const chain = state.pending.IK;
      state.pending.IK = undefined;
      if (!chain) throw addWith(eid, name, "addTwoBoneIK or addAimIK");
      if (!o.matrices[eid]) {
        throw new ComponentError(eid, name, "the entity needs a JointMat first (addJointMat)");
      }
      o.ik[eid] = [chain];
      c.IK.chainCount[eid] = 1;
      return;
    }
    case "ClipPlayer": {
      const playback = state.pending.ClipPlayer;
      state.pending.ClipPlayer = undefined;
      if (!playback) throw addWith(eid, name, "playClip(world, eid, clip)");
      if (!o.pose[eid]) {
        throw new ComponentError(eid, name, "the entity needs a JointQuat first (addJointQuat)");
      }
      const scratch = memory.alloc(poseFloats(n) * 4);
      playback.sampler = new ClipSampler(playback.compact, memory);
      o.player[eid] = { current: playback, next: undefined, fade: 0, fadeDuration: 0, scratch };
      (c.ClipPlayer.clipName as unknown[])[eid] = playback.clip.name;
      c.ClipPlayer.time[eid] = playback.time;
      c.ClipPlayer.speed[eid] = playback.speed;
      return;
    }
  }
}

function addWith(eid: number, name: ComponentName, how: string): ComponentError {
  return new ComponentError(eid, name, `add it with ${how}, which gives it its data`);
}

/** @internal Checks the entity exists in `world`, or a ComponentError. */
export function checkEntity(world: object, eid: number, component: ComponentName): void {
  if (!Number.isInteger(eid) || eid < 0 || !entityExists(world, eid)) {
    throw new ComponentError(eid, component, "the entity does not exist in this world");
  }
}
