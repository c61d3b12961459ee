/**
 * Compact clips: a clip built once per skeleton into the core's memory in
 * a form the sampling kernel (`simd/assembly/sample.ts`) reads four joints
 * at a time, a fraction of the file's size:
 *
 * - keys per channel (no union of key times), reduced within an error
 *   budget measured in model space on virtual points (`_clip_error.ts`);
 * - channels that do not move beyond the budget store no keys at all: their
 *   value is written once into each playback's cache, as the rest pose is;
 * - rotations as smallest-three (8 bytes a key), translations and scales
 *   as u16 in the channel's range (6 bytes), where that keeps the budget,
 *   else floats; STEP channels keep their keys and values exactly;
 *   CUBICSPLINE channels are resampled within the budget.
 *
 * Layout (byte offsets from the clip's start, little-endian): a header
 * `groupCount, trackCount, lanesOffset, tracksOffset` (u32); per SoA×4
 * group and path (translation, rotation, scale) four i16 track indices (-1
 * for a held lane); per track a record of {@linkcode TRACK_BYTES}: `times
 * offset, values offset, key count, flags` (u32: format, `TRACK_STEP`),
 * then `min[3], scale[3]` (f32, ranged vectors); then each track's key
 * times (f32) and values.
 *
 * @module
 */

import type { Clip } from "./clip.ts";
import type { SkeletonAsset } from "./skeleton_asset.ts";
import { Lifetime, lifetimeOf } from "./_lifetime.ts";
import { budgetOf, ClipBudgetError } from "./clip_budget.ts";
import { type KeyTrack, reduceChannel } from "./_reduce.ts";
import {
  channelTolerances,
  exactPose,
  measureTimes,
  poseDistance,
  type SkeletonGeometry,
  skeletonGeometry,
} from "./_clip_error.ts";
import { coreMemory } from "../simd/_instance.ts";
import { poseFloats, poseLane } from "../simd/layout.ts";
import {
  CACHE_GROUP_BYTES,
  CACHE_RIGHT,
  CACHE_TIMING,
  CLIP_HEADER_BYTES,
  TIME_BOUND,
  TRACK_BYTES,
  TRACK_STEP,
} from "../simd/assembly/abi.ts";
import { sampleCompact } from "../simd/reference_sample.ts";

/** Default tolerance of compact clips, relative to the skeleton's size. */
export const DEFAULT_CLIP_TOLERANCE = 1e-5;
/** Default distance of the virtual points from their joints, relative to the skeleton's size. */
export const DEFAULT_VIRTUAL_DISTANCE = 0.1;

/** How a compact clip is built. */
export interface CompactClipOptions {
  /**
   * Largest distance (model units) a joint or virtual point may move from
   * where the exact clip puts it. Default {@linkcode DEFAULT_CLIP_TOLERANCE}
   * times the skeleton's size (the diagonal of its rest joints' bounds).
   */
  readonly tolerance?: number;
  /**
   * Distance of the virtual points from their joint, along its three axes
   * (model units; skinned vertices lie about this far from their joints).
   * Default {@linkcode DEFAULT_VIRTUAL_DISTANCE} times the skeleton's size.
   */
  readonly virtualDistance?: number;
}

const PATH_FIELD = [0, 3, 7] as const;

/** Byte offset of lane `joint`'s `field` in a pose. */
function laneByte(joint: number, field: number): number {
  return (poseLane(joint) + field * 4) * 4;
}

/**
 * A clip's compact form for one skeleton, in the core's memory. Players
 * acquire it; it goes back to the core when disposed and unplayed, or when
 * collected.
 */
export class CompactClip {
  /** Name of the clip. */
  readonly name: string;
  /** The clip's duration. */
  readonly duration: number;
  /** SoA×4 groups of the skeleton. */
  readonly groupCount: number;
  /** Tracks with keys (channels held constant have none). */
  readonly trackCount: number;
  /** Keys stored, over all tracks. */
  readonly keyCount: number;
  /** Bytes the clip takes in the core. */
  readonly bytes: number;
  /** The tolerance it was built with (model units). */
  readonly tolerance: number;
  /** The virtual point distance it was built with (model units). */
  readonly virtualDistance: number;
  /** @internal Byte offset of the clip in the core. */
  readonly byteOffset: number;
  /** @internal A playback's cache before its first sample: rest pose and held values. */
  readonly cacheTemplate: Uint8Array;
  /** @internal Players using it, and their release. */
  readonly lifetime: Lifetime;
  readonly #clip: Clip;
  readonly #geometry: SkeletonGeometry;
  readonly #image: Uint8Array;
  readonly #keyTimes: Float32Array[];
  #maxError: number | undefined;

  /**
   * Builds `clip` for `skeleton` into its core; prefer {@linkcode compactClip},
   * which builds once and shares. Throws a `RangeError` for a bad option and
   * a `ClipBudgetError` (before allocating) when the clip would pass the
   * core's clip budget. The clip must be valid for the skeleton
   * (`validateClip`; joints within the skeleton).
   */
  constructor(clip: Clip, skeleton: SkeletonAsset, options: CompactClipOptions = {}) {
    this.name = clip.name;
    this.duration = clip.duration;
    this.#clip = clip;
    const geometry = this.#geometry = skeletonGeometry(skeleton.parentIndices, skeleton.restPose);
    this.tolerance = options.tolerance ?? DEFAULT_CLIP_TOLERANCE * geometry.size;
    this.virtualDistance = options.virtualDistance ?? DEFAULT_VIRTUAL_DISTANCE * geometry.size;
    for (
      const [key, value] of [["tolerance", this.tolerance], [
        "virtualDistance",
        this.virtualDistance,
      ]]
    ) {
      if (typeof value !== "number" || !(value >= 0) || !Number.isFinite(value)) {
        throw new RangeError(
          `clip "${clip.name}": ${key}: expected a finite number >= 0, got ${value}`,
        );
      }
    }
    const tolerances = channelTolerances(clip, geometry, this.tolerance, this.virtualDistance);
    const reduced = clip.channels.map((channel, i) => reduceChannel(channel, tolerances[i]));
    const groups = this.groupCount = Math.ceil(skeleton.jointCount / 4);
    const tracks: KeyTrack[] = [];
    const template = this.cacheTemplate = new Uint8Array(groups * CACHE_GROUP_BYTES);
    const templateView = new DataView(template.buffer);
    const rest = skeleton.restPose;
    const lanes = new Int16Array(groups * 12).fill(-1);
    for (let g = 0; g < groups; g++) {
      const base = g * CACHE_GROUP_BYTES;
      for (let i = 0; i < 40; i++) {
        const value = rest[g * 40 + i];
        templateView.setFloat32(base + i * 4, value, true);
        templateView.setFloat32(base + CACHE_RIGHT + i * 4, value, true);
      }
      for (let i = 0; i < 12; i++) {
        templateView.setFloat32(
          base + CACHE_TIMING + (i >> 2) * 48 + (i & 3) * 4,
          -TIME_BOUND,
          true,
        );
        templateView.setFloat32(
          base + CACHE_TIMING + (i >> 2) * 48 + 16 + (i & 3) * 4,
          TIME_BOUND,
          true,
        );
      }
    }
    for (const r of reduced) {
      const lane = (r.joint >> 2) * CACHE_GROUP_BYTES + laneByte(r.joint & 3, PATH_FIELD[r.path]);
      if ("constant" in r) {
        r.constant.forEach((v, c) => {
          templateView.setFloat32(lane + c * 16, v, true);
          templateView.setFloat32(lane + CACHE_RIGHT + c * 16, v, true);
        });
        continue;
      }
      lanes[((r.joint >> 2) * 3 + r.path) * 4 + (r.joint & 3)] = tracks.length;
      tracks.push(r.keys);
      // lo = hi = TIME_BOUND: every time is below, so the first sample refills the lane.
      const timing = (r.joint >> 2) * CACHE_GROUP_BYTES + CACHE_TIMING + r.path * 48 +
        (r.joint & 3) * 4;
      templateView.setFloat32(timing, TIME_BOUND, true);
    }
    this.trackCount = tracks.length;
    this.keyCount = tracks.reduce((n, t) => n + t.times.length, 0);
    this.#keyTimes = [...clip.channels.map((c) => c.times), ...tracks.map((t) => t.times)];
    const image = this.#image = layOut(groups, lanes, tracks);
    const budget = budgetOf(skeleton.core);
    const bytes = this.bytes = Math.ceil(image.length / 16) * 16;
    if (bytes > budget.limit - budget.used) {
      throw new ClipBudgetError(clip.name, skeleton, bytes, false, budget);
    }
    const memory = coreMemory(skeleton.core);
    const block = this.byteOffset = memory.alloc(bytes);
    memory.views().u8.set(image, block);
    budget.used += bytes;
    this.lifetime = new Lifetime(this, () => {
      memory.free(block);
      budget.used -= bytes;
    });
  }

  /**
   * The largest distance between a joint or virtual point of the compact
   * clip and of the exact one (`sampleClip`), measured at every key time
   * and at the quarters between (at most 8192 times): model units. Measured on
   * first use.
   */
  get maxError(): number {
    if (this.#maxError !== undefined) return this.#maxError;
    const { parents, restPose } = this.#geometry;
    const floats = poseFloats(parents.length);
    const image = this.#image, template = this.cacheTemplate;
    const cacheAt = Math.ceil(image.length / 16) * 16, poseAt = cacheAt + template.length;
    const buffer = new ArrayBuffer(poseAt + floats * 4);
    new Uint8Array(buffer).set(image);
    new Uint8Array(buffer).set(template, cacheAt);
    const view = new DataView(buffer), pose = new Float32Array(buffer, poseAt, floats);
    let worst = 0;
    for (const time of measureTimes(this.#keyTimes)) {
      sampleCompact(view, 0, cacheAt, poseAt, this.groupCount, time);
      const exact = exactPose(this.#clip, restPose, time);
      worst = Math.max(worst, poseDistance(pose, exact, parents, this.virtualDistance));
    }
    return this.#maxError = worst;
  }
}

/** The clip's bytes: header, lanes, track records, then each track's times and values. */
function layOut(groups: number, lanes: Int16Array, tracks: KeyTrack[]): Uint8Array {
  const align = (n: number, a: number) => Math.ceil(n / a) * a;
  const lanesAt = CLIP_HEADER_BYTES;
  const tracksAt = align(lanesAt + lanes.byteLength, 16);
  let end = tracksAt + tracks.length * TRACK_BYTES;
  const at = tracks.map((t) => {
    const times = end;
    const values = align(times + t.times.byteLength, 8);
    end = values + t.bytes.length;
    return { times, values };
  });
  const image = new Uint8Array(align(end, 16));
  const view = new DataView(image.buffer);
  view.setUint32(0, groups, true);
  view.setUint32(4, tracks.length, true);
  view.setUint32(8, lanesAt, true);
  view.setUint32(12, tracksAt, true);
  image.set(new Uint8Array(lanes.buffer), lanesAt);
  tracks.forEach((t, i) => {
    const record = tracksAt + i * TRACK_BYTES;
    view.setUint32(record, at[i].times, true);
    view.setUint32(record + 4, at[i].values, true);
    view.setUint32(record + 8, t.times.length, true);
    view.setUint32(record + 12, t.format | (t.step ? TRACK_STEP : 0), true);
    for (let c = 0; c < 3; c++) {
      view.setFloat32(record + 16 + c * 4, t.range?.min[c] ?? 0, true);
      view.setFloat32(record + 28 + c * 4, t.range?.scale[c] ?? 0, true);
    }
    image.set(new Uint8Array(t.times.buffer), at[i].times);
    image.set(t.bytes, at[i].values);
  });
  return image;
}

const skeletonIds = new WeakMap<SkeletonAsset, number>();
let nextSkeletonId = 1;
/** Compact clips by clip, then by skeleton id (an id, so that clips keep no skeleton alive). */
const built = new WeakMap<Clip, Map<number, CompactClip>>();

/**
 * The compact form of `clip` for `skeleton`, built on first use (then
 * `options` apply; later calls return the clip built). It lasts as long as
 * the clip, until {@linkcode disposeClip}, or until the skeleton's memory
 * goes. Throws a `ClipBudgetError` when it would pass the core's clip
 * budget, before anything is allocated.
 */
export function compactClip(
  clip: Clip,
  skeleton: SkeletonAsset,
  options?: CompactClipOptions,
): CompactClip {
  let id = skeletonIds.get(skeleton);
  if (id === undefined) skeletonIds.set(skeleton, id = nextSkeletonId++);
  let bySkeleton = built.get(clip);
  if (!bySkeleton) built.set(clip, bySkeleton = new Map());
  const existing = bySkeleton.get(id);
  if (existing && !existing.lifetime.disposed) return existing;
  const compact = new CompactClip(clip, skeleton, options);
  bySkeleton.set(id, compact);
  const ref = new WeakRef(compact);
  const cancel = lifetimeOf(skeleton).onRelease(() => ref.deref()?.lifetime.dispose());
  compact.lifetime.onRelease(cancel);
  return compact;
}

/**
 * Gives the memory of `clip`'s compact forms (for every skeleton it was
 * played on) back to the core: now, or for those still played, when the
 * last player stops. Playing the clip again builds it again. Clips that
 * are garbage collected are released the same way.
 */
export function disposeClip(clip: Clip): void {
  const bySkeleton = built.get(clip);
  if (!bySkeleton) return;
  for (const compact of bySkeleton.values()) compact.lifetime.dispose();
  built.delete(clip);
}
