/**
 * A clip's pose at one time as its compact form gives it in the core, the
 * form every playback samples: what an additive layer's reference at a
 * clip time is, so that the layer adds nothing at that time, and so that a
 * clip loaded from a compact clip file (which holds no keys) gives the
 * same reference as the clip it was saved from.
 *
 * @module
 */

import type { Clip } from "./clip.ts";
import type { SkeletonAsset } from "./skeleton_asset.ts";
import { compactClip } from "./compact_clip.ts";
import { ClipSampler } from "./clip_sampler.ts";
import { coreKernels, coreMemory } from "../simd/memory/internal.ts";
import { JOB_WORDS } from "../simd/abi.ts";

/**
 * Writes `clip`'s pose at `time` (clamped to the clip) as its compact form
 * for `skeleton` samples it, from a playback's starting cache, into `out`
 * (`poseFloats(jointCount)` floats). Builds the compact form if needed.
 */
export function sampleCompactPose(
  clip: Clip,
  skeleton: SkeletonAsset,
  time: number,
  out: Float32Array,
): void {
  const compact = compactClip(clip, skeleton);
  const memory = coreMemory(skeleton.core);
  const sampler = new ClipSampler(compact, memory);
  const floats = compact.groupCount * 40;
  let pose = 0, jobs = 0;
  try {
    pose = memory.alloc(floats * 4);
    jobs = memory.alloc(JOB_WORDS * 4);
    const { u32, f32 } = memory.views();
    sampler.emit(u32, f32, jobs >> 2, Math.min(Math.max(time, 0), compact.duration), pose);
    coreKernels(skeleton.core).sampleCompactBatch(jobs, 1);
    out.set(memory.views().f32.subarray(pose >> 2, (pose >> 2) + floats));
  } finally {
    sampler.release();
    if (pose) memory.free(pose);
    if (jobs) memory.free(jobs);
  }
}
