/**
 * The ClipPlayer component: an entity plays animation clips (from
 * `importGltf`, or made in code) into its JointQuat, with a time, a speed,
 * looping or clamping, and cross-fades from one clip to another. Needs a
 * Skeleton and a JointQuat. The sample clips system advances and samples
 * every player once per frame; `ClipPlayer.time[eid]` and
 * `ClipPlayer.speed[eid]` are the playing clip's, and yours to write.
 *
 * A clip plays from its compact form in the core's memory (`compactClip`,
 * which also takes build options and reports the clip's size and error),
 * counted against the core's clip budget (`setClipBudget`); `disposeClip`
 * gives the memory back. `createCharacterAssets` builds an imported file's
 * clips; build clips made in code with `prepareClip` at load time, or the
 * first play of each builds it inside the frame (a hitch), which allocates
 * (read views again afterwards). Each playback also holds a small sampling
 * cache in the core.
 *
 * @module
 */

import type { Clip, WrapMode } from "../animation/clip.ts";
import { validateClip } from "../animation/clip_validation.ts";
import { compactClip } from "../animation/compact_clip.ts";
import { ClipSampler } from "../animation/clip_sampler.ts";
import { poseFloats } from "../simd/memory/layout.ts";
import { checkEntity, stateOf } from "./_machinery.ts";
import { addWithData, defineComponent, missing, removeOwn, type StoreOf } from "./_component.ts";
import { objects } from "./_stores.ts";
import type { WorldBase } from "./_world.ts";
import type { Playback } from "./_playback.ts";
import { releaseStack } from "./_layers.ts";
import { ComponentError } from "./errors.ts";
import { guardBuilds, settleBuilds } from "../animation/internal.ts";
import { validateMorphChannels } from "../animation/morph.ts";
import { type PlayerState, retirePlayback, reusePlayback } from "./_playbacks.ts";
import { checkedSkeleton, SKELETON, skeletonOf } from "./skeleton.ts";
import { JOINT_QUAT } from "./joint_quat.ts";
import { describeValue } from "../simd/memory/internal.ts";

/** The ClipPlayer component: an entity plays clips into its JointQuat. Needs Skeleton and JointQuat. */
export interface ClipPlayerComponent {
  /** Name of the clip playing (the one faded to, during a cross-fade). */
  readonly clipName: readonly (string | undefined)[];
  /** Time in seconds of the clip playing, before wrapping; yours to write (seek). */
  readonly time: Float64Array;
  /** Playback rate of the clip playing, negative backwards; yours to write. */
  readonly speed: Float32Array;
}

/** The ClipPlayer's public store, typed: the hot paths read it by name, not through `store`. */
type ClipPlayerStore = StoreOf<typeof CLIP_PLAYER>;

/** @internal The ClipPlayer's definition. */
export const CLIP_PLAYER = defineComponent({
  name: "ClipPlayer",
  needs: [SKELETON, JOINT_QUAT],
  shape: { clipName: objects<string>(), time: Float64Array, speed: Float32Array },
  record: { player: objects<PlayerState>() },
  addedBy: "playClip",
  addWith: "playClip(world, eid, clip)",
  has: (state: WorldBase, eid: number): boolean =>
    CLIP_PLAYER.recordOf(state).player[eid] !== undefined,
  allocate(state: WorldBase, eid: number, playback: Playback | undefined): void {
    const memory = state.resources.memory;
    const scratch = memory.alloc(poseFloats(skeletonOf(state, eid)!.jointCount) * 4);
    playback!.sampler = new ClipSampler(playback!.compact, memory);
    CLIP_PLAYER.recordOf(state).player[eid] = {
      current: playback!,
      next: undefined,
      fade: 0,
      fadeDuration: 0,
      scratch,
      // Declared from the start, as for playbacks: one shape for every player.
      stack: undefined,
      extras: undefined,
      spares: undefined,
    };
    const c = state.components.ClipPlayer as ClipPlayerStore;
    c.clipName[eid] = playback!.clip.name;
    c.time[eid] = playback!.time;
    c.speed[eid] = playback!.speed;
  },
  release(resources, eid): void {
    const o = CLIP_PLAYER.recordOf(resources), player = o.player[eid];
    if (!player) return;
    resources.memory.free(player.scratch);
    if (player.stack) releaseStack(resources.memory, player.stack), resources.layerStacks--;
    player.current.sampler!.release();
    player.next?.sampler?.release();
    for (const spare of player.spares ?? []) spare?.sampler?.release();
    o.player[eid] = undefined;
  },
});

/** @internal The entity's clip players. */
export function checkedPlayer(state: WorldBase, eid: number): PlayerState {
  const player = CLIP_PLAYER.recordOf(state).player[eid];
  if (!player) throw missing(eid, "ClipPlayer");
  return player;
}

/** How a clip plays. */
export interface PlaybackOptions {
  /** Start time in seconds. Default 0. */
  readonly time?: number;
  /** Playback rate; negative plays backwards. Default 1. */
  readonly speed?: number;
  /** `"loop"` (default) wraps time around the clip, `"clamp"` holds its ends. */
  readonly wrap?: WrapMode;
}

/** What an entity is playing, as {@linkcode getPlayback} reports it. */
export interface PlaybackInfo {
  /** The clip playing (fading out, during a cross-fade). */
  readonly clip: Clip;
  /** Its time in seconds, before wrapping. */
  readonly time: number;
  /** The clip fading in, if any. */
  readonly next?: Clip;
  /** The weight of `next`, 0 to 1. */
  readonly fade: number;
}

/**
 * Plays `clip` on entity `eid` from now on, replacing whatever it played
 * (and cancelling a cross-fade). Adds the ClipPlayer component when the
 * entity has none. Needs a Skeleton and a JointQuat; throws a
 * {@linkcode ComponentError} when they are missing or the clip animates a
 * joint the skeleton does not have, a `ClipError` for a clip that
 * `validateClip` refuses (bad key times, values, paths or interpolations), a
 * `ClipBudgetError` for a clip whose compact form would pass the core's clip
 * budget, and a `RangeError` for a bad option. Nothing is changed when it
 * throws.
 */
export function playClip(
  world: object,
  eid: number,
  clip: Clip,
  options?: PlaybackOptions,
): void {
  const mark = guardBuilds();
  let failed = true;
  try {
    playClipUnguarded(world, eid, clip, options);
    failed = false;
  } finally {
    settleBuilds(mark, failed);
  }
}

function playClipUnguarded(
  world: object,
  eid: number,
  clip: Clip,
  options: PlaybackOptions | undefined,
): void {
  const state = stateOf(world, "playClip", eid);
  const player = CLIP_PLAYER.recordOf(state).player[eid];
  const playback = makePlayback(world, state, eid, clip, options, player);
  if (!player) return addWithData(world, state, CLIP_PLAYER, eid, playback);
  const c = state.components.ClipPlayer as ClipPlayerStore;
  playback.sampler ??= new ClipSampler(playback.compact, state.resources.memory);
  retirePlayback(player, player.current);
  if (player.next) retirePlayback(player, player.next);
  player.current = playback;
  player.next = undefined;
  player.fade = 0;
  c.clipName[eid] = clip.name;
  c.time[eid] = playback.time;
  c.speed[eid] = playback.speed;
}

/**
 * Cross-fades entity `eid` from its clip to `clip` over `duration` seconds
 * (finite, >= 0): both play, and the blend weight moves from the old to the
 * new one (rotations by normalized lerp along the shorter arc). Without a
 * clip playing it is {@linkcode playClip}.
 */
export function crossFadeTo(
  world: object,
  eid: number,
  clip: Clip,
  duration: number,
  options?: PlaybackOptions,
): void {
  const mark = guardBuilds();
  let failed = true;
  try {
    crossFadeToUnguarded(world, eid, clip, duration, options);
    failed = false;
  } finally {
    settleBuilds(mark, failed);
  }
}

function crossFadeToUnguarded(
  world: object,
  eid: number,
  clip: Clip,
  duration: number,
  options: PlaybackOptions | undefined,
): void {
  const state = stateOf(world, "crossFadeTo", eid);
  if (typeof duration !== "number" || !Number.isFinite(duration) || duration < 0) {
    throw new RangeError(
      `entity ${describeValue(eid)}: ClipPlayer: fade duration must be a finite number >= 0, got ${
        describeValue(duration)
      }`,
    );
  }
  const player = CLIP_PLAYER.recordOf(state).player[eid];
  if (!player) return playClip(world, eid, clip, options);
  const playback = makePlayback(world, state, eid, clip, options, player);
  playback.sampler ??= new ClipSampler(playback.compact, state.resources.memory);
  const c = state.components.ClipPlayer as ClipPlayerStore;
  if (player.next && player.fade >= 0.5) {
    // The clip fading in already dominates: it becomes the one fading out.
    retirePlayback(player, player.current);
    player.current = player.next;
    c.time[eid] = player.next.time;
    c.speed[eid] = player.next.speed;
  } else if (player.next) {
    retirePlayback(player, player.next);
  }
  player.next = playback;
  player.fade = 0;
  player.fadeDuration = duration;
  c.clipName[eid] = clip.name;
}

/**
 * What entity `eid` plays; a {@linkcode ComponentError} if it plays
 * nothing. Given `out`, writes it there and returns it (nothing
 * allocated), else returns a new object.
 */
export function getPlayback(world: object, eid: number, out?: PlaybackInfo): PlaybackInfo {
  const state = stateOf(world, "getPlayback", eid);
  if (out !== undefined && (typeof out !== "object" || out === null)) {
    throw new TypeError(`getPlayback: out: expected an object, got ${describeValue(out)}`);
  }
  const player = checkedPlayer(state, eid);
  const info = (out ?? { clip: player.current.clip, time: 0, next: undefined, fade: 0 }) as {
    clip: Clip;
    time: number;
    next?: Clip;
    fade: number;
  };
  info.clip = player.current.clip;
  info.time = (state.components.ClipPlayer as ClipPlayerStore).time[eid];
  info.next = player.next?.clip;
  info.fade = player.fade;
  return info;
}

/** Stops entity `eid`'s clips; its pose stays as last sampled. */
export function removeClipPlayer(world: object, eid: number): void {
  removeOwn(world, "removeClipPlayer", CLIP_PLAYER, eid);
}

/**
 * @internal A checked playback of `clip` for entity `eid`, its clip built:
 * one of `player`'s spares, its sampler attached, when it has one; else a
 * new one with no sampler yet (nothing acquired).
 */
export function makePlayback(
  world: object,
  state: WorldBase,
  eid: number,
  clip: Clip,
  options: PlaybackOptions | undefined,
  player?: PlayerState,
): Playback {
  checkEntity(world, eid, "ClipPlayer");
  if (!SKELETON.has(state, eid)) {
    throw new ComponentError(eid, "ClipPlayer", "the entity needs a Skeleton first (addSkeleton)");
  }
  const skeleton = checkedSkeleton(state, eid);
  if (!JOINT_QUAT.has(state, eid)) {
    throw new ComponentError(
      eid,
      "ClipPlayer",
      "the entity needs a JointQuat first (addJointQuat)",
    );
  }
  if (!clip || typeof clip !== "object" || !Array.isArray(clip.channels)) {
    throw new ComponentError(eid, "ClipPlayer", "expected a Clip");
  }
  validateClip(clip);
  validateMorphChannels(clip);
  for (let i = 0; i < clip.channels.length; i++) {
    const channel = clip.channels[i];
    if (
      !(Number.isInteger(channel?.joint) && channel.joint >= 0 &&
        channel.joint < skeleton.jointCount)
    ) {
      throw new ComponentError(
        eid,
        "ClipPlayer",
        `clip "${clip.name}" channel ${i} animates joint ${channel?.joint}, but the skeleton has ${skeleton.jointCount} joints`,
      );
    }
  }
  const time = options?.time ?? 0, speed = options?.speed ?? 1, wrap = options?.wrap ?? "loop";
  // Times are float64 (the ClipPlayer store's); speeds finite as 32-bit
  // floats, as their store holds them: a speed of 1e300 stored as Infinity
  // would stop every later frame.
  if (typeof time !== "number" || !Number.isFinite(time)) {
    throw new RangeError(
      `entity ${describeValue(eid)}: ClipPlayer: time must be finite, got ${describeValue(time)}`,
    );
  }
  if (typeof speed !== "number" || !Number.isFinite(Math.fround(speed))) {
    throw new RangeError(
      `entity ${describeValue(eid)}: ClipPlayer: speed must be finite, got ${describeValue(speed)}`,
    );
  }
  if (wrap !== "loop" && wrap !== "clamp") {
    throw new RangeError(
      `entity ${describeValue(eid)}: ClipPlayer: wrap must be "loop" or "clamp", got ${
        describeValue(wrap)
      }`,
    );
  }
  const compact = compactClip(clip, skeleton);
  // A player's spare, its sampler attached: replaying a clip allocates nothing.
  return reusePlayback(player, clip, compact, time, speed, wrap) ??
    // Every field from the start, sampler included: one shape for every
    // playback, so the frame's stores to them stay monomorphic (a double
    // stored through a megamorphic site is boxed: garbage every frame).
    { clip, compact, sampler: undefined, wrap, time, speed };
}
