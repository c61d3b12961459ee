/**
 * Locomotion layers: a 1D blend of cycles (idle, walk, run) by a parameter
 * (a speed), their normalized times kept in phase so that feet do not
 * slide. A locomotion layer is a layer like the others
 * (`components/layers.ts`): it has a weight, a mask and a mode (`"blend"`
 * or `"override"`).
 *
 * @module
 */

import type { Clip } from "../animation/clip.ts";
import { checkedMask } from "../animation/joint_mask.ts";
import { poseFloats } from "../simd/memory/layout.ts";
import { checkedPlayer } from "./clip_player.ts";
import { checkedSkeleton } from "./skeleton.ts";
import { allocateLayer, MAX_LAYERS, startLayer } from "./_layers.ts";
import { checkRoom, checkWeight, existingLayer, fail, pushLayer } from "./_layer_access.ts";
import { stateOf } from "./_lifecycle.ts";
import { makePlayback } from "./clip_player.ts";
import { guardBuilds, settleBuilds } from "../animation/internal.ts";
import { describeValue } from "../simd/memory/internal.ts";

/** One clip of a locomotion blend, at its place on the parameter's axis. */
export interface LocomotionPoint {
  /** The clip (a cycle: walk, run). */
  readonly clip: Clip;
  /** The parameter value (a speed) at which it plays alone. */
  readonly at: number;
}

/** How a locomotion layer plays. */
export interface LocomotionOptions {
  /** Initial parameter. Default: the first point's. */
  readonly parameter?: number;
  /** Weight in [0, 1]. Default 1. */
  readonly weight?: number;
  /** Per-joint weights (`jointMask`). */
  readonly mask?: ArrayLike<number>;
  /** Playback rate of the blended cycle. Default 1. */
  readonly speed?: number;
  /**
   * `"blend"` (default: averaged with layer 0 and the other blend layers)
   * or `"override"` (replaces what is below it by weight × mask).
   */
  readonly mode?: "blend" | "override";
}

/**
 * Adds a locomotion layer: a 1D blend of cycles placed along a parameter
 * (idle at 0, walk at 1.4, run at 4 m/s), of which the two around the
 * parameter play, blended by where it falls between them. Their normalized
 * times stay in phase (a walk's and a run's steps land together), and the
 * blended cycle lasts as long as the blend of their durations. Markers of
 * the heavier of the two fire. Returns the layer's index.
 */
export function addLocomotionLayer(
  world: object,
  eid: number,
  points: readonly LocomotionPoint[],
  options: LocomotionOptions = {},
): number {
  const mark = guardBuilds();
  let failed = true;
  try {
    const result = addLocomotionLayerUnguarded(world, eid, points, options);
    failed = false;
    return result;
  } finally {
    settleBuilds(mark, failed);
  }
}

function addLocomotionLayerUnguarded(
  world: object,
  eid: number,
  points: readonly LocomotionPoint[],
  options: LocomotionOptions,
): number {
  const state = stateOf(world, "addLocomotionLayer", eid);
  const player = checkedPlayer(state, eid);
  const n = checkedSkeleton(state, eid).jointCount;
  if (!Array.isArray(points) || points.length < 1 || points.length > MAX_LAYERS) {
    throw fail(eid, "addLocomotionLayer", `points: expected 1 to ${MAX_LAYERS} clips`);
  }
  // Every argument is checked before a clip is built.
  points.forEach((point, i) => {
    if (typeof point?.at !== "number" || !Number.isFinite(point.at)) {
      throw fail(eid, "addLocomotionLayer", `points[${i}].at: expected a finite number`);
    }
  });
  const parameter = options?.parameter ?? Math.min(...points.map((point) => point.at));
  if (typeof parameter !== "number" || !Number.isFinite(parameter)) {
    throw fail(
      eid,
      "addLocomotionLayer",
      `parameter: expected a finite number, got ${describeValue(parameter)}`,
    );
  }
  const speed = options?.speed ?? 1;
  if (typeof speed !== "number" || !Number.isFinite(speed)) {
    throw fail(
      eid,
      "addLocomotionLayer",
      `speed: expected a finite number, got ${describeValue(speed)}`,
    );
  }
  const weight = checkWeight(eid, "addLocomotionLayer", options?.weight ?? 1);
  const mode = options?.mode ?? "blend";
  if (mode !== "blend" && mode !== "override") {
    throw fail(
      eid,
      "addLocomotionLayer",
      `mode: expected "blend" or "override", got ${describeValue(mode)}`,
    );
  }
  const mask = options?.mask === undefined
    ? undefined
    : checkedMask(options.mask, n, `entity ${describeValue(eid)}: addLocomotionLayer: mask`);
  checkRoom(eid, player, "addLocomotionLayer");
  const sorted = points.map((point) => ({
    playback: makePlayback(world, state, eid, point.clip, {}),
    at: point.at,
  })).sort((a, b) => a.at - b.at);
  const memory = state.resources.memory;
  const scratch = memory.alloc(poseFloats(n) * 4);
  let layer;
  try {
    layer = allocateLayer(memory, n, {
      playback: undefined,
      blend: { points: sorted, parameter, phase: 0, speed, scratch, lower: 0, alpha: 0 },
      mode,
      weight,
      target: weight,
      rate: 0,
      referenceTime: 0,
      mask,
    });
  } catch (e) {
    memory.free(scratch);
    throw e;
  }
  startLayer(memory, layer);
  return pushLayer(state, eid, layer);
}

/** Sets a locomotion layer's parameter (a finite number; clamped to the points' range). */
export function setLocomotionParameter(
  world: object,
  eid: number,
  layer: number,
  parameter: number,
): void {
  const state = stateOf(world, "setLocomotionParameter", eid);
  const target = existingLayer(state, eid, layer, "setLocomotionParameter");
  if (!target?.blend) {
    throw fail(
      eid,
      "setLocomotionParameter",
      `layer ${describeValue(layer)} is not a locomotion layer`,
    );
  }
  if (typeof parameter !== "number" || !Number.isFinite(parameter)) {
    throw fail(
      eid,
      "setLocomotionParameter",
      `parameter: expected a finite number, got ${describeValue(parameter)}`,
    );
  }
  target.blend.parameter = parameter;
}
