/**
 * What the sample clips system reports besides poses: the markers each
 * playback crossed in the frame, and the root motion it extracts.
 *
 * @module
 */

import type { PlayerState } from "../components/_world.ts";
import { anyMarkers, crossMarkers } from "../animation/markers.ts";
import { addRootMotion, removeRootMotion } from "../animation/_root_motion.ts";
import { poseFloats } from "../simd/layout.ts";
import type { CoreMemory } from "../simd/_memory.ts";
import { extrasOf } from "../components/root_motion.ts";
import type { PlaybackStep } from "./_layers.ts";

/**
 * Records the frame's `steps` of `player`: the markers they crossed, and
 * its root motion (weighted as the pose blends the playbacks). Returns
 * whether the pose needs its root motion removed.
 */
export function recordSteps(
  memory: CoreMemory,
  player: PlayerState,
  steps: readonly PlaybackStep[],
): boolean {
  if (player.extras) player.extras.hits.length = 0;
  for (const step of steps) {
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
  // Each layer's weight at the root: its weight times its effective mask.
  const f32 = memory.f32;
  const rootWeight = (layer: number) =>
    layers ? layers[layer].weight * f32[(layers[layer].maskPtr >> 2) + root] : 1;
  let total = 0;
  if (layers) {
    for (let i = 0; i < layers.length; i++) {
      if (layers[i].mode === "override") total += rootWeight(i);
    }
  }
  const norm = layers ? Math.max(total, player.stack!.threshold) : 1;
  for (const step of steps) {
    const additive = layers?.[step.layer].mode === "additive";
    const weight = step.share * rootWeight(step.layer) / (additive ? 1 : norm);
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

/** Takes the root motion out of the entity's sampled pose. */
export function extractRootMotion(
  memory: CoreMemory,
  player: PlayerState,
  pose: number,
  joints: number,
): void {
  const motion = player.extras!.rootMotion!;
  const view = memory.f32.subarray(pose >> 2, (pose >> 2) + poseFloats(joints));
  removeRootMotion(view, motion.joint, motion.rest);
}
