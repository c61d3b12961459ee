/**
 * One playback's sampler of a compact clip: its cache in the core (the
 * keys around the time it last sampled, per keyed lane; see
 * `simd/wasm/assembly/sample.ts`), so that playing forward touches only the keys
 * a frame needs, while any other time (a seek, a loop, reversed playback)
 * searches. The held values are the clip's plan's, which the clip's
 * samplers share (`_playback_cache.ts`). A system batches the jobs of all
 * its samplers into one call of the `sampleCompactBatch` kernel.
 *
 * @module
 */

import type { CompactClip } from "./compact_clip.ts";
import type { CoreMemory } from "../simd/memory/internal.ts";
import { compactClipInternals } from "./_asset_internals.ts";
import { lifetimeOf } from "./_lifetime.ts";
import { playbackForm } from "./_playback_cache.ts";
import { privateSlot } from "./_private_slot.ts";
import type { Clip } from "./clip.ts";
import { anyMarkers, markersVersion } from "./markers.ts";
import {
  SAMPLE_BLEND_INTO,
  SAMPLE_CACHE,
  SAMPLE_CLIP,
  SAMPLE_GROUP_COUNT,
  SAMPLE_OUT,
  SAMPLE_TIME,
  SAMPLE_WEIGHT,
} from "../simd/abi.ts";

/** @internal A playback's view of a compact clip. */
export class ClipSampler {
  /** The clip sampled. */
  #clip: CompactClip;
  readonly #memory: CoreMemory;
  #clipByteOffset = 0;
  #steps = false;
  #cache = 0;
  #capacity = 0;
  #attached = false;
  /**
   * A multiple of a duration, exactly (`wrapDuration`: which; any when
   * `wrapBase` is 0), at or below the time last wrapped: a loop time `t`
   * with `t - wrapBase` in `[0, wrapDuration)` wraps to that difference,
   * exact and equal to `t % wrapDuration`, without the float modulo (a
   * call out of the compiled code). Read and written by the sampling
   * system only, checked against the clip's duration at every use.
   */
  wrapBase = 0.5;
  /** The duration `wrapBase` is a multiple of (NaN: none but 0's). */
  wrapDuration = NaN;
  /** The clip whose markers {@linkcode hasMarkers} last looked up, at which version of the markers. */
  #markedClip: Clip | undefined;
  #markedVersion = -1;
  #marked = false;

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
   * that a recycled sampler replaying a clip allocates nothing (the
   * clip's plan is placed in the core by its first sampler, and goes with
   * the clip's memory).
   */
  attach(clip: CompactClip): void {
    if (this.#attached) throw new TypeError("attach: the sampler already samples a clip");
    const internals = compactClipInternals(clip);
    const { byteOffset, steps } = internals;
    const form = playbackForm(internals.cacheTemplate, clip.groupCount);
    const template = form.cache;
    const lifetime = lifetimeOf(clip);
    lifetime.acquire();
    const bytes = template.length;
    let plan = 0;
    try {
      if (form.plan) plan = placedPlan(internals, clip, form.plan, this.#memory);
    } catch (e) {
      lifetime.release();
      throw e;
    }
    if (this.#capacity < bytes || this.#cache === 0) {
      let cache: number;
      try {
        cache = this.#memory.alloc(bytes);
      } catch (e) {
        lifetime.release();
        throw e;
      }
      if (this.#cache) this.#memory.free(this.#cache);
      this.#cache = cache;
      this.#capacity = bytes;
    }
    this.#clip = clip;
    this.#clipByteOffset = byteOffset;
    this.#steps = steps;
    this.#attached = true;
    // 0: a multiple of any duration (the times of a new clip usually start there).
    this.wrapBase = 0, this.wrapDuration = NaN;
    const views = this.#memory.views();
    views.u8.set(template, this.#cache);
    // The plan's offset from the cache, modulo 2^32 (`CACHE_HEADER_BYTES`), stored as an int32:
    // `>>> 0` of a plan below its cache is no small integer, which a call not yet optimized
    // boxes (16 bytes).
    if (plan) views.i32[this.#cache >> 2] = plan - this.#cache;
  }

  /** Lets the clip go but keeps the cache block, for a later {@linkcode attach}; idempotent. */
  detach(): void {
    if (!this.#attached) return;
    this.#attached = false;
    lifetimeOf(this.#clip).release();
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
    emitSource.clipTime = time, emitSource.weight = weight;
    this.emitFrom(u32, f32, at, emitSource, out, blendInto);
  }

  /**
   * {@linkcode emit} at `source.clipTime`, blending by `source.weight`:
   * what the frame calls, since doubles passed as arguments to a call the
   * compiler does not inline are new heap numbers.
   */
  emitFrom(
    u32: Uint32Array,
    f32: Float32Array,
    at: number,
    source: SampleSource,
    out: number,
    blendInto: number,
  ): void {
    const time = source.clipTime;
    u32[at + SAMPLE_CLIP] = this.#clipByteOffset;
    u32[at + SAMPLE_CACHE] = this.#cache;
    u32[at + SAMPLE_OUT] = out;
    u32[at + SAMPLE_GROUP_COUNT] = this.#clip.groupCount;
    f32[at + SAMPLE_TIME] = time;
    // STEP keys: rounded down (`floorToFloat32`), in place: a call would box the double.
    if (this.#steps && f32[at + SAMPLE_TIME] > time) {
      u32[at + SAMPLE_TIME] = nextFloat32Down(u32[at + SAMPLE_TIME]);
    }
    u32[at + SAMPLE_BLEND_INTO] = blendInto;
    f32[at + SAMPLE_WEIGHT] = blendInto === 0 ? 0 : source.weight;
  }

  /**
   * Whether `clip` (the clip of the playback this sampler samples) has
   * markers: looked up again only when the clip or any clip's markers
   * changed since the last call.
   */
  hasMarkers(clip: Clip): boolean {
    const version = markersVersion();
    if (this.#markedClip !== clip || this.#markedVersion !== version) {
      this.#marked = anyMarkers(clip), this.#markedClip = clip, this.#markedVersion = version;
    }
    return this.#marked;
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

/** Each per-channel clip's plan in its core, on its internals (a loaded clip is frozen). */
const plans = privateSlot<number>();

/**
 * The block of `clip`'s plan (`bytes`) in `memory`, its core: placed on
 * the first call, freed when the clip's memory goes. `clip` is acquired.
 */
function placedPlan(internals: object, clip: CompactClip, bytes: Uint8Array, memory: CoreMemory) {
  // Apart from the closure below, whose context every call would allocate.
  return plans.get(internals) || placePlan(internals, clip, bytes, memory);
}

function placePlan(internals: object, clip: CompactClip, bytes: Uint8Array, memory: CoreMemory) {
  const block = memory.alloc(bytes.length);
  memory.views().u8.set(bytes, block);
  plans.set(internals, block);
  lifetimeOf(clip).onRelease(() => {
    plans.set(internals, 0);
    memory.free(block);
  });
  return block;
}

/** A sample's clip time and blend weight, read by {@linkcode ClipSampler.emitFrom}. */
interface SampleSource {
  clipTime: number;
  weight: number;
}
const emitSource: SampleSource = { clipTime: 0.5, weight: 0.5 };

const float32 = new Float32Array(1), float32Bits = new Uint32Array(float32.buffer);

/**
 * The largest float32 not above `time`. Key times are float32s and the
 * kernel compares in float32: rounded to nearest, a playback time up to
 * half an ulp before a key (2.4e-8 s before a key near 1 s) reached it, and
 * a STEP key switched early. Rounded down, `time >= key` in float32 exactly
 * when it holds for the float64 time. Clips without STEP keys round to
 * nearest: their keys join continuously, and the time is off by half as
 * much.
 */
export function floorToFloat32(time: number): number {
  const nearest = Math.fround(time);
  if (!(nearest > time)) return nearest;
  float32Bits[0] = nextFloat32Down(bitsOfFloat32(nearest));
  return float32[0];
}

function bitsOfFloat32(value: number): number {
  float32[0] = value;
  return float32Bits[0];
}

/**
 * The bits of the next float32 toward -Infinity from the finite float32 of
 * bits `bits`: one unit of the bits down for a positive value, up for a
 * negative one; below +0 is -(smallest).
 */
function nextFloat32Down(bits: number): number {
  if (bits === 0) return 0x80000001;
  return bits & 0x80000000 ? bits + 1 : bits - 1;
}
