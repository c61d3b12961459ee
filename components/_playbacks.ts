/**
 * A player's playbacks, recycled: a `playClip` or `crossFadeTo` of a clip
 * already built reuses a playback the player stopped (its object, and its
 * sampler's cache block in the core when large enough) instead of
 * allocating, so that replaying clips allocates nothing on the JS heap
 * (the steady frame's contract, tested by `tests/zero_allocation_test.ts`).
 *
 * @module
 */

import type { Playback, PlayerState } from "./_world.ts";

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
