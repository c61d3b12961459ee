/**
 * Checked access to an entity's layers for the layer functions: the layer
 * stack (created on first use), a layer by index, and the argument checks
 * they share.
 *
 * @module
 */

import { poseFloats } from "../simd/memory/layout.ts";
import { checkedPlayer } from "./clip_player.ts";
import { checkedSkeleton } from "./skeleton.ts";
import { allocateLayer, type Layer, type LayerStack, MAX_LAYERS, releaseLayer } from "./_layers.ts";
import type { PlayerState } from "./_playbacks.ts";
import type { WorldState } from "./registry.ts";
import { skeletonInternals } from "../animation/internal.ts";
import { describeValue } from "../simd/memory/internal.ts";

/** @internal A RangeError naming the entity and the function. */
export function fail(eid: number, caller: string, what: string): RangeError {
  return new RangeError(`entity ${describeValue(eid)}: ${caller}: ${what}`);
}

/** @internal A layer weight, checked to be in [0, 1]; one too small for float32 becomes 0. */
export function checkWeight(eid: number, caller: string, weight: unknown): number {
  if (typeof weight !== "number" || !(weight >= 0 && weight <= 1)) {
    throw fail(eid, caller, `weight: expected a number in [0, 1], got ${describeValue(weight)}`);
  }
  // A weight float32 holds only as a subnormal (or not at all) weighs nothing.
  return weight < MIN_NORMAL_FLOAT32 ? 0 : weight;
}

/** The least normal float32, 2^-126: smaller weights are flushed to 0. */
const MIN_NORMAL_FLOAT32 = 2 ** -126;

/** The entity's player and layer stack, the stack created (layer 0 only) on first use. */
export function stackOf(
  state: WorldState,
  eid: number,
): { player: PlayerState; stack: LayerStack } {
  const player = checkedPlayer(state, eid);
  if (!player.stack) {
    const skeleton = checkedSkeleton(state, eid);
    const memory = state.resources.memory;
    const floats = poseFloats(skeleton.jointCount);
    const rest = memory.alloc(floats * 4);
    try {
      memory.views().f32.set(skeletonInternals(skeleton).restPose, rest >> 2);
      const base = allocateLayer(memory, skeleton.jointCount, {
        playback: undefined,
        blend: undefined,
        mode: "blend",
        weight: 1,
        target: 1,
        rate: 0,
        referenceTime: 0,
        mask: undefined,
      });
      player.stack = { layers: [base], rest, threshold: 0.1 };
      state.resources.layerStacks++;
    } catch (e) {
      memory.free(rest);
      throw e;
    }
  }
  return { player, stack: player.stack };
}

/**
 * Layer `layer` of the entity, or a RangeError naming it; undefined for
 * layer 0 of an entity that has no layer stack yet (none is made: a call
 * that refuses layer 0 leaves nothing behind).
 */
export function existingLayer(
  state: WorldState,
  eid: number,
  layer: number,
  caller: string,
): Layer | undefined {
  const stack = checkedPlayer(state, eid).stack, count = stack?.layers.length ?? 1;
  if (!Number.isInteger(layer) || layer < 0 || layer >= count) {
    throw fail(eid, caller, `layer: no layer ${describeValue(layer)} (the entity has ${count})`);
  }
  return stack?.layers[layer];
}

/** Layer `layer` of the entity (its stack made on first use), or a RangeError naming it. */
export function layerOf(state: WorldState, eid: number, layer: number, caller: string): Layer {
  return existingLayer(state, eid, layer, caller) ?? stackOf(state, eid).stack.layers[layer];
}

/**
 * Puts `layer` (allocated and started) on top of the entity's layers, the
 * stack made if it has none; returns its index. The last step of adding a
 * layer, after everything that may refuse: a refused call makes no stack
 * (while the world has none, the sampling system reads no player's
 * layers). If the stack cannot be made, the layer is released.
 */
export function pushLayer(state: WorldState, eid: number, layer: Layer): number {
  let stack: LayerStack;
  try {
    stack = stackOf(state, eid).stack;
  } catch (e) {
    releaseLayer(state.resources.memory, layer);
    throw e;
  }
  stack.layers.push(layer);
  return stack.layers.length - 1;
}

/** A RangeError naming the entity when the player has {@linkcode MAX_LAYERS} layers already. */
export function checkRoom(eid: number, player: PlayerState, caller: string): void {
  if ((player.stack?.layers.length ?? 1) >= MAX_LAYERS) {
    throw fail(eid, caller, `the entity has ${MAX_LAYERS} layers already`);
  }
}
