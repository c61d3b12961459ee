/**
 * The bytes of a compact clip (layout: `compact_clip.ts`) and the cache a
 * playback starts from, from its reduced channels.
 *
 * @module
 */

import { arrayKey } from "./_array_key.ts";
import type { KeyTrack, ReducedChannel } from "./_reduce.ts";
import type { ClipChannel } from "./clip.ts";
import { type SyncBlock, syncBlocks } from "./_sync_blocks.ts";
import { sharedBlocks } from "./_shared_blocks.ts";
import { poseLane } from "../simd/memory/layout.ts";
import {
  CACHE_GROUP_BYTES,
  CACHE_RIGHT,
  CACHE_TIMING,
  CLIP_HEADER_BYTES,
  CLIP_SHARED_GROUPS,
  CLIP_SHARED_KEYS,
  SHARED_CACHE_BYTES,
  SHARED_GROUP_BYTES,
  SHARED_GROUP_FLAGS,
  SHARED_GROUP_VALUES,
  SHARED_SLERP,
  SYNC_BYTES,
  SYNC_MASK_SHIFT,
  SYNC_SPAN_SHIFT,
  TIME_BOUND,
  TIMELINE_ENTRY_BYTES,
  TRACK_BISECT,
  TRACK_BYTES,
  TRACK_RANGE_BYTES,
  TRACK_STEP,
} from "../simd/wasm/assembly/abi.ts";

/** A compact clip before it goes to the core. */
export interface ClipImage {
  /** The clip's bytes, a multiple of 16 long. */
  readonly bytes: Uint8Array;
  /**
   * A playback's cache before its first sample: rest pose and held values
   * (a shared clip's: its cursor, `SHARED_CACHE_BYTES`).
   */
  readonly template: Uint8Array;
  /** Keyed channels (per-lane tracks and lanes of sync blocks). */
  readonly trackCount: number;
  /** Keys stored, per lane. */
  readonly keyCount: number;
  /** Group paths stored as synchronous blocks. */
  readonly syncCount: number;
  /** Key times of the tracks and blocks kept. */
  readonly keyTimes: Float32Array[];
  /** Per array of `keyTimes`, the joints it animates. */
  readonly keyJoints: number[][];
  /** The piece times of bisected tracks (`KeyTrack.pieceTimes`), with their joint. */
  readonly pieceTimes: { readonly times: Float32Array; readonly joints: number[] }[];
}

const PATH_FIELD = [0, 3, 7] as const;

/** Byte offset of joint `joint`'s path `path` lane in a cache (left keys). */
function laneByte(joint: number, path: number): number {
  return (joint >> 2) * CACHE_GROUP_BYTES + (poseLane(joint & 3) + PATH_FIELD[path] * 4) * 4;
}

/**
 * How a clip's keyed channels are laid out. Per channel: `sync` (the
 * skeleton's joint count) makes group paths whose lanes keep keys at
 * nearly the same times synchronous blocks (`_sync_blocks.ts`), which take
 * in the group's held lanes of real joints too; `wide` lets rotation
 * blocks with lanes that keep floats use wide smallest-three keys. Or
 * `shared` (the clip's channels, which must pass `sharesTimeline`, their
 * tolerances, nlerp's slack and the most bytes its keys may take): every
 * keyed path a block of floats on one timeline (`sharedBlocks`).
 */
export type ClipLayout =
  | { readonly sync: number | false; readonly wide: boolean }
  | {
    readonly shared: {
      readonly channels: readonly ClipChannel[];
      readonly tolerances: ArrayLike<number>;
      readonly slack: number;
      readonly maxBytes: number;
    };
  };

/**
 * The image of a clip of `groups` SoA×4 groups over `restPose`, laid out as
 * `layout` says; undefined for a shared timeline over its `maxBytes`.
 */
export function clipImage(
  groups: number,
  restPose: Float32Array,
  reduced: readonly ReducedChannel[],
  layout: ClipLayout,
): ClipImage | undefined {
  const template = startingCache(groups, restPose, reduced);
  const view = new DataView(template.buffer);
  const heldValue = (joint: number, path: number) => {
    const value = new Float32Array(path === 1 ? 4 : 3), lane = laneByte(joint, path);
    for (let c = 0; c < value.length; c++) value[c] = view.getFloat32(lane + c * 16, true);
    return value;
  };
  const shared = "shared" in layout;
  const laid = shared
    ? sharedBlocks(
      layout.shared.channels,
      layout.shared.tolerances,
      layout.shared.slack,
      layout.shared.maxBytes,
      reduced,
      heldValue,
    )
    : syncBlocks(reduced, layout.sync, heldValue, layout.wide);
  if (!laid) return undefined;
  const { blocks, held } = laid;
  const tracks: KeyTrack[] = [];
  const lanes = new Int16Array(groups * 12).fill(-1);
  blocks.forEach((b, i) => {
    for (let l = 0; l < 4; l++) {
      if (b.mask & (1 << l)) lanes[(b.group * 3 + b.path) * 4 + l] = -2 - i;
    }
  });
  // Keys of a block's lanes: its times' (found by group path, not by a
  // search of the blocks per channel, which a skeleton of hundreds of
  // joints paid in every layout).
  const blockKeys = new Map(blocks.map((b) => [b.group * 3 + b.path, b.times.length]));
  let keyCount = 0;
  for (const r of reduced) {
    if (!("keys" in r)) continue;
    if (held.has(r)) keyCount += blockKeys.get((r.joint >> 2) * 3 + r.path)!;
    else {
      lanes[((r.joint >> 2) * 3 + r.path) * 4 + (r.joint & 3)] = tracks.length;
      tracks.push(r.keys);
      keyCount += r.keys.times.length;
    }
  }
  return {
    bytes: layOut(
      groups,
      lanes,
      tracks,
      blocks,
      shared ? blocks[0].times.length : 0,
      template,
    ),
    template: shared ? new Uint8Array(SHARED_CACHE_BYTES) : template,
    trackCount: tracks.length + held.size,
    keyCount,
    syncCount: blocks.length,
    keyTimes: [
      ...tracks.map((t) => t.times),
      ...blocks.map((b) => b.times),
    ],
    keyJoints: [
      ...tracks.map((t) => [t.joint]),
      ...blocks.map((b) =>
        [0, 1, 2, 3].filter((l) => b.mask & (1 << l)).map((l) => b.group * 4 + l)
      ),
    ],
    pieceTimes: tracks.flatMap((t) =>
      t.pieceTimes ? [{ times: t.pieceTimes, joints: [t.joint] }] : []
    ),
  };
}

/**
 * Starting caches by the reduced channels they were made for: an
 * attempt's layouts share them (they depend on the rest pose and the
 * reduction only), and a skeleton of hundreds of joints wrote one for
 * every layout. Never written once made (an image's `template`).
 */
const startingCaches = new WeakMap<
  readonly ReducedChannel[],
  { groups: number; restPose: Float32Array; template: Uint8Array }
>();

/**
 * A playback's cache before its first sample for `reduced`: the rest
 * pose, the held channels' values, held lanes' timing that no time leaves,
 * and keyed lanes' that the first sample refills.
 */
function startingCache(
  groups: number,
  restPose: Float32Array,
  reduced: readonly ReducedChannel[],
): Uint8Array {
  const known = startingCaches.get(reduced);
  if (known && known.groups === groups && known.restPose === restPose) return known.template;
  const template = new Uint8Array(groups * CACHE_GROUP_BYTES);
  const view = new DataView(template.buffer);
  for (let g = 0; g < groups; g++) {
    const base = g * CACHE_GROUP_BYTES;
    for (let i = 0; i < 40; i++) {
      view.setFloat32(base + i * 4, restPose[g * 40 + i], true);
      view.setFloat32(base + CACHE_RIGHT + i * 4, restPose[g * 40 + i], true);
    }
    // Held lanes: an interval no time leaves, weight 0 (inv stays 0).
    for (let i = 0; i < 12; i++) {
      const timing = base + CACHE_TIMING + (i >> 2) * 48 + (i & 3) * 4;
      view.setFloat32(timing, -TIME_BOUND, true);
      view.setFloat32(timing + 16, TIME_BOUND, true);
    }
  }
  for (const r of reduced) {
    if ("constant" in r) {
      const lane = laneByte(r.joint, r.path);
      r.constant.forEach((v, c) => {
        view.setFloat32(lane + c * 16, v, true);
        view.setFloat32(lane + CACHE_RIGHT + c * 16, v, true);
      });
      continue;
    }
    // lo = hi = TIME_BOUND: every time is below, so the first sample refills the lane.
    const timing = (r.joint >> 2) * CACHE_GROUP_BYTES + CACHE_TIMING + r.path * 48 +
      (r.joint & 3) * 4;
    view.setFloat32(timing, TIME_BOUND, true);
  }
  startingCaches.set(reduced, { groups, restPose, template });
  return template;
}

/**
 * Values areas placed in an image, found by their bytes: a hash of their
 * words picks the candidates, compared byte for byte (a string of every
 * area's bytes, as the key of a map, was a tenth of a long clip's layout;
 * values areas, unlike key times, are new at every layout).
 */
class ValueTable {
  readonly #byHash = new Map<number, { bytes: Uint8Array; alignment: number; at: number }[]>();

  /** Where bytes equal to `bytes` (placed at `alignment`) are, or undefined. */
  find(bytes: Uint8Array, alignment: number): number | undefined {
    for (const placed of this.#byHash.get(hashBytes(bytes)) ?? []) {
      if (placed.alignment === alignment && sameBytes(placed.bytes, bytes)) return placed.at;
    }
    return undefined;
  }

  /** Records `bytes` (at `alignment`) at byte `at`. */
  add(bytes: Uint8Array, alignment: number, at: number): void {
    const hash = hashBytes(bytes), list = this.#byHash.get(hash);
    if (list) list.push({ bytes, alignment, at });
    else this.#byHash.set(hash, [{ bytes, alignment, at }]);
  }
}

/** FNV-1a of `bytes`' length and its 32-bit words (the bytes of a tail shorter than a word). */
function hashBytes(bytes: Uint8Array): number {
  let hash = Math.imul(0x811c9dc5 ^ bytes.length, 0x01000193);
  const words = bytes.byteOffset % 4 === 0
    ? new Int32Array(bytes.buffer, bytes.byteOffset, bytes.length >> 2)
    : undefined;
  const tail = words ? words.length * 4 : 0;
  if (words) {
    for (let i = 0; i < words.length; i++) {
      hash = Math.imul(hash ^ words[i], 0x01000193);
    }
  }
  for (let i = tail; i < bytes.length; i++) hash = Math.imul(hash ^ bytes[i], 0x01000193);
  return hash;
}

/** Whether `a` and `b` hold the same bytes. */
export function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * Timeline entries (`TIMELINE_ENTRY_BYTES`): the blocks whose key times
 * another block shares, in runs of equal times, each run refilled together
 * by the sampler.
 */
function timelineEntries(blocks: readonly SyncBlock[]): number[] {
  const runs = new Map<string, number[]>();
  blocks.forEach((b, i) => {
    // What the entry's fields hold (block: 16 bits, group: 14).
    if (i > 0xffff || b.group >= 1 << 14) return;
    const key = arrayKey(b.times);
    runs.set(key, [...(runs.get(key) ?? []), i]);
  });
  return [...runs.values()].filter((run) => run.length > 1).flatMap((run) =>
    run.map((i) => ((blocks[i].group << 18) | (blocks[i].path << 16) | i) >>> 0)
  );
}

/**
 * The clip's bytes: header, lanes, track records, sync block records,
 * timeline entries, then each track's and block's times and values. A
 * shared clip (`sharedKeys` keys) needs no timeline entries, and has group
 * records (`CLIP_SHARED_GROUPS`): the left keys of `template`, its held
 * pose, where each path's block values are, and its flags.
 */
function layOut(
  groups: number,
  lanes: Int16Array,
  tracks: KeyTrack[],
  blocks: SyncBlock[],
  sharedKeys: number,
  template: Uint8Array,
): Uint8Array {
  const align = (n: number, a: number) => Math.ceil(n / a) * a;
  const lanesAt = CLIP_HEADER_BYTES;
  const tracksAt = align(lanesAt + lanes.byteLength, 16);
  const syncsAt = tracksAt + tracks.length * TRACK_BYTES;
  const timeline = sharedKeys ? [] : timelineEntries(blocks);
  const timelineAt = syncsAt + blocks.length * SYNC_BYTES;
  const sharedAt = sharedKeys ? align(timelineAt, 16) : 0;
  let end = sharedKeys
    ? sharedAt + groups * SHARED_GROUP_BYTES
    : timelineAt + timeline.length * TIMELINE_ENTRY_BYTES;
  // Tracks and blocks whose kept key times are equal share one copy of
  // them, and those whose values are equal byte for byte (joints animated
  // alike) one copy of those.
  const sharedTimes = new Map<string, number>(), sharedValues = new ValueTable();
  const place = (times: Float32Array, bytes: Uint8Array, alignment: number) => {
    const key = arrayKey(times);
    let timesAt = sharedTimes.get(key);
    if (timesAt === undefined) {
      sharedTimes.set(key, timesAt = end);
      end += times.byteLength;
    }
    let values = sharedValues.find(bytes, alignment);
    if (values === undefined) {
      values = align(end, alignment);
      sharedValues.add(bytes, alignment, values);
      end = values + bytes.length;
    }
    return { times: timesAt, values };
  };
  // A ranged track's values start with its range (min[3], scale[3]).
  const values = tracks.map((t) => {
    if (!t.range) return t.bytes;
    const bytes = new Uint8Array(TRACK_RANGE_BYTES + t.bytes.length);
    new Float32Array(bytes.buffer, 0, 6).set([...t.range.min, ...t.range.scale]);
    bytes.set(t.bytes, TRACK_RANGE_BYTES);
    return bytes;
  });
  const at = tracks.map((t, i) => place(t.times, values[i], 8));
  const blockAt = blocks.map((b) => place(b.times, b.bytes, 16));
  const image = new Uint8Array(align(end, 16));
  const view = new DataView(image.buffer);
  view.setUint32(0, groups, true);
  view.setUint32(4, tracks.length, true);
  view.setUint32(8, lanesAt, true);
  view.setUint32(12, tracksAt, true);
  view.setUint32(16, blocks.length, true);
  view.setUint32(20, syncsAt, true);
  view.setUint32(24, timeline.length, true);
  view.setUint32(28, timelineAt, true);
  view.setUint32(CLIP_SHARED_KEYS, sharedKeys, true);
  view.setUint32(CLIP_SHARED_GROUPS, sharedAt, true);
  for (let g = 0; g < groups && sharedKeys; g++) {
    const record = sharedAt + g * SHARED_GROUP_BYTES;
    image.set(template.subarray(g * CACHE_GROUP_BYTES, g * CACHE_GROUP_BYTES + 160), record);
  }
  blocks.forEach((b, i) => {
    if (!sharedKeys) return;
    const record = sharedAt + b.group * SHARED_GROUP_BYTES;
    view.setUint32(record + SHARED_GROUP_VALUES + b.path * 4, blockAt[i].values, true);
    if (b.slerp) view.setUint32(record + SHARED_GROUP_FLAGS, SHARED_SLERP, true);
  });
  timeline.forEach((entry, i) =>
    view.setUint32(timelineAt + i * TIMELINE_ENTRY_BYTES, entry, true)
  );
  image.set(new Uint8Array(lanes.buffer), lanesAt);
  // Track and block records start alike: times and values offsets, key count, flags.
  const writeRecord = (
    record: number,
    placed: { times: number; values: number },
    times: Float32Array,
    bytes: Uint8Array,
    flags: number,
  ) => {
    view.setUint32(record, placed.times, true);
    view.setUint32(record + 4, placed.values, true);
    view.setUint32(record + 8, times.length, true);
    view.setUint32(record + 12, flags, true);
    image.set(new Uint8Array(times.buffer, times.byteOffset, times.byteLength), placed.times);
    image.set(bytes, placed.values);
  };
  tracks.forEach((t, i) => {
    const record = tracksAt + i * TRACK_BYTES;
    const flags = t.format | (t.step ? TRACK_STEP : 0) | (t.bisect ? TRACK_BISECT : 0);
    writeRecord(record, at[i], t.times, values[i], flags);
  });
  blocks.forEach((b, i) => {
    const flags = b.format | (b.span << SYNC_SPAN_SHIFT) | (b.mask << SYNC_MASK_SHIFT);
    writeRecord(syncsAt + i * SYNC_BYTES, blockAt[i], b.times, b.bytes, flags);
  });
  return image;
}
