/**
 * A compact clip's image played by its core's kernels, as a playback plays
 * it (`sampleCompact`, then `quatToMat` and `localToModel`): the build
 * measures the error of what plays, at the kernels' speed (about ten times
 * the scalar sampler's and matrices'). Every build measures on one private
 * core of the plain SIMD build (the scalar twin where the runtime has no
 * SIMD), whatever core the clip is for: a clip built for a scalar and for
 * a SIMD core must come out the same, and measured errors differ between
 * builds in their last bits. The parents, the image, a cache (with its
 * plan: `standaloneCache`), two poses
 * and three matrix sets go into that core's memory for a measurement and
 * are freed after it.
 *
 * @module
 */

import { coreKernels, coreMemory } from "../simd/memory/internal.ts";
import { Core } from "../simd/memory/core.ts";
import { isBuildSupported } from "../simd/wasm/internal.ts";
import { MATRIX_FLOATS, poseFloats } from "../simd/memory/layout.ts";
import type { ClipImage } from "./_clip_image.ts";
import { standaloneCache } from "./_playback_cache.ts";

/** The skeleton an image is played on. */
export interface ImagePlayer {
  readonly parents: Int16Array;
}

/** The measurements' core: undefined until first used, null without SIMD. */
let measureCore: Core | null | undefined;

/**
 * Model matrices of a pose (SoA×4 floats), by the same kernels, of joints
 * 0 to `last` (all when undefined; the others' are stale); valid until
 * the next call.
 */
export type PoseMatrices = (pose: Float32Array, last?: number) => Float32Array;

/**
 * Plays `image` at `times` in order (float32 times, as a playback's), giving
 * `visit` the model matrices at each (valid until it returns; of joints 0
 * to `lasts[i]` when given, children coming after their parents: the
 * others' are stale) and the kernels' matrices of other poses (the exact
 * clip's); stops when `visit` returns false. False, having visited
 * nothing, without SIMD or when the core's memory cannot take the image
 * (the caller measures another way).
 */
export function playImage(
  player: ImagePlayer,
  image: ClipImage,
  times: ArrayLike<number>,
  visit: (model: Float32Array, i: number, matricesOf: PoseMatrices) => boolean,
  lasts?: Int32Array,
): boolean {
  measureCore ??= isBuildSupported("simd") ? Core.create("simd") : null;
  if (!measureCore) return false;
  const n = player.parents.length;
  const memory = coreMemory(measureCore), kernels = coreKernels(measureCore);
  const matrixBytes = n * MATRIX_FLOATS * 4, groups = Math.ceil(n / 4);
  const blocks: number[] = [];
  const cacheBytes = standaloneCache(image.template, groups);
  try {
    try {
      for (
        const bytes of [
          n * 2,
          image.bytes.length,
          cacheBytes.length,
          poseFloats(n) * 4,
          matrixBytes,
          matrixBytes,
          poseFloats(n) * 4,
          matrixBytes,
        ]
      ) blocks.push(memory.alloc(bytes));
    } catch (e) {
      if (e instanceof RangeError) return false;
      throw e;
    }
    const [parents, clip, cache, pose, local, model, otherPose, other] = blocks;
    const { u8, f32, i16 } = memory.views();
    i16.set(player.parents, parents >> 1);
    u8.set(image.bytes, clip);
    u8.set(cacheBytes, cache);
    const matrices = f32.subarray(model >> 2, (model >> 2) + n * MATRIX_FLOATS);
    const others = f32.subarray(other >> 2, (other >> 2) + n * MATRIX_FLOATS);
    const matricesOf = (of: Float32Array, last = n - 1) => {
      f32.set(of, otherPose >> 2);
      kernels.quatToMat(otherPose, local, last + 1);
      kernels.localToModel(local, other, parents, 0, last);
      return others;
    };
    for (let i = 0; i < times.length; i++) {
      const last = lasts ? lasts[i] : n - 1;
      kernels.sampleCompact(clip, cache, pose, groups, times[i]);
      kernels.quatToMat(pose, local, last + 1);
      kernels.localToModel(local, model, parents, 0, last);
      if (!visit(matrices, i, matricesOf)) break;
    }
    return true;
  } finally {
    for (const block of blocks) memory.free(block);
  }
}
