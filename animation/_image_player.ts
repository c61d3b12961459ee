/**
 * A compact clip's image played by its core's kernels, as a playback plays
 * it (`sampleCompact`, then `quatToMat` and `localToModel`): the build
 * measures the error of what actually plays, at the kernels' speed (on a
 * SIMD core about ten times the scalar sampler's and matrices'). The
 * image, a cache, a pose and two matrix sets go into the core's memory for
 * the measurement and are freed after it.
 *
 * @module
 */

import { coreKernels, coreMemory } from "../simd/_instance.ts";
import { MATRIX_FLOATS, poseFloats } from "../simd/layout.ts";
import type { ClipImage } from "./_clip_image.ts";

/** The skeleton an image is played on: its core, its parents in the core, its joints. */
export interface ImagePlayer {
  readonly core: object;
  readonly parentsByteOffset: number;
  readonly jointCount: number;
}

/**
 * Plays `image` at `times` in order (float32 times, as a playback's), giving
 * `visit` the model matrices at each (valid until it returns); stops when
 * `visit` returns false. False, having visited nothing, when the core's
 * memory cannot take the image (the caller measures another way).
 */
export function playImage(
  player: ImagePlayer,
  image: ClipImage,
  times: ArrayLike<number>,
  visit: (model: Float32Array, i: number) => boolean,
): boolean {
  const { core, parentsByteOffset: parents, jointCount: n } = player;
  const memory = coreMemory(core), kernels = coreKernels(core);
  const matrixBytes = n * MATRIX_FLOATS * 4, groups = Math.ceil(n / 4);
  const blocks: number[] = [];
  try {
    try {
      for (
        const bytes of [
          image.bytes.length,
          image.template.length,
          poseFloats(n) * 4,
          matrixBytes,
          matrixBytes,
        ]
      ) blocks.push(memory.alloc(bytes));
    } catch (e) {
      if (e instanceof RangeError) return false;
      throw e;
    }
    const [clip, cache, pose, local, model] = blocks;
    const { u8, f32 } = memory.views();
    u8.set(image.bytes, clip);
    u8.set(image.template, cache);
    const matrices = f32.subarray(model >> 2, (model >> 2) + n * MATRIX_FLOATS);
    for (let i = 0; i < times.length; i++) {
      kernels.sampleCompact(clip, cache, pose, groups, times[i]);
      kernels.quatToMat(pose, local, n);
      kernels.localToModel(local, model, parents, 0, n - 1);
      if (!visit(matrices, i)) break;
    }
    return true;
  } finally {
    for (const block of blocks) memory.free(block);
  }
}
