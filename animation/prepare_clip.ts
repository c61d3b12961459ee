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
import { adoptCompactClip, CompactClip, compactClip } from "./compact_clip.ts";
import { ClipError } from "./clip_validation.ts";
import type { SkeletonAsset } from "./skeleton_asset.ts";

/**
 * Clips whose compact form was built elsewhere (a clip build worker) and
 * attached as a loaded clip's is: a missing form is not built on play.
 */
const attachedFromElsewhere = new WeakSet<Clip>();

/**
 * @internal Makes `compact`, built from `clip`'s keys elsewhere (a clip
 * build worker) and loaded into `skeleton`'s core, `clip`'s compact form
 * for `skeleton`: playing it there builds nothing, and
 * {@linkcode prepareClip} builds it again here where that form is gone.
 */
export function attachBuiltElsewhere(
  clip: Clip,
  skeleton: SkeletonAsset,
  compact: CompactClip,
): void {
  adoptCompactClip(clip, skeleton, compact);
  attachedFromElsewhere.add(clip);
}

/** `compactClip`, or, for a clip attached from elsewhere whose form is gone, a build here. */
function prepared(skeleton: SkeletonAsset, clip: Clip): CompactClip {
  if (!attachedFromElsewhere.has(clip)) return compactClip(clip, skeleton);
  try {
    return compactClip(clip, skeleton);
  } catch (error) {
    if (!(error instanceof ClipError)) throw error;
    // Its form is gone or was for another structure: compactClip refuses to build a clip it
    // holds as loaded, but this one has its keys.
    const compact = new CompactClip(clip, skeleton);
    adoptCompactClip(clip, skeleton, compact);
    return compact;
  }
}

/**
 * Builds `clip`'s compact form for `skeleton` now (or finds it built), so
 * that playing it on any entity of that skeleton (or of another with the
 * same parents and rest pose on the same core) builds nothing. Throws as
 * {@linkcode compactClip} does: a `ClipError` for an invalid clip, a
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
  return prepared(skeleton, clip);
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
  return clips.map((clip) => prepared(skeleton, clip));
}
