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

import type { Layer, LayerStack } from "../components/internal.ts";
import { updateMask } from "../components/internal.ts";
import type { JobTable } from "../components/internal.ts";
import type { Playback } from "../components/internal.ts";
import type { PlayerState } from "../components/internal.ts";
import type { Clip } from "../animation/clip.ts";
import {
  JOB_WORDS,
  LAYER_ENTRY_BYTES,
  LAYER_ENTRY_MASK,
  LAYER_ENTRY_POSE,
  LAYER_ENTRY_REFERENCE,
  LAYER_ENTRY_WEIGHT,
  LAYERS_BLEND_COUNT,
  LAYERS_ENTRIES,
  LAYERS_JOINT_COUNT,
  LAYERS_OUT,
  LAYERS_REST,
  LAYERS_THRESHOLD,
  LAYERS_TOP_COUNT,
} from "../simd/abi.ts";
import type { CoreMemory } from "../simd/memory/internal.ts";
import { samplePlayback, type SampleRows } from "./_sample_playback.ts";

/** A playback's step in the frame, and the share of the pose it drives. */
interface PlaybackStep {
  clip: Clip;
  playback: Playback;
  from: number;
  to: number;
  /** Layer index. */
  layer: number;
  /** Its weight inside its layer (cross-fade, 1D blend), 1 otherwise. */
  share: number;
  /** Whether its markers fire (of a 1D blend's two clips, only the heavier's do). */
  fires: boolean;
}

/**
 * An entity's steps of the frame, in step objects kept from frame to frame
 * (one list for the system: a frame allocates nothing once it has held as
 * many steps as the most an entity takes).
 */
export class PlaybackSteps {
  /** Steps `0 .. count - 1` are this entity's. */
  count = 0;
  readonly #steps: PlaybackStep[] = [];

  /** Step `i` (below `count`). */
  at(i: number): PlaybackStep {
    return this.#steps[i];
  }

  /**
   * Adds a step and returns it for the caller to set `from`, `to` and
   * `share`: doubles are stored, not passed, since an argument of a call
   * the compiler does not inline is boxed (a 16-byte heap number each).
   */
  add(clip: Clip, playback: Playback, layer: number, fires: boolean): PlaybackStep {
    let step = this.#steps[this.count];
    if (step === undefined) {
      this.#steps.push(step = { clip, playback, from: 0.5, to: 0.5, layer, share: 0.5, fires });
    }
    step.clip = clip, step.playback = playback, step.layer = layer, step.fires = fires;
    this.count++;
    return step;
  }
}

/**
 * Where the stage writes: sampling rows, layer entries and layer jobs; and
 * the entity's player time (a field, not an argument: see
 * {@linkcode PlaybackSteps.add}).
 */
export interface LayerOutput {
  memory: CoreMemory;
  /** The entity's ClipPlayer time this frame. */
  time: number;
  readonly rows: SampleRows;
  entries: JobTable;
  jobs: JobTable;
}

/** Sampling rows an entity's layers need at most, for sizing the table (one entry per layer). */
export function layerRows(player: PlayerState): number {
  const layers = player.stack!.layers;
  let rows = 2;
  for (let i = 0; i < layers.length; i++) rows += layers[i].blend ? 2 : 1;
  return rows;
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
 * Not `sample` (level of detail): advances the layers, samples and blends nothing.
 */
export function writeLayers(
  out: LayerOutput,
  player: PlayerState,
  stack: LayerStack,
  joints: number,
  pose: number,
  dt: number,
  steps: PlaybackSteps,
  sample: boolean,
): void {
  const memory = out.memory, rows = out.rows;
  const base = stack.layers[0];
  fade(base, dt);
  const next = player.next;
  rows.time = out.time;
  if (sample) samplePlayback(rows, player.current, base.block);
  if (sample && next) {
    rows.time = next.time, rows.weight = player.fade;
    samplePlayback(rows, next, player.scratch, base.block);
  }
  updateMask(memory, base, player.current.clip, next?.clip, joints);
  for (let i = 1; i < stack.layers.length; i++) {
    const layer = stack.layers[i];
    fade(layer, dt);
    if (layer.playback) {
      const p = layer.playback, from = p.time;
      p.time += dt * p.speed;
      const step = steps.add(p.clip, p, i, true);
      step.from = from, step.to = p.time, step.share = 1;
      if (sample && layer.weight > 0) {
        rows.time = p.time;
        samplePlayback(rows, p, layer.block);
      }
      updateMask(memory, layer, p.clip, undefined, joints);
    } else if (layer.blend) {
      const blend = layer.blend, points = blend.points;
      let k = 0;
      while (k < points.length - 2 && blend.parameter > points[k + 1].at) k++;
      const a = points[k].playback, b = points[Math.min(k + 1, points.length - 1)].playback;
      const span = points[Math.min(k + 1, points.length - 1)].at - points[k].at;
      const alpha = span > 0
        ? Math.min(1, Math.max(0, (blend.parameter - points[k].at) / span))
        : 0;
      blend.lower = k, blend.alpha = alpha;
      const cycle = a.clip.duration * (1 - alpha) + b.clip.duration * alpha;
      const from = blend.phase;
      blend.phase += cycle > 0 ? (dt * blend.speed) / cycle : 0;
      a.time = blend.phase * a.clip.duration;
      const stepA = steps.add(a.clip, a, i, alpha < 0.5);
      stepA.from = from * a.clip.duration, stepA.to = a.time, stepA.share = 1 - alpha;
      b.time = blend.phase * b.clip.duration;
      // `b` may be `a` (a one-clip blend): its markers fire as `a`'s.
      const stepB = steps.add(b.clip, b, i, b === a ? alpha < 0.5 : alpha >= 0.5);
      stepB.from = from * b.clip.duration, stepB.to = b.time, stepB.share = alpha;
      if (sample && layer.weight > 0) {
        rows.time = a.time;
        samplePlayback(rows, a, layer.block);
        rows.time = b.time, rows.weight = alpha;
        samplePlayback(rows, b, blend.scratch, layer.block);
      }
      updateMask(memory, layer, a.clip, b.clip, joints);
    }
  }
  if (sample) writeJob(out, stack, joints, pose);
}

/** Writes the entries of `stack`'s blend layers, or (`onTop`) the others in order; returns how many. */
function writeEntries(out: LayerOutput, stack: LayerStack, onTop: boolean): number {
  const { u32, f32 } = out.memory;
  let written = 0;
  for (let i = 0; i < stack.layers.length; i++) {
    const layer = stack.layers[i];
    if ((layer.mode !== "blend") !== onTop || layer.weight === 0) continue;
    const at = (out.entries.ptr + out.entries.count++ * LAYER_ENTRY_BYTES) >> 2;
    u32[at + LAYER_ENTRY_POSE] = layer.block, u32[at + LAYER_ENTRY_MASK] = layer.maskPtr;
    f32[at + LAYER_ENTRY_WEIGHT] = layer.weight, u32[at + LAYER_ENTRY_REFERENCE] = layer.reference;
    written++;
  }
  return written;
}

/**
 * The entity's `blendLayers` job: the blend layers first (averaged), then
 * the override and additive layers in layer order (an override entry has no
 * reference).
 */
function writeJob(out: LayerOutput, stack: LayerStack, joints: number, pose: number): void {
  const { u32, f32 } = out.memory;
  const first = out.entries.count;
  const blends = writeEntries(out, stack, false);
  const tops = writeEntries(out, stack, true);
  const at = (out.jobs.ptr >> 2) + out.jobs.count++ * JOB_WORDS;
  u32[at + LAYERS_OUT] = pose, u32[at + LAYERS_JOINT_COUNT] = joints;
  u32[at + LAYERS_REST] = stack.rest;
  u32[at + LAYERS_ENTRIES] = out.entries.ptr + first * LAYER_ENTRY_BYTES;
  u32[at + LAYERS_BLEND_COUNT] = blends, u32[at + LAYERS_TOP_COUNT] = tops;
  f32[at + LAYERS_THRESHOLD] = stack.threshold;
}
