/**
 * What the sample clips system reports besides poses: the markers each
 * playback crossed in the frame, and the root motion it extracts.
 *
 * @module
 */

import type { PlayerState } from "../components/internal.ts";
import { anyMarkers, crossMarkers } from "../animation/markers.ts";
import { addRootMotion, removeRootMotion } from "../animation/internal.ts";
import type { CoreMemory } from "../simd/memory/internal.ts";
import { extrasOf } from "../components/root_motion.ts";
import type { PlaybackSteps } from "./_layers.ts";
import { MAX_LAYERS } from "../components/internal.ts";

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
  player.extras?.hits.clear();
  for (let i = 0; i < steps.count; i++) {
    const step = steps.at(i);
    if (step.fires && anyMarkers(step.clip)) {
      crossMarkers(step.clip, step.playback.wrap, step, step.layer, extrasOf(player).hits);
    }
  }
  const motion = player.extras?.rootMotion;
  if (!motion) return false;
  const delta = motion.delta, root = motion.joint;
  delta.fill(0);
  const layers = player.stack?.layers;
  const shares = layerShares(memory, player, root);
  for (let i = 0; i < steps.count; i++) {
    const step = steps.at(i);
    const weight = step.share * (layers ? shares[step.layer] : 1);
    if (weight === 0) continue;
    rootStep[0] = step.from, rootStep[1] = step.to, rootStep[2] = weight;
    addRootMotion(step.clip, root, step.playback.wrap, rootStep, motion.rest, delta);
  }
  return true;
}

const shareScratch = new Float64Array(MAX_LAYERS);

/** A step's times and weight for `addRootMotion` (as arguments, doubles would be boxed). */
const rootStep = new Float64Array(3);

/**
 * How much of the root's pose each layer drives, as the layer blend weighs
 * it (reused array, one entry per layer): a blend layer its weight × mask
 * over the blend layers' total (at least the threshold); then, in layer
 * order, an override layer its weight × mask `a`, everything below it
 * scaled by `1 - a`; an additive layer its weight × mask.
 */
function layerShares(memory: CoreMemory, player: PlayerState, root: number): Float64Array {
  const layers = player.stack?.layers;
  if (!layers) return shareScratch;
  const f32 = memory.f32;
  let total = 0;
  for (let i = 0; i < layers.length; i++) {
    const layer = layers[i];
    shareScratch[i] = layer.weight * f32[(layer.maskPtr >> 2) + root];
    if (layer.mode === "blend") total += shareScratch[i];
  }
  const norm = Math.max(total, player.stack!.threshold);
  for (let i = 0; i < layers.length; i++) {
    if (layers[i].mode === "blend") shareScratch[i] /= norm;
  }
  for (let i = 0; i < layers.length; i++) {
    if (layers[i].mode !== "override") continue;
    const keep = 1 - shareScratch[i];
    for (let k = 0; k < layers.length; k++) {
      if (k !== i && (layers[k].mode === "blend" || k < i)) shareScratch[k] *= keep;
    }
  }
  return shareScratch;
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
