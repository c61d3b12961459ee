/**
 * Checked access to an entity's layers for the layer functions: the layer
 * stack (created on first use), a layer by index, and the argument checks
 * they share.
 *
 * @module
 */

import { poseFloats } from "../simd/memory/layout.ts";
import { checkedPlayer, CLIP_PLAYER } from "./clip_player.ts";
import { checkedSkeleton } from "./skeleton.ts";
import { allocateLayer, type Layer, type LayerStack, MAX_LAYERS, releaseStack } from "./_layers.ts";
import type { PlayerState } from "./_playbacks.ts";
import type { WorldState } from "./registry.ts";
import { skeletonInternals } from "../animation/internal.ts";

/** @internal A RangeError naming the entity and the function. */
export function fail(eid: number, caller: string, what: string): RangeError {
  return new RangeError(`entity ${eid}: ${caller}: ${what}`);
}

/** @internal A layer weight, checked to be in [0, 1]; one too small for float32 becomes 0. */
export function checkWeight(eid: number, caller: string, weight: unknown): number {
  if (typeof weight !== "number" || !(weight >= 0 && weight <= 1)) {
    throw fail(eid, caller, `weight: expected a number in [0, 1], got ${weight}`);
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
 * @internal Whether entity `eid` has a layer stack now (false when it has
 * no ClipPlayer): what a layer function that may create the stack and then
 * refuse its arguments gives {@linkcode releaseNewStack}.
 */
export function hasStack(state: WorldState, eid: number): boolean {
  return CLIP_PLAYER.recordOf(state).player[eid]?.stack !== undefined;
}

/**
 * @internal After a refused layer call: the layer stack the call created
 * (layer 0 alone) is released, unless the entity had one before (`had`).
 * A refused call leaves nothing behind: no core memory held, and the
 * world's count of stacks unchanged (while it is 0 the sampling system
 * reads no player's layers).
 */
export function releaseNewStack(state: WorldState, eid: number, had: boolean): void {
  const player = CLIP_PLAYER.recordOf(state).player[eid];
  if (had || !player?.stack) return;
  releaseStack(state.resources.memory, player.stack);
  player.stack = undefined;
  state.resources.layerStacks--;
}

/** Layer `layer` of the entity, or a RangeError naming it. */
export function layerOf(state: WorldState, eid: number, layer: number, caller: string): Layer {
  // Checked before the stack is made: a bad index creates nothing.
  const count = checkedPlayer(state, eid).stack?.layers.length ?? 1;
  if (!Number.isInteger(layer) || layer < 0 || layer >= count) {
    throw fail(eid, caller, `layer: no layer ${layer} (the entity has ${count})`);
  }
  return stackOf(state, eid).stack.layers[layer];
}

export function checkRoom(eid: number, stack: LayerStack, caller: string): void {
  if (stack.layers.length >= MAX_LAYERS) {
    throw fail(eid, caller, `the entity has ${MAX_LAYERS} layers already`);
  }
}
