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
import { SkeletonAsset } from "./skeleton_asset.ts";
import { lifetimeOf } from "./_lifetime.ts";

/**
 * Builds `clip`'s compact form for `skeleton` now (or finds it built), so
 * that playing it on any entity of that skeleton (or of another with the
 * same parents and rest pose on the same core) builds nothing, and checks
 * its morph channels, which `playClip` would otherwise check inside the
 * frame that first plays it. Throws as {@linkcode compactClip} does: a
 * `ClipError` for an invalid clip (its morph channels included), a
 * `ClipBudgetError` or a `ClipWorkError` for one over its budget; a
 * `TypeError` for a skeleton that is not a live `SkeletonAsset`.
 *
 * @example
 * ```ts ignore
 * const wave = createClip({ name: "wave", channels });
 * prepareClip(skeleton, wave); // at load time, not in the frame that plays it
 * playClip(world, eid, wave);
 * ```
 */
export function prepareClip(skeleton: SkeletonAsset, clip: Clip): CompactClip {
  checkPreparedFor("prepareClip", skeleton);
  checkPrepared(clip);
  return compactClip(clip, skeleton);
}

/**
 * {@linkcode prepareClip} for each of `clips`, in order; returns their
 * compact forms. Stops at the first clip that throws (those before it stay
 * built). `clips` that is not an array is a `TypeError`.
 */
export function prepareClips(
  skeleton: SkeletonAsset,
  clips: readonly Clip[],
): CompactClip[] {
  checkPreparedFor("prepareClips", skeleton);
  if (!Array.isArray(clips)) throw new TypeError("prepareClips: clips: expected an array");
  return clips.map((clip) => prepareClip(skeleton, clip));
}

/**
 * @internal Throws a `TypeError` naming `caller`'s argument unless
 * `skeleton` is a live `SkeletonAsset`: every preparation's first check.
 */
export function checkPreparedFor(caller: string, skeleton: SkeletonAsset): void {
  if (!(skeleton instanceof SkeletonAsset)) {
    throw new TypeError(`${caller}: skeleton: expected a SkeletonAsset`);
  }
  if (lifetimeOf(skeleton).disposed) throw new TypeError(`${caller}: skeleton: it was disposed`);
}

/**
 * @internal Checks `clip` as `playClip` does, in its order (a `ClipError`),
 * before any build: a clip refused builds nothing, and a clip that passed
 * is not checked again when it plays.
 */
export function checkPrepared(clip: Clip): void {
  validateClip(clip);
  validateMorphChannels(clip);
}
