/**
 * The layer stage of the sample clips system: for an entity with layers,
 * advances each layer (time, weight fade, 1D blend phase), writes the
 * `sampleCompactBatch` rows that sample its clips into the layer's pose
 * (a cross-fade's or a 1D blend's second clip blended in by the same
 * row), and one `blendLayersBatch` job that combines the layers into the
 * entity's pose.
 *
 * @module
 */

import type { Layer, LayerStack } from "../components/_layers.ts";
import { updateMask } from "../components/_layers.ts";
import type { JobTable, Playback, PlayerState } from "../components/_world.ts";
import type { Clip } from "../animation/clip.ts";
import { JOB_WORDS, LAYER_ENTRY_BYTES } from "../simd/_abi.ts";
import type { CoreMemory } from "../simd/_memory.ts";
import { samplePlayback, type SampleRows } from "./_sample_playback.ts";

/** A playback's step in the frame, and the share of the pose it drives. */
export interface PlaybackStep {
  readonly clip: Clip;
  readonly playback: Playback;
  readonly from: number;
  readonly to: number;
  /** Layer index. */
  readonly layer: number;
  /** Its weight inside its layer (cross-fade, 1D blend), 1 otherwise. */
  readonly share: number;
  /** Whether its markers fire (of a 1D blend's two clips, only the heavier's do). */
  readonly fires: boolean;
}

/** Where the stage writes: sampling rows, layer entries and layer jobs. */
export interface LayerOutput {
  readonly memory: CoreMemory;
  readonly rows: SampleRows;
  readonly entries: JobTable;
  readonly jobs: JobTable;
}

/** Rows and entries an entity's layers need at most, for sizing the tables. */
export function layerCapacity(player: PlayerState): { rows: number; entries: number } {
  const layers = player.stack?.layers ?? [];
  let rows = 2;
  for (const layer of layers) rows += layer.blend ? 2 : 1;
  return { rows, entries: layers.length };
}

/** Moves a layer's weight toward its target at its fade rate. */
function fade(layer: Layer, dt: number): void {
  if (layer.weight === layer.target) return;
  const step = layer.rate * dt;
  layer.weight = layer.weight < layer.target
    ? Math.min(layer.target, layer.weight + step)
    : Math.max(layer.target, layer.weight - step);
}

/**
 * Advances and samples layers 1 and up of `stack`, and writes the entity's
 * blend job; layer 0 (the player's clips) was advanced by the caller and is
 * sampled here into its layer pose. Pushes every playback's step to `steps`.
 */
export function writeLayers(
  out: LayerOutput,
  player: PlayerState,
  stack: LayerStack,
  time: number,
  joints: number,
  pose: number,
  dt: number,
  steps: PlaybackStep[],
): void {
  const { memory, rows } = out;
  const base = stack.layers[0];
  fade(base, dt);
  const next = player.next;
  samplePlayback(rows, player.current, time, base.block);
  if (next) {
    samplePlayback(rows, next, next.time, player.scratch, {
      into: base.block,
      weight: player.fade,
    });
  }
  updateMask(memory, base, next ? [player.current.clip, next.clip] : [player.current.clip], joints);
  for (let i = 1; i < stack.layers.length; i++) {
    const layer = stack.layers[i];
    fade(layer, dt);
    if (layer.playback) {
      const p = layer.playback, from = p.time;
      p.time += dt * p.speed;
      steps.push({ clip: p.clip, playback: p, from, to: p.time, layer: i, share: 1, fires: true });
      if (layer.weight > 0) samplePlayback(rows, p, p.time, layer.block);
      updateMask(memory, layer, [p.clip], joints);
    } else if (layer.blend) {
      const blend = layer.blend, points = blend.points;
      let k = 0;
      while (k < points.length - 2 && blend.parameter > points[k + 1].at) k++;
      const a = points[k].playback, b = points[Math.min(k + 1, points.length - 1)].playback;
      const span = points[Math.min(k + 1, points.length - 1)].at - points[k].at;
      const alpha = span > 0
        ? Math.min(1, Math.max(0, (blend.parameter - points[k].at) / span))
        : 0;
      const cycle = a.clip.duration * (1 - alpha) + b.clip.duration * alpha;
      const from = blend.phase;
      blend.phase += cycle > 0 ? (dt * blend.speed) / cycle : 0;
      for (const [p, share] of [[a, 1 - alpha], [b, alpha]] as const) {
        const f = from * p.clip.duration, t = blend.phase * p.clip.duration;
        p.time = t;
        const fires = p === a ? alpha < 0.5 : alpha >= 0.5;
        steps.push({ clip: p.clip, playback: p, from: f, to: t, layer: i, share, fires });
      }
      if (layer.weight > 0) {
        samplePlayback(rows, a, a.time, layer.block);
        samplePlayback(rows, b, b.time, blend.scratch, { into: layer.block, weight: alpha });
      }
      updateMask(memory, layer, [a.clip, b.clip], joints);
    }
  }
  writeJob(out, stack, joints, pose);
}

/**
 * The entity's `blendLayers` job: the blend layers first (averaged), then
 * the override and additive layers in layer order (an override entry has no
 * reference).
 */
function writeJob(out: LayerOutput, stack: LayerStack, joints: number, pose: number): void {
  const { u32, f32 } = out.memory;
  const first = out.entries.count;
  let blends = 0;
  for (const onTop of [false, true]) {
    for (const layer of stack.layers) {
      if ((layer.mode !== "blend") !== onTop || layer.weight === 0) continue;
      const at = (out.entries.ptr + out.entries.count++ * LAYER_ENTRY_BYTES) >> 2;
      u32[at] = layer.block, u32[at + 1] = layer.maskPtr;
      f32[at + 2] = layer.weight, u32[at + 3] = layer.reference;
      if (!onTop) blends++;
    }
  }
  const at = (out.jobs.ptr >> 2) + out.jobs.count++ * JOB_WORDS;
  u32[at] = pose, u32[at + 1] = joints, u32[at + 2] = stack.rest;
  u32[at + 3] = out.entries.ptr + first * LAYER_ENTRY_BYTES;
  u32[at + 4] = blends, u32[at + 5] = out.entries.count - first - blends;
  f32[at + 6] = stack.threshold;
}
