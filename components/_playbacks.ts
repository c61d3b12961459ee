/**
 * A player's playbacks, recycled: a `playClip` or `crossFadeTo` of a clip
 * already built reuses a playback the player stopped (its object, and its
 * sampler's cache block in the core when large enough) instead of
 * allocating, so that replaying clips allocates nothing on the JS heap
 * (the steady frame's contract, tested by `tests/zero_allocation_test.ts`).
 *
 * @module
 */

import type { MarkerHits } from "../animation/markers.ts";
import type { LayerStack } from "./_layers.ts";
import type { Playback } from "./_playback.ts";

/** @internal An entity's players: the clip playing, and the one faded to. */
export interface PlayerState {
  current: Playback;
  next: Playback | undefined;
  /** Weight of `next`, always within [0, 1]. */
  fade: number;
  fadeDuration: number;
  /** Byte offset of a second pose in the core, to sample `next` into. */
  readonly scratch: number;
  /** Layers beyond the one `current` and `next` play (`components/layers.ts`). */
  stack?: LayerStack;
  /** Extensions of the player (markers crossed, root motion), freed with it. */
  extras?: PlayerExtras;
  /**
   * Playbacks it stopped, their samplers detached but keeping their cache
   * blocks: the next `playClip`/`crossFadeTo` reuses one instead of
   * allocating (`components/_playbacks.ts`); freed with the player.
   */
  spares?: (Playback | undefined)[];
}

/** @internal Per-frame outputs of a player, written by the sample clips system. */
interface PlayerExtras {
  /** Markers crossed in the last frame, in order. */
  readonly hits: MarkerHits;
  /** Root motion extraction settings and the last frame's delta. */
  rootMotion?: RootMotionState;
}

/** @internal Root motion settings of a player, and the last frame's motion (dx, dz, dyaw). */
interface RootMotionState {
  readonly joint: number;
  /** x, z and yaw of the root in the rest pose. */
  readonly rest: Float64Array;
  readonly delta: Float64Array;
}

/**
 * Spares a player keeps: it holds at most two playbacks at once (the clip
 * fading out and the one fading in), so a third spare is never taken.
 */
const MAX_SPARES = 3;

/**
 * Stops `playback`, which `player` no longer plays: its sampler lets the
 * clip go (a disposed clip's memory is not held by a spare) and keeps its
 * cache block for the next playback; beyond {@linkcode MAX_SPARES} the
 * sampler is freed.
 */
export function retirePlayback(player: PlayerState, playback: Playback): void {
  // Slots, never pushed or popped: an array that empties gives its store back.
  const spares = player.spares ??= Array<Playback | undefined>(MAX_SPARES).fill(undefined);
  for (let i = 0; i < MAX_SPARES; i++) {
    if (spares[i] === undefined) {
      playback.sampler?.detach();
      spares[i] = playback;
      return;
    }
  }
  playback.sampler?.release();
}

/**
 * A spare playback of `player` set to play `clip` (its sampler attached to
 * `compact`), or undefined when it has none. A sampler that cannot attach
 * (the core's budget) stays a spare, and the error is thrown.
 */
export function reusePlayback(
  player: PlayerState | undefined,
  clip: Playback["clip"],
  compact: Playback["compact"],
  time: number,
  speed: number,
  wrap: Playback["wrap"],
): Playback | undefined {
  const spares = player?.spares;
  if (!spares) return undefined;
  for (let i = 0; i < MAX_SPARES; i++) {
    const spare = spares[i];
    if (spare === undefined) continue;
    spare.sampler!.attach(compact);
    spares[i] = undefined;
    spare.clip = clip, spare.compact = compact;
    spare.time = time, spare.speed = speed, spare.wrap = wrap;
    return spare;
  }
  return undefined;
}
