/**
 * What the sample clips system reports besides poses: the markers each
 * playback crossed in the frame, and the root motion it extracts.
 *
 * @module
 */

import type { PlayerState } from "../components/_world.ts";
import type { Layer } from "../components/_layers.ts";
import { anyMarkers, crossMarkers } from "../animation/markers.ts";
import { addRootMotion, removeRootMotion } from "../animation/_root_motion.ts";
import type { CoreMemory } from "../simd/_memory.ts";
import { extrasOf } from "../components/root_motion.ts";
import type { PlaybackSteps } from "./_layers.ts";

/**
 * Records the frame's `steps` of `player`: the markers they crossed, and
 * its root motion (weighted as the pose blends the playbacks). Returns
 * whether the pose needs its root motion removed.
 */
export function recordSteps(
  memory: CoreMemory,
  player: PlayerState,
  steps: PlaybackSteps,
): boolean {
  if (player.extras) player.extras.hits.length = 0;
  for (let i = 0; i < steps.count; i++) {
    const step = steps.at(i);
    if (step.fires && anyMarkers(step.clip)) {
      crossMarkers(
        step.clip,
        step.playback.wrap,
        step.from,
        step.to,
        step.layer,
        extrasOf(player).hits,
      );
    }
  }
  const motion = player.extras?.rootMotion;
  if (!motion) return false;
  const delta = motion.delta, root = motion.joint;
  delta.fill(0);
  const layers = player.stack?.layers;
  const f32 = memory.f32;
  let total = 0;
  if (layers) {
    for (let i = 0; i < layers.length; i++) {
      if (layers[i].mode === "override") total += rootWeight(f32, layers, i, root);
    }
  }
  const norm = layers ? Math.max(total, player.stack!.threshold) : 1;
  for (let i = 0; i < steps.count; i++) {
    const step = steps.at(i);
    const additive = layers?.[step.layer].mode === "additive";
    const weight = step.share * rootWeight(f32, layers, step.layer, root) / (additive ? 1 : norm);
    if (weight === 0) continue;
    addRootMotion(
      step.clip,
      root,
      step.playback.wrap,
      step.from,
      step.to,
      motion.rest,
      weight,
      delta,
    );
  }
  return true;
}

/** Layer `layer`'s weight at the root joint: its weight times its effective mask (1 without layers). */
function rootWeight(
  f32: Float32Array,
  layers: readonly Layer[] | undefined,
  layer: number,
  root: number,
): number {
  return layers ? layers[layer].weight * f32[(layers[layer].maskPtr >> 2) + root] : 1;
}

/** Takes the root motion out of the entity's sampled pose. */
export function extractRootMotion(
  memory: CoreMemory,
  player: PlayerState,
  pose: number,
): void {
  const motion = player.extras!.rootMotion!;
  // In place in the core's view (a subarray per entity would be garbage every frame).
  removeRootMotion(memory.f32, motion.joint, motion.rest, pose >> 2);
}
