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
  const spares = player.spares ??= [];
  if (spares.length >= MAX_SPARES) {
    playback.sampler?.release();
    return;
  }
  playback.sampler?.detach();
  spares.push(playback);
}

/**
 * A spare playback of `player` set to play `fields` (its sampler attached
 * to `fields.compact`), or undefined when it has none. A sampler that
 * cannot attach (the core's budget) stays a spare, and the error is thrown.
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
  if (!spares || spares.length === 0) return undefined;
  const spare = spares.pop()!;
  try {
    spare.sampler!.attach(compact);
  } catch (error) {
    spares.push(spare);
    throw error;
  }
  spare.clip = clip, spare.compact = compact;
  spare.time = time, spare.speed = speed, spare.wrap = wrap;
  return spare;
}
