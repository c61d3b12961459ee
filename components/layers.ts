/**
 * Animation layers: an entity plays several clips at once, each on a layer
 * with a weight (fadable over time), an optional joint mask, and a mode.
 * Layer 0 is the ClipPlayer's own (`playClip`, `crossFadeTo`); layers added
 * with {@linkcode addLayer} or {@linkcode addLocomotionLayer} come after it.
 *
 * - **Blend** layers (layer 0 always; others with `mode: "blend"`)
 *   average as ozz-animation's BlendingJob does: per joint, the weighted
 *   average of every blend layer (weight × mask), with the rest pose
 *   filling in where the total weight is below the entity's threshold
 *   ({@linkcode setBlendThreshold}, default 0.1), so a lone layer at weight
 *   0.5 is not pulled halfway to the rest pose. three.js fills up to 1
 *   instead: threshold 1 gives its behaviour. A cross-fade is a blend of
 *   two clips on layer 0.
 * - **Override** layers (the default of {@linkcode addLayer}) then apply on
 *   top, in layer order, as Unity's override layers and Unreal's layered
 *   blend per bone: each replaces what is below it by weight × mask, per
 *   joint (1: the layer's pose; 0.5: halfway, translations and scales
 *   lerped, rotations nlerped along the shorter arc).
 * - **Additive** layers, in the same order, add their clip's difference
 *   from a reference pose (by default the clip's first frame, as three.js
 *   `AnimationUtils.makeClipAdditive`), scaled by weight × mask: a breath,
 *   a flinch, a lean, on top of whatever plays below them.
 *
 * A layer only affects the joints its clips animate (three.js leaves a
 * property an action has no track for to the other actions); the rest
 * pose fills joints no layer animates.
 *
 * The sample clips system samples all layers of all entities in one call
 * into the core (each layer playback through its own sampler, from the
 * clip's compact form) and blends them in a second.
 *
 * @module
 */

import type { Clip } from "../animation/clip.ts";
import { sampleCompactPose } from "../animation/internal.ts";
import { checkedMask } from "../animation/joint_mask.ts";
import { type MarkerHit, NO_HITS } from "../animation/markers.ts";
import { poseFloats } from "../simd/memory/layout.ts";
import { checkedPlayer } from "./clip_player.ts";
import { checkedSkeleton } from "./skeleton.ts";
import { allocateLayer, type LayerMode, releaseLayer, startLayer } from "./_layers.ts";
import {
  checkRoom,
  checkWeight,
  existingLayer,
  fail,
  layerOf,
  pushLayer,
  stackOf,
} from "./_layer_access.ts";
import { stateOf } from "./_lifecycle.ts";
import { makePlayback, type PlaybackOptions } from "./clip_player.ts";
import { guardBuilds, settleBuilds } from "../animation/internal.ts";
import { describeValue } from "../simd/memory/internal.ts";

export type { LayerMode } from "./_layers.ts";
export { MAX_LAYERS } from "./_layers.ts";

/** How a layer plays and blends. */
export interface LayerOptions extends PlaybackOptions {
  /** Weight in [0, 1]. Default 1. */
  readonly weight?: number;
  /**
   * `"override"` (default: replaces the layers below by weight × mask),
   * `"blend"` (averaged with layer 0 and the other blend layers) or
   * `"additive"`.
   */
  readonly mode?: LayerMode;
  /** Per-joint weights in [0, 1], one per joint (`jointMask`). Default: every joint 1. */
  readonly mask?: ArrayLike<number>;
  /**
   * Additive layers: what the clip is relative to, a clip time in seconds
   * (default 0: its first frame) or a pose (SoA×4, `poseFloats(jointCount)`
   * floats).
   */
  readonly reference?: number | Float32Array;
}

/** A layer as {@linkcode getLayers} reports it. */
export interface LayerInfo {
  /** The clip playing (layer 0: the one fading out during a cross-fade; a locomotion layer: its first). */
  readonly clip: Clip;
  /** `"blend"` (layer 0's), `"override"` or `"additive"`. */
  readonly mode: LayerMode;
  /** Current weight. */
  readonly weight: number;
  /** Playback time in seconds, before wrapping (a locomotion layer: its phase in cycles). */
  readonly time: number;
}

/**
 * Adds a layer playing `clip` on entity `eid` (which plays clips:
 * `playClip` first) on top of its layers; returns its index. Throws what
 * `playClip` throws for the clip and options, a `RangeError` for a bad
 * weight, mode, mask or reference, or beyond {@linkcode MAX_LAYERS};
 * nothing is changed when it throws.
 */
export function addLayer(
  world: object,
  eid: number,
  clip: Clip,
  options: LayerOptions = {},
): number {
  const mark = guardBuilds();
  let failed = true;
  try {
    const result = addLayerUnguarded(world, eid, clip, options);
    failed = false;
    return result;
  } finally {
    settleBuilds(mark, failed);
  }
}

function addLayerUnguarded(
  world: object,
  eid: number,
  clip: Clip,
  options: LayerOptions,
): number {
  const state = stateOf(world, "addLayer", eid);
  const player = checkedPlayer(state, eid);
  const skeleton = checkedSkeleton(state, eid);
  const n = skeleton.jointCount;
  const weight = checkWeight(eid, "addLayer", options?.weight ?? 1);
  const mode = options?.mode ?? "override";
  if (mode !== "override" && mode !== "blend" && mode !== "additive") {
    throw fail(
      eid,
      "addLayer",
      `mode: expected "override", "blend" or "additive", got ${describeValue(mode)}`,
    );
  }
  const mask = options?.mask === undefined
    ? undefined
    : checkedMask(options.mask, n, `entity ${describeValue(eid)}: addLayer: mask`);
  let reference: Float32Array | undefined, referenceTime: number | undefined;
  if (mode === "additive") {
    const ref = options?.reference ?? 0;
    if (typeof ref === "number") {
      if (!Number.isFinite(ref)) throw fail(eid, "addLayer", `reference: time is ${ref}`);
      referenceTime = ref;
    } else {
      if (!(ref instanceof Float32Array) || ref.length !== poseFloats(n)) {
        throw fail(
          eid,
          "addLayer",
          `reference: expected a time or a pose of ${poseFloats(n)} floats`,
        );
      }
      const bad = ref.findIndex((v) => !Number.isFinite(v));
      if (bad >= 0) throw fail(eid, "addLayer", `reference[${bad}] is ${ref[bad]}`);
      reference = ref;
    }
  } else if (options?.reference !== undefined) {
    throw fail(eid, "addLayer", "reference: only additive layers have one");
  }
  checkRoom(eid, player, "addLayer");
  const playback = makePlayback(world, state, eid, clip, options);
  if (referenceTime !== undefined) {
    // The compact form's pose, as the layer plays it: it adds nothing at that time.
    reference = skeleton.restPose;
    try {
      sampleCompactPose(clip, skeleton, referenceTime, reference);
    } catch (e) {
      playback.sampler?.release();
      throw e;
    }
  }
  const memory = state.resources.memory;
  const layer = allocateLayer(memory, n, {
    playback,
    blend: undefined,
    mode,
    weight,
    target: weight,
    rate: 0,
    referenceTime: referenceTime ?? 0,
    mask,
  });
  startLayer(memory, layer);
  if (reference) {
    memory.views().f32.set(reference.subarray(0, poseFloats(n)), layer.reference >> 2);
  }
  return pushLayer(state, eid, layer);
}

/**
 * Sets layer `layer`'s weight (in [0, 1]) now, or fades it there over
 * `fadeSeconds` (finite, >= 0). Layer 0 is the ClipPlayer's.
 */
export function setLayerWeight(
  world: object,
  eid: number,
  layer: number,
  weight: number,
  fadeSeconds = 0,
): void {
  const state = stateOf(world, "setLayerWeight", eid);
  // The arguments before the layer: a refused call makes no layer stack.
  weight = checkWeight(eid, "setLayerWeight", weight);
  if (typeof fadeSeconds !== "number" || !(fadeSeconds >= 0 && fadeSeconds < Infinity)) {
    throw fail(
      eid,
      "setLayerWeight",
      `fadeSeconds: expected a finite number >= 0, got ${describeValue(fadeSeconds)}`,
    );
  }
  const target = layerOf(state, eid, layer, "setLayerWeight");
  target.target = weight;
  const rate = Math.abs(weight - target.weight) / fadeSeconds;
  // A fade too short for its rate to be finite is instant: an infinite
  // rate times a frame of 0 s would make the weight NaN.
  if (fadeSeconds > 0 && rate < Infinity) {
    target.rate = rate;
  } else {
    target.weight = weight;
  }
}

/** Sets (or with `undefined`, removes) layer `layer`'s joint mask: one weight in [0, 1] per joint. */
export function setLayerMask(
  world: object,
  eid: number,
  layer: number,
  mask: ArrayLike<number> | undefined,
): void {
  const state = stateOf(world, "setLayerMask", eid);
  // The mask before the layer: a refused call makes no layer stack.
  const n = checkedSkeleton(state, eid).jointCount;
  const checked = mask === undefined
    ? undefined
    : checkedMask(mask, n, `entity ${describeValue(eid)}: setLayerMask: mask`);
  layerOf(state, eid, layer, "setLayerMask").mask = checked;
}

/**
 * Seeks layer `layer` (1 and up; layer 0's time and speed are the
 * ClipPlayer store's) to `time` seconds, and sets its speed if given.
 */
export function setLayerTime(
  world: object,
  eid: number,
  layer: number,
  time: number,
  speed?: number,
): void {
  const state = stateOf(world, "setLayerTime", eid);
  const target = existingLayer(state, eid, layer, "setLayerTime");
  if (!target?.playback) {
    throw fail(eid, "setLayerTime", `layer ${describeValue(layer)} has no clip of its own`);
  }
  if (typeof time !== "number" || !Number.isFinite(time)) {
    throw fail(eid, "setLayerTime", `time: expected a finite number, got ${describeValue(time)}`);
  }
  if (speed !== undefined && (typeof speed !== "number" || !Number.isFinite(speed))) {
    throw fail(eid, "setLayerTime", `speed: expected a finite number, got ${describeValue(speed)}`);
  }
  target.playback.time = time;
  if (speed !== undefined) target.playback.speed = speed;
}

/**
 * Least blend threshold the blend uses: {@linkcode setBlendThreshold}
 * raises a smaller one to it. The blend divides by the total weight, which
 * the rest pose fills up to the threshold, and normalizes a rotation summed
 * with that weight: below about 1e-19 its squared length underflows float32
 * (a threshold of 1e-22 moved a character 0.18 m, 1e-40 gave NaN), and
 * below float32's precision the threshold means nothing anyway.
 */
export const MIN_BLEND_THRESHOLD = 1e-6;

/**
 * Sets the total weight below which the rest pose fills in (in (0, 1];
 * default 0.1, ozz-animation's; 1 blends as three.js's mixer does). A
 * threshold below {@linkcode MIN_BLEND_THRESHOLD} is raised to it; one
 * outside (0, 1] is a `RangeError` naming the argument.
 */
export function setBlendThreshold(world: object, eid: number, threshold: number): void {
  const state = stateOf(world, "setBlendThreshold", eid);
  if (typeof threshold !== "number" || !(threshold > 0 && threshold <= 1)) {
    throw fail(
      eid,
      "setBlendThreshold",
      `threshold: expected a number in (0, 1], got ${describeValue(threshold)}`,
    );
  }
  stackOf(state, eid).stack.threshold = Math.max(threshold, MIN_BLEND_THRESHOLD);
}

/** Removes layer `layer` (1 and up); the layers above it move down one index. */
export function removeLayer(world: object, eid: number, layer: number): void {
  const state = stateOf(world, "removeLayer", eid);
  existingLayer(state, eid, layer, "removeLayer");
  if (layer === 0) throw fail(eid, "removeLayer", "layer 0 is the ClipPlayer's (removeClipPlayer)");
  const { stack } = stackOf(state, eid);
  const [removed] = stack.layers.splice(layer, 1);
  releaseLayer(state.resources.memory, removed);
}

/**
 * Entity `eid`'s layers, layer 0 first. Given `out`, writes them there
 * (its length set to the layer count, its objects reused, new ones only for
 * layers it had no object for) and returns it: nothing allocated once it has
 * held as many layers. Else returns a new array.
 */
export function getLayers(world: object, eid: number, out?: LayerInfo[]): LayerInfo[] {
  const state = stateOf(world, "getLayers", eid);
  const player = checkedPlayer(state, eid);
  const layers = player.stack?.layers;
  const count = layers ? layers.length : 1;
  if (out !== undefined && !Array.isArray(out)) {
    throw new TypeError(`getLayers: out: expected an array, got ${describeValue(out)}`);
  }
  const list = out ?? [];
  if (list.length > count) list.length = count;
  for (let i = 0; i < count; i++) {
    const layer = layers?.[i];
    const clip = i === 0
      ? player.current.clip
      : (layer!.playback ?? layer!.blend!.points[0].playback).clip;
    const mode = i === 0 ? "blend" : layer!.mode;
    const weight = i === 0 ? (layer ? layer.weight : 1) : layer!.weight;
    const time = i === 0
      ? state.components.ClipPlayer.time[eid]
      : layer!.playback
      ? layer!.playback.time
      : layer!.blend!.phase;
    // The out list's objects are rewritten; anything else in it is replaced.
    const info = list[i] as unknown;
    if (i < list.length && typeof info === "object" && info !== null && !Object.isFrozen(info)) {
      const fields = info as { clip: Clip; mode: LayerMode; weight: number; time: number };
      fields.clip = clip, fields.mode = mode, fields.weight = weight, fields.time = time;
    } else list[i] = { clip, mode, weight, time };
  }
  return list;
}

/**
 * The markers entity `eid`'s clips crossed in the last frame, in the order
 * crossed (see `setClipMarkers`). The array and its hits are reused by later frames:
 * read them before the next frame.
 */
export function getCrossedMarkers(world: object, eid: number): readonly MarkerHit[] {
  const state = stateOf(world, "getCrossedMarkers", eid);
  return checkedPlayer(state, eid).extras?.hits.list() ?? NO_HITS;
}
