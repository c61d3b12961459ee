/**
 * Clips ready before they play. A clip plays from its compact form for the
 * skeleton (`compactClip`), built once per clip and skeleton structure; the
 * build reads every key and measures its error, which takes from under a
 * millisecond to tens of them per clip. `createCharacterAssets` prepares the
 * clips of an imported file; prepare clips made in code with
 * {@linkcode prepareClip} or {@linkcode prepareClips} when loading, or their
 * first `playClip` builds them, inside the frame that plays them: a hitch.
 *
 * @module
 */

import type { Clip } from "./clip.ts";
import { type CompactClip, compactClip } from "./compact_clip.ts";
import { validateClip } from "./clip_validation.ts";
import { validateMorphChannels } from "./morph.ts";
import type { SkeletonAsset } from "./skeleton_asset.ts";

/**
 * Builds `clip`'s compact form for `skeleton` now (or finds it built), so
 * that playing it on any entity of that skeleton (or of another with the
 * same parents and rest pose on the same core) builds nothing, and checks
 * its morph channels, which `playClip` would otherwise check inside the
 * frame that first plays it. Throws as {@linkcode compactClip} does: a
 * `ClipError` for an invalid clip (its morph channels included), a
 * `ClipBudgetError` or a `ClipWorkError` for one over its budget.
 *
 * @example
 * ```ts ignore
 * const wave = createClip({ name: "wave", channels });
 * prepareClip(skeleton, wave); // at load time, not in the frame that plays it
 * playClip(world, eid, wave);
 * ```
 */
export function prepareClip(skeleton: SkeletonAsset, clip: Clip): CompactClip {
  // In playClip's order, and before the build: a clip refused builds nothing.
  validateClip(clip);
  validateMorphChannels(clip);
  return compactClip(clip, skeleton);
}

/**
 * {@linkcode prepareClip} for each of `clips`, in order; returns their
 * compact forms. Stops at the first clip that throws (those before it stay
 * built).
 */
export function prepareClips(
  skeleton: SkeletonAsset,
  clips: readonly Clip[],
): CompactClip[] {
  return clips.map((clip) => prepareClip(skeleton, clip));
}
