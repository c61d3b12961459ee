/**
 * Shared by the compact clip file tests: sampling a compact clip on its
 * core, and sampling an image by the scalar reference with the image last
 * in its buffer, so that any read past the image throws.
 *
 * @module
 */
import type { CompactClip } from "../clips.ts";
import type { Core } from "../kernels.ts";
import { ClipSampler } from "../animation/clip_sampler.ts";
import { coreKernels, coreMemory } from "../simd/memory/_instance.ts";
import { JOB_WORDS } from "../simd/abi.ts";
import { sampleCompact, sampleMemory } from "../simd/scalar/sample.ts";
import { standaloneCache } from "../animation/_playback_cache.ts";

/** `compact` sampled on `core` (its core) at `times` in order, one playback: the poses. */
export function samplePlayback(core: Core, compact: CompactClip, times: number[]): Float32Array[] {
  const memory = coreMemory(core);
  const sampler = new ClipSampler(compact, memory);
  const floats = compact.groupCount * 40;
  const pose = memory.alloc(floats * 4), jobs = memory.alloc(JOB_WORDS * 4);
  try {
    return times.map((time) => {
      const { u32, f32 } = memory.views();
      sampler.emit(u32, f32, jobs >> 2, time, pose);
      coreKernels(core).sampleCompactBatch(jobs, 1);
      return memory.views().f32.slice(pose >> 2, (pose >> 2) + floats);
    });
  } finally {
    sampler.release();
    memory.free(pose);
    memory.free(jobs);
  }
}

/**
 * The image (a compact clip's bytes) sampled by the scalar reference with
 * the starting cache `template` (placed with its plan) at `times`, over a buffer that ends where
 * the image does: a read past it throws a RangeError.
 */
export function sampleImageBounded(
  image: Uint8Array,
  template: Uint8Array,
  groups: number,
  times: number[],
): Float32Array[] {
  const cache = standaloneCache(template, groups);
  const poseAt = cache.length, clipAt = poseAt + groups * 160;
  const buffer = new ArrayBuffer(clipAt + image.length);
  const bytes = new Uint8Array(buffer);
  bytes.set(cache);
  bytes.set(image, clipAt);
  const memory = sampleMemory(buffer);
  return times.map((t) => {
    sampleCompact(memory, clipAt, 0, poseAt, groups, t);
    return new Float32Array(buffer.slice(poseAt, clipAt));
  });
}

/** Times over `[0, duration]`: forward steps, seeks, reversed steps (`count` of each kind at most). */
export function playTimes(duration: number, next: () => number, count = 40): number[] {
  const times: number[] = [];
  const step = Math.max(duration, 1e-3) / count;
  for (let i = 0; i <= count; i++) times.push(i * step);
  for (let i = 0; i < count / 2; i++) times.push(next() * duration);
  for (let i = count; i >= 0; i--) times.push(i * step * 0.97);
  return times;
}
