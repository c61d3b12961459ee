/**
 * One playback's sampler of a compact clip: its cache in the core (the
 * keys around the time it last sampled, per lane; see
 * `simd/assembly/sample.ts`), so that playing forward touches only the keys
 * a frame needs, while any other time (a seek, a loop, reversed playback)
 * searches. A system batches the jobs of all its samplers into one call of
 * the `sampleCompactBatch` kernel.
 *
 * @module
 */

import type { CompactClip } from "./compact_clip.ts";
import type { CoreMemory } from "../simd/_memory.ts";

/** @internal A playback's view of a compact clip. */
export class ClipSampler {
  /** The clip sampled. */
  #clip: CompactClip;
  readonly #memory: CoreMemory;
  #cache = 0;
  #capacity = 0;
  #attached = false;

  /** Acquires `clip` and allocates a cache for it in `memory` (the clip's core). */
  constructor(clip: CompactClip, memory: CoreMemory) {
    this.#clip = clip;
    this.#memory = memory;
    this.attach(clip);
  }

  /** The clip sampled. */
  get clip(): CompactClip {
    return this.#clip;
  }

  /**
   * Samples `clip` from now on (after {@linkcode detach}, or a first time
   * from the constructor): acquires it and resets the cache from its
   * template, in the block the sampler has when it is large enough, so
   * that a recycled sampler replaying a clip allocates nothing.
   */
  attach(clip: CompactClip): void {
    if (this.#attached) throw new TypeError("attach: the sampler already samples a clip");
    clip.lifetime.acquire();
    const bytes = clip.cacheTemplate.length;
    if (this.#capacity < bytes || this.#cache === 0) {
      let cache: number;
      try {
        cache = this.#memory.alloc(bytes);
      } catch (e) {
        clip.lifetime.release();
        throw e;
      }
      if (this.#cache) this.#memory.free(this.#cache);
      this.#cache = cache;
      this.#capacity = bytes;
    }
    this.#clip = clip;
    this.#attached = true;
    this.#memory.views().u8.set(clip.cacheTemplate, this.#cache);
  }

  /** Lets the clip go but keeps the cache block, for a later {@linkcode attach}; idempotent. */
  detach(): void {
    if (!this.#attached) return;
    this.#attached = false;
    this.#clip.lifetime.release();
  }

  /**
   * Writes the job that samples the clip at `time` (already wrapped into
   * the clip) into the pose at byte `out`, at word `at` of a job table; when
   * `blendInto` is not 0, the kernel then blends that pose toward the
   * sample by `weight`. Views must be current.
   */
  emit(
    u32: Uint32Array,
    f32: Float32Array,
    at: number,
    time: number,
    out: number,
    blendInto = 0,
    weight = 0,
  ): void {
    const clip = this.#clip;
    u32[at] = clip.byteOffset;
    u32[at + 1] = this.#cache;
    u32[at + 2] = out;
    u32[at + 3] = clip.groupCount;
    f32[at + 4] = time;
    u32[at + 5] = blendInto;
    f32[at + 6] = weight;
  }

  /** Frees the cache and lets the clip go; idempotent. */
  release(): void {
    this.detach();
    if (!this.#cache) return;
    this.#memory.free(this.#cache);
    this.#cache = 0;
    this.#capacity = 0;
  }
}
