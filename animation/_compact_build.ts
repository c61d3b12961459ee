/**
 * The build of a compact clip's image: the channels reduced within their
 * share of the tolerance (`_reduce.ts`), laid out (`_clip_image.ts`) and
 * measured (`_clip_error.ts`), the split tightened until the measured error
 * fits; every step counted against the build's work limit
 * (`_build_work.ts`).
 *
 * @module
 */

import type { Clip } from "./clip.ts";
import type { SkeletonAsset } from "./skeleton_asset.ts";
import { unbuildableClipError } from "./_clip_refusal.ts";
import { ClipWorkError } from "./clip_budget.ts";
import { reduceChannel } from "./_reduce.ts";
import { ExactPoses, measureError } from "./_clip_error.ts";
import { channelTolerances, type SkeletonGeometry } from "./_skeleton_geometry.ts";
import { keyArrayBytes } from "./_clip_bytes.ts";
import { BuildWork, WorkExhausted } from "./_build_work.ts";
import { type ClipImage, clipImage, type ClipLayout } from "./_clip_image.ts";
import { sharedPolicy, sharesTimeline } from "./_shared_blocks.ts";

/** Most times a build tightens its reduction to meet the tolerance. */
const MAX_ATTEMPTS = 8;

/**
 * The share of the tolerance the first attempt splits among the channels:
 * errors along a chain add up, and at the full split most characters'
 * clips measured over it and were reduced again (a measurement of every
 * joint at every key time, the build's dearest step); at half, the test
 * models keep about as many keys and need one attempt.
 */
const FIRST_SCALE = 0.5;

/**
 * Past this many times the tolerance, a layout's measured error is the
 * reduction's, not the layout's: the layouts store the same reduced curves
 * and differ in their encoding (within a quarter of each channel's share)
 * and nlerp's parametrization at union times, so the attempt's other
 * layouts are not measured (a deep chain whose errors add up measured
 * every layout at the same error before its reduction was tightened).
 */
const LAYOUT_RESCUE = 2;

/** What a build is asked for: model units, and whether a shared timeline may be laid out. */
interface BuildTargets {
  readonly tolerance: number;
  readonly virtualDistance: number;
  readonly sharedTimeline: boolean;
}

/**
 * The image of `clip` for `skeleton` with the smallest measured error
 * found, and that error. Throws a `ClipWorkError` when the work limit
 * comes before any image was measured, a `ClipError` when no image has a
 * finite error.
 */
export function buildImage(
  clip: Clip,
  skeleton: SkeletonAsset,
  geometry: SkeletonGeometry,
  { tolerance, virtualDistance, sharedTimeline }: BuildTargets,
): { image: ClipImage; error: number } {
  const groups = Math.ceil(skeleton.jointCount / 4);
  // The per-channel split is optimistic (errors along a chain rarely add
  // up); the error is measured, and the split tightened until it fits.
  // It keeps the best attempt, and stops after two that do not improve
  // on it: what is left is the candidates' own error (a curve the
  // candidate times cannot follow).
  let scale = FIRST_SCALE, best: { image: ClipImage; error: number } | undefined, misses = 0;
  const keyBytes = keyArrayBytes(clip);
  const sharedBytes = sharedPolicy.fileFactor * keyBytes;
  const work = new BuildWork(keyBytes);
  const exact = new ExactPoses(clip, geometry, virtualDistance, {
    parents: skeleton.parentIndices,
  });
  // Laying out an image reads every kept key and the skeleton's groups.
  const imageWork = groups * 12 + clip.channels.reduce((n, c) => n + c.times.length, 0);
  // The attempt's best layout so far.
  let image: ClipImage | undefined, error = Infinity;
  try {
    for (let attempt = 0; attempt <= MAX_ATTEMPTS && misses < 2; attempt++) {
      const tolerances = channelTolerances(
        clip,
        geometry,
        tolerance * scale,
        virtualDistance,
      );
      const reduced = clip.channels.map((channel, i) =>
        reduceChannel(channel, tolerances[i], work)
      );
      // One shared timeline where its floats fit the byte policy; then sync
      // blocks. Keys at the union of the lanes' times, and wide
      // smallest-three keys, can cost error: then fewer blocks, then none.
      let blocks = -1;
      image = undefined, error = Infinity;
      const joints = skeleton.jointCount;
      const layouts: ClipLayout[] = [
        ...(sharedTimeline && sharesTimeline(clip.channels, reduced)
          ? [2, 0.5].map((slack) => ({
            shared: { channels: clip.channels, tolerances, slack, maxBytes: sharedBytes },
          }))
          : []),
        { sync: joints, wide: true },
        { sync: joints, wide: false },
        { sync: false, wide: false },
      ];
      for (const layout of layouts) {
        work.spend(imageWork);
        const candidate = clipImage(groups, geometry.restPose, reduced, layout);
        const shared = "shared" in layout;
        if (!candidate || (shared && candidate.bytes.length > sharedBytes)) continue;
        if (!shared) {
          // A layout that came out as the one before has been measured.
          if (candidate.syncCount === blocks) continue;
          blocks = candidate.syncCount;
        }
        const candidateError = measureError(
          candidate,
          exact,
          (units) => (work.spend(units), true),
          error,
          tolerance,
        )!;
        if (candidateError < error) image = candidate, error = candidateError;
        if (error <= tolerance || error > LAYOUT_RESCUE * tolerance) break;
      }
      if (image && (!best || error < best.error)) best = { image, error }, misses = 0;
      else misses++;
      if (error <= tolerance) break;
      scale *= Math.min(0.5, (0.8 * tolerance) / error);
    }
  } catch (e) {
    // Out of work: keep the best image measured, or refuse the clip.
    if (!(e instanceof WorkExhausted)) throw e;
    if (image && (!best || error < best.error)) best = { image, error };
    if (!best) throw new ClipWorkError(clip.name, skeleton, e.wanted, work.limit);
  }
  if (!best?.image || !Number.isFinite(best.error)) throw unbuildableClipError(clip, skeleton);
  return best;
}
