/**
 * One clip being played, as a ClipPlayer or a layer holds it.
 *
 * @module
 */

import type { CompactClip } from "../animation/compact_clip.ts";
import type { ClipSampler } from "../animation/clip_sampler.ts";
import type { Clip, WrapMode } from "../animation/clip.ts";

/**
 * @internal One clip being played. For the clip playing, the ClipPlayer
 * store's `time` and `speed` are the truth; these are the fading-in clip's.
 */
export interface Playback {
  // Not readonly: a player's playbacks are recycled (`components/_playbacks.ts`).
  clip: Clip;
  compact: CompactClip;
  /** Its sampler (cache in the core), from when the playback starts until it stops. */
  sampler?: ClipSampler;
  wrap: WrapMode;
  time: number;
  speed: number;
}
