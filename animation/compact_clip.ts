/**
 * Compact clips: a clip built once per skeleton into the core's memory in
 * a form the sampling kernel (`simd/wasm/assembly/sample.ts`) reads four joints
 * at a time, a fraction of the file's size:
 *
 * - keys per channel (no union of key times), reduced within an error
 *   budget measured in model space on virtual points (`_clip_error.ts`);
 * - channels that do not move beyond the budget store no keys at all: their
 *   value is written once into each playback's cache, as the rest pose is;
 * - rotations as smallest-three (8 bytes a key), translations and scales
 *   as u16 in the channel's range (6 bytes), where that keeps the budget,
 *   else rotations as wide smallest-three (12 bytes, about f32 precision)
 *   and vectors as floats; STEP channels keep their keys and values exactly;
 *   CUBICSPLINE channels are resampled within the budget;
 * - rotations turning by large angles between keys keep only their keys
 *   (`TRACK_BISECT`): the sampler halves such an arc into pieces of at
 *   most 0.05 rad, exactly on slerp's curve, where storing those pieces'
 *   ends as keys cost up to 2.4 times the keys;
 * - a clip whose keyed channels are all LINEAR (a motion capture's, keyed
 *   at the same times) is laid out on one shared timeline instead, where
 *   that takes at most half the bytes of the clip's own key arrays
 *   (`sharedPolicy` in `_shared_blocks.ts`): floats at the union of the
 *   channels' key times, intervals halved where nlerp would leave slerp's
 *   curve, sampled with one interval search and one weight for every
 *   group (`simd/wasm/assembly/sample_shared.ts`).
 *
 * Layout (byte offsets from the clip's start, little-endian): a header
 * `groupCount, trackCount, lanesOffset, tracksOffset, syncCount,
 * syncsOffset, timelineCount, timelineOffset, sharedKeyCount,
 * sharedGroupsOffset` (u32); per SoA×4 group and path (translation, rotation,
 * scale) four i16 lane entries (-1 for a held lane, a track index, or
 * `-2 - b` for a lane of sync block b); per track a record of
 * `TRACK_BYTES`: `times offset, values offset, key count, flags` (u32:
 * format, `TRACK_STEP`, `TRACK_BISECT`); a ranged track's values start
 * with its `min[3], scale[3]` (f32, `TRACK_RANGE_BYTES`);
 * per sync block (the LINEAR lanes of one group path at the union of their
 * key times, `_sync_blocks.ts`) a record of `SYNC_BYTES`: `times offset,
 * values offset, key count, flags` (format, span, lane mask); the
 * timeline entries (`TIMELINE_ENTRY_BYTES`: block, path, group), in runs
 * of blocks keyed at the same times, which the sampler refills together;
 * a shared clip's group records instead (`SHARED_GROUP_BYTES`: held pose
 * group, offsets of its paths' block values); then each track's and
 * block's key times (f32) and values.
 *
 * @module
 */

import type { Clip } from "./clip.ts";
import type { SkeletonAsset } from "./skeleton_asset.ts";
import { attachLifetime, lifetimeOf } from "./_lifetime.ts";
import { privateSlot } from "./_private_slot.ts";
import { checkSkeletonArgument, setCompactClipInternals } from "./_asset_internals.ts";
import { budgetOf, ClipBudgetError } from "./clip_budget.ts";
import { ClipError, readClip, validateClip } from "./clip_validation.ts";
import { geometryOf } from "./_skeleton_geometry.ts";
import { contentHash, contentKey } from "./_clip_bytes.ts";
import { buildCounters } from "./_build_work.ts";
import { buildImage } from "./_compact_build.ts";
import { coreMemory, describeValue } from "../simd/memory/internal.ts";

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
  /**
   * Whether a clip whose keyed channels are all LINEAR (a motion
   * capture's) may be laid out on one shared timeline of float keys, when
   * that takes at most half the bytes of the clip's own key arrays:
   * sampled with one interval search and one weight for all joints, about
   * twice as fast as quantized keys per channel, which take about half its
   * bytes. Default true; false keeps quantized keys per channel.
   */
  readonly sharedTimeline?: boolean;
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
  /**
   * The largest distance between a joint or virtual point of the compact
   * clip and of the exact one (`sampleClip`): model units. Each joint is
   * measured at the key times of the channels that move it (its own and
   * its ancestors', the clip's and the compact clip's) and at the quarters
   * between, and where the sampler's bisected rotations stray most from
   * their arc (at most 4096 times; past that, every joint at times evenly
   * picked). The build tightens its key reduction until this is within
   * `tolerance` (at most 8 times).
   */
  readonly maxError: number;

  /**
   * Builds `clip` for `skeleton` into its core; prefer {@linkcode compactClip},
   * which builds once and shares. Throws a `RangeError` for a bad number,
   * a `TypeError` for a `sharedTimeline` that is not a boolean, a
   * `ClipBudgetError` (before allocating) when the clip would pass the
   * core's clip budget, and a `ClipWorkError` (before allocating) when
   * its build would take more work than its limit (linear in its keys; see
   * `ClipWorkError`). The clip must be valid for the skeleton
   * (`validateClip`; joints within the skeleton).
   */
  constructor(given: Clip, skeleton: SkeletonAsset, options: CompactClipOptions = {}) {
    // Checked here too, not only by playClip: a hand-made clip given
    // straight to compactClip must not lay out lanes past the skeleton's.
    // Read once and checked in full, whatever validation remembers (the
    // build costs far more): a clip changed since it was validated is
    // refused, and one that answers differently from one read to the next
    // is built from what was checked.
    checkSkeletonArgument(skeleton, "CompactClip: skeleton");
    const clip = readClip(given);
    for (const [i, channel] of clip.channels.entries()) {
      if (channel.joint >= skeleton.jointCount) {
        throw new ClipError(
          clip.name,
          i,
          -1,
          `animates joint ${channel.joint}, but the skeleton has ${skeleton.jointCount} joints`,
        );
      }
    }
    this.name = clip.name;
    this.duration = clip.duration;
    const geometry = geometryOf(skeleton);
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
          `clip "${clip.name}": ${key}: expected a finite number >= 0, got ${describeValue(value)}`,
        );
      }
    }
    const sharedTimeline = options.sharedTimeline ?? true;
    if (typeof sharedTimeline !== "boolean") {
      throw new TypeError(
        `clip "${clip.name}": sharedTimeline: expected a boolean, got ${typeof sharedTimeline}`,
      );
    }
    this.groupCount = Math.ceil(skeleton.jointCount / 4);
    const kept = buildImage(clip, skeleton, geometry, {
      tolerance: this.tolerance,
      virtualDistance: this.virtualDistance,
      sharedTimeline,
    });
    this.maxError = kept.error;
    this.trackCount = kept.image.trackCount;
    this.keyCount = kept.image.keyCount;
    const budget = budgetOf(skeleton.core);
    const bytes = this.bytes = kept.image.bytes.length;
    if (bytes > budget.limit - budget.used) {
      throw new ClipBudgetError(clip.name, skeleton, bytes, false, budget);
    }
    const memory = coreMemory(skeleton.core);
    const block = memory.alloc(bytes);
    memory.views().u8.set(kept.image.bytes, block);
    budget.used += bytes;
    attachLifetime(this, () => {
      memory.free(block);
      budget.used -= bytes;
    });
    setCompactClipInternals(this, {
      byteOffset: block,
      cacheTemplate: kept.image.template,
      steps: clip.channels.some((channel) => channel.interpolation === "STEP"),
    });
    buildCounters.builds++;
  }
}

const coreIds = new WeakMap<object, number>();
let nextCoreId = 1;
/** Each skeleton's {@linkcode structureKey}, computed once. */
const structureKeys = new WeakMap<SkeletonAsset, string>();
/**
 * Compact clips by clip, then by skeleton structure: skeletons of one core
 * with the same parents and rest pose (the two skins of one rig, two assets of
 * one definition) share one compact clip, as it depends on nothing else.
 */
const built = new WeakMap<Clip, Map<string, CompactClip>>();
/** The compact clips each skeleton's release disposes (registered once each). */
const dependents = new WeakMap<SkeletonAsset, WeakSet<CompactClip>>();

/**
 * What a compact clip depends on in `skeleton`, exactly: its core, its
 * parents and the bytes of its rest pose.
 */
export function structureKey(skeleton: SkeletonAsset): string {
  let key = structureKeys.get(skeleton);
  if (key !== undefined) return key;
  let core = coreIds.get(skeleton.core);
  if (core === undefined) coreIds.set(skeleton.core, core = nextCoreId++);
  const rest = new Uint16Array(skeleton.restPose.buffer);
  let bytes = "";
  for (let i = 0; i < rest.length; i += 0x2000) {
    bytes += String.fromCharCode(...rest.subarray(i, i + 0x2000));
  }
  key = `${core};${skeleton.parentIndices.join()};${bytes}`;
  structureKeys.set(skeleton, key);
  return key;
}

/**
 * Compact clips built with the default options, by {@linkcode contentKey}
 * and structure: two clips made from one file animation for two skeletons
 * of one rig (an importer cuts one per skin) share their key arrays, and
 * then their compact clip. Entries go when the compact clip's memory does.
 */
const byContent = new Map<string, { ref: WeakRef<CompactClip>; hash: number }>();

/** A live compact clip built with default options for the same content and structure. */
function sharedBuild(clip: Clip, structure: string): CompactClip | undefined {
  const entry = byContent.get(`${structure}|${contentKey(clip)}`);
  const compact = entry?.ref.deref();
  if (!compact || lifetimeOf(compact).disposed) return undefined;
  return entry!.hash === contentHash(clip) ? compact : undefined;
}

/**
 * The compact form of `clip` for `skeleton`, built on first use (then
 * `options` apply; later calls return the clip built). Without options it
 * is shared with every skeleton of the same core with the same parents and
 * rest pose, and with clips of the same key arrays (see `contentKey`). It
 * lasts as long as a clip it was built for, until {@linkcode disposeClip}
 * of one of them, or until the memory of a skeleton that used it goes
 * (players still playing it keep it until they stop). Throws a
 * `ClipBudgetError` when it would pass the core's clip budget, before
 * anything is allocated.
 */
export function compactClip(
  clip: Clip,
  skeleton: SkeletonAsset,
  options?: CompactClipOptions,
): CompactClip {
  checkSkeletonArgument(skeleton, "compactClip: skeleton");
  // Remembered once valid: a clip played before costs a lookup.
  validateClip(clip);
  const structure = structureKey(skeleton);
  const form = loadedForms.get(clip);
  if (form !== undefined) return loadedCompact(clip, form, skeleton, structure);
  let byStructure = built.get(clip);
  if (!byStructure) built.set(clip, byStructure = new Map());
  let compact = byStructure.get(structure);
  if (!compact || lifetimeOf(compact).disposed) {
    compact = options === undefined ? sharedBuild(clip, structure) : undefined;
    if (!compact) {
      compact = new CompactClip(clip, skeleton, options);
      if (options === undefined) {
        const key = `${structure}|${contentKey(clip)}`;
        byContent.set(key, { ref: new WeakRef(compact), hash: contentHash(clip) });
        const ref = byContent.get(key)!;
        lifetimeOf(compact).onRelease(() => {
          if (byContent.get(key) === ref) byContent.delete(key);
        });
      }
    }
    byStructure.set(structure, compact);
  }
  tieToSkeleton(compact, skeleton);
  return compact;
}

/**
 * @internal Makes `compact`, built from `clip`'s keys elsewhere (a clip
 * build worker) and loaded into `skeleton`'s core, `clip`'s compact form
 * for `skeleton`'s structure, as a build here would have: playing it there
 * builds nothing, and once the form is gone the clip builds again from its
 * keys.
 */
export function adoptBuiltCompactClip(
  clip: Clip,
  skeleton: SkeletonAsset,
  compact: CompactClip,
): void {
  let byStructure = built.get(clip);
  if (!byStructure) built.set(clip, byStructure = new Map());
  byStructure.set(structureKey(skeleton), compact);
  tieToSkeleton(compact, skeleton);
}

/** Disposes `compact` when `skeleton`'s memory goes (registered once per skeleton and clip). */
function tieToSkeleton(compact: CompactClip, skeleton: SkeletonAsset): void {
  let registered = dependents.get(skeleton);
  if (!registered) dependents.set(skeleton, registered = new WeakSet());
  if (!registered.has(compact)) {
    registered.add(compact);
    const ref = new WeakRef(compact);
    const cancel = lifetimeOf(skeleton).onRelease(() => {
      const live = ref.deref();
      if (live) lifetimeOf(live).dispose();
    });
    lifetimeOf(compact).onRelease(cancel);
  }
}

/**
 * A clip loaded from a compact clip file (`clip_file.ts`): its compact
 * form, the structure it was loaded for, and the skeleton it was loaded
 * for, whose release its file's clips answer to together
 * (`_clip_file_group.ts`).
 */
export interface LoadedForm {
  readonly compact: CompactClip;
  readonly structure: string;
  readonly skeleton: WeakRef<SkeletonAsset>;
}

/** Clips loaded from a compact clip file: compact forms without keys (a slot: `_private_slot.ts`). */
const loadedForms = privateSlot<LoadedForm>();

/** The compact form of the loaded `clip` for `skeleton`, or a `ClipError` when it has none. */
function loadedCompact(
  clip: Clip,
  form: LoadedForm,
  skeleton: SkeletonAsset,
  structure: string,
): CompactClip {
  const compact = form.compact;
  if (form.structure !== structure || lifetimeOf(compact).disposed) {
    throw new ClipError(
      clip.name,
      -1,
      -1,
      "was loaded from a compact clip file for another skeleton, or its compact form was disposed: it has no keys to build from (load the file for this skeleton)",
    );
  }
  // Its file's group answers to the skeleton it was loaded for; others of its structure tie it here.
  if (form.skeleton.deref() !== skeleton) tieToSkeleton(compact, skeleton);
  return compact;
}

/**
 * @internal Makes `form.compact` the compact form of the keyless `clip`
 * for `form.skeleton` and the skeletons of its structure (a loaded clip;
 * its file's group disposes it with the skeleton, see
 * `_clip_file_group.ts`): played elsewhere, or once the form is gone, the
 * clip throws a `ClipError` rather than build from no keys.
 */
export function adoptCompactClip(clip: Clip, form: LoadedForm): void {
  loadedForms.set(clip, form);
}

/**
 * Gives the memory of `clip`'s compact forms (for every skeleton it was
 * played on) back to the core: now, or for those still played, when the
 * last player stops. Playing the clip again builds it again. Clips that
 * are garbage collected are released the same way.
 */
export function disposeClip(clip: Clip): void {
  const form = loadedForms.get(clip);
  if (form) lifetimeOf(form.compact).dispose();
  const bySkeleton = built.get(clip);
  if (!bySkeleton) return;
  for (const compact of bySkeleton.values()) lifetimeOf(compact).dispose();
  built.delete(clip);
}
