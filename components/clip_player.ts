/**
 * The ClipPlayer component: an entity plays animation clips (from
 * `importGltf`) into its JointQuat, with a time, a speed, looping or
 * clamping, and cross-fades from one clip to another. The sample clips
 * system advances and samples every player once per frame.
 *
 * The first time a clip is played on a skeleton it is baked into pose
 * frames in the core's memory (see `_baked_clip.ts`), which allocates: read
 * views again afterwards.
 *
 * @module
 */

import { addComponent, removeComponent } from "bitecs";
import type { Clip, WrapMode } from "../animation/clip.ts";
import { poseFloats } from "../simd/layout.ts";
import { type BakedClip, bakedClip } from "../animation/_baked_clip.ts";
import { checkEntity, requireSkeleton, stateOf, withAdding, type WorldState } from "./_world.ts";
import { ComponentError } from "./errors.ts";

/** How a clip plays. */
export interface PlaybackOptions {
  /** Start time in seconds. Default 0. */
  readonly time?: number;
  /** Playback rate; negative plays backwards. Default 1. */
  readonly speed?: number;
  /** `"loop"` (default) wraps time around the clip, `"clamp"` holds its ends. */
  readonly wrap?: WrapMode;
}

/** @internal One clip being played. */
export interface Playback {
  readonly clip: Clip;
  /** The clip's frames for the entity's skeleton. */
  readonly baked: BakedClip;
  time: number;
  readonly speed: number;
  readonly wrap: WrapMode;
}

/** @internal An entity's players: the clip playing, and the one faded to. */
export interface PlayerState {
  current: Playback;
  next: Playback | undefined;
  /** Weight of `next`, 0 to 1. */
  fade: number;
  /** Seconds the fade takes. */
  fadeDuration: number;
  /** Byte offset of a second pose in the core, to sample `next` into. */
  readonly scratch: number;
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
 * joint the skeleton does not have, and a `RangeError` for a bad option.
 */
export function playClip(
  world: object,
  eid: number,
  clip: Clip,
  options: PlaybackOptions = {},
): void {
  const state = stateOf(world, "playClip");
  const playback = makePlayback(state, eid, clip, options);
  const player = state.players.get(eid) as PlayerState | undefined;
  if (player) {
    player.current = playback;
    player.next = undefined;
    player.fade = 0;
  } else {
    withAdding(state, "ClipPlayer", () => addComponent(world, eid, state.components.ClipPlayer));
    state.players.set(
      eid,
      {
        current: playback,
        next: undefined,
        fade: 0,
        fadeDuration: 0,
        scratch: state.memory.alloc(poseFloats(state.skeletons.get(eid)!.jointCount) * 4),
      } satisfies PlayerState,
    );
  }
  state.components.ClipPlayer.clipName[eid] = clip.name;
}

/**
 * Cross-fades entity `eid` from its clip to `clip` over `duration` seconds:
 * both play, and the blend weight moves from the old to the new one
 * (rotations by normalized lerp along the shorter arc). Without a clip
 * playing it is {@linkcode playClip}.
 */
export function crossFadeTo(
  world: object,
  eid: number,
  clip: Clip,
  duration: number,
  options: PlaybackOptions = {},
): void {
  const state = stateOf(world, "crossFadeTo");
  const player = state.players.get(eid) as PlayerState | undefined;
  if (!player) return playClip(world, eid, clip, options);
  if (!Number.isFinite(duration) || duration < 0) {
    throw new RangeError(`entity ${eid}: ClipPlayer: fade duration must be >= 0, got ${duration}`);
  }
  const playback = makePlayback(state, eid, clip, options);
  if (player.next && player.fade >= 0.5) player.current = player.next;
  player.next = playback;
  player.fade = 0;
  player.fadeDuration = duration;
  state.components.ClipPlayer.clipName[eid] = clip.name;
}

/** What entity `eid` plays; a {@linkcode ComponentError} if it plays nothing. */
export function getPlayback(world: object, eid: number): PlaybackInfo {
  const player = playerOf(stateOf(world, "getPlayback"), eid);
  return {
    clip: player.current.clip,
    time: player.current.time,
    next: player.next?.clip,
    fade: player.fade,
  };
}

/** Stops entity `eid`'s clips; its pose stays as last sampled. */
export function removeClipPlayer(world: object, eid: number): void {
  const state = stateOf(world, "removeClipPlayer");
  playerOf(state, eid);
  removeComponent(world, eid, state.components.ClipPlayer);
}

function playerOf(state: WorldState, eid: number): PlayerState {
  const player = state.players.get(eid) as PlayerState | undefined;
  if (!player) throw new ComponentError(eid, "ClipPlayer", "the entity has no ClipPlayer");
  return player;
}

function makePlayback(
  state: WorldState,
  eid: number,
  clip: Clip,
  options: PlaybackOptions,
): Playback {
  checkEntity(state, eid, "ClipPlayer");
  const skeleton = requireSkeleton(state, eid, "ClipPlayer");
  if (!state.poses.has(eid)) {
    throw new ComponentError(
      eid,
      "ClipPlayer",
      "the entity needs a JointQuat first (addJointQuat)",
    );
  }
  if (!clip || !Array.isArray(clip.channels)) {
    throw new ComponentError(eid, "ClipPlayer", "expected a Clip");
  }
  for (const channel of clip.channels) {
    if (!(channel.joint >= 0 && channel.joint < skeleton.jointCount)) {
      throw new ComponentError(
        eid,
        "ClipPlayer",
        `clip "${clip.name}" animates joint ${channel.joint}, but the skeleton has ${skeleton.jointCount} joints`,
      );
    }
  }
  const time = options.time ?? 0, speed = options.speed ?? 1, wrap = options.wrap ?? "loop";
  if (!Number.isFinite(time)) {
    throw new RangeError(`entity ${eid}: ClipPlayer: time must be finite, got ${time}`);
  }
  if (!Number.isFinite(speed)) {
    throw new RangeError(`entity ${eid}: ClipPlayer: speed must be finite, got ${speed}`);
  }
  if (wrap !== "loop" && wrap !== "clamp") {
    throw new RangeError(`entity ${eid}: ClipPlayer: wrap must be "loop" or "clamp", got ${wrap}`);
  }
  return { clip, baked: bakedClip(clip, skeleton), time, speed, wrap };
}
