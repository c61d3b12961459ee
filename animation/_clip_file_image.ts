/**
 * Validation of a compact clip's image (layout: `compact_clip.ts`) read
 * from a file: everything the sampling kernels (`simd/wasm/assembly/sample*.ts`)
 * and their scalar twin read, so that no image can make them read outside
 * it, loop without end, or produce a value that is not finite. Each
 * record's offsets and sizes, each lane entry, format, flag, key count, key
 * time and float key is checked; the work is bounded by the image's bytes
 * (key arrays read by several records are checked once, and arrays that
 * overlap otherwise are refused).
 *
 * @module
 */

import {
  CLIP_HEADER_BYTES,
  CLIP_SHARED_GROUPS,
  CLIP_SHARED_KEYS,
  SHARED_GROUP_BYTES,
  SHARED_GROUP_FLAGS,
  SHARED_GROUP_VALUES,
  SHARED_SLERP,
  SYNC_BYTES,
  SYNC_MASK_SHIFT,
  SYNC_RANGE_BYTES,
  SYNC_SPAN_SHIFT,
  TIMELINE_ENTRY_BYTES,
  TRACK_BISECT,
  TRACK_BYTES,
  TRACK_RANGE_BYTES,
  TRACK_RANGED,
  TRACK_RAW,
  TRACK_SMALLEST_THREE,
  TRACK_SMALLEST_THREE_WIDE,
  TRACK_STEP,
} from "../simd/wasm/assembly/abi.ts";
import { MAX_VALUE, MIN_KEY_INTERVAL } from "./clip_validation.ts";
import { badTime, badValue, type FileViews, MAX_KEY_TIME } from "./_clip_file_scan.ts";
import { ClipFileError } from "./clip_file_error.ts";
import { checkedOffsets, laneScratch } from "./_clip_file_scratch.ts";

/** Largest step of a ranged key (`scale`): a range of at most twice {@linkcode MAX_VALUE}. */
const MAX_RANGE_SCALE = (2 * MAX_VALUE) / 65535;
/** Bytes past a sync block's keys that its 4-wide loads may read (the builder pads them). */
const SYNC_OVERREAD = 16;
const PATHS = ["translation", "rotation", "scale"] as const;

/** The name of record `index` of table `kind` (`tracks[3]`), made for an error only. */
function record(kind: string, index: number): string {
  return `${kind}[${index}]`;
}

/** The name of lane entry `i` of group `g`, made for an error only. */
function lane(g: number, i: number): string {
  return `lanes[${g * 12 + i}]`;
}

/** Bytes per key and lane of `format` on path `path` (0 translation, 1 rotation, 2 scale). */
function keyBytes(format: number, path: number): number {
  if (format === TRACK_SMALLEST_THREE) return 8;
  if (format === TRACK_SMALLEST_THREE_WIDE) return 12;
  if (format === TRACK_RANGED) return 6;
  return path === 1 ? 16 : 12;
}

/** Whether the kernels decode `format` for path `path`. */
function formatFits(format: number, path: number): boolean {
  return path === 1
    ? format === TRACK_RAW || format === TRACK_SMALLEST_THREE ||
      format === TRACK_SMALLEST_THREE_WIDE
    : format === TRACK_RAW || format === TRACK_RANGED;
}

/** No file: what {@linkcode site} holds between images. */
const NO_FILE: FileViews = {
  bytes: new Uint8Array(0),
  view: new DataView(new ArrayBuffer(0)),
  f32: new Float32Array(0),
  words: new Int32Array(0),
  beyond: undefined,
};

/**
 * The image being checked, and what its key checks share: kept between
 * images, so that a check of a small image makes no closures.
 */
const site = {
  file: NO_FILE,
  /** Byte of the image in the file, its bytes, and its clip's index. */
  at: 0,
  length: 0,
  c: 0,
  /** Bytes of key arrays that may still be read (arrays that overlap otherwise are refused). */
  budget: 0,
  checkedTimes: checkedOffsets(0, 0),
  checkedValues: checkedOffsets(1, 0),
};

/** Throws the ClipFileError of field `name` of the image, at byte `offset` of it. */
function fail(name: string, offset: number, message: string): never {
  throw new ClipFileError(`clips[${site.c}].image.${name}`, site.at + offset, message);
}

/** The u32 at byte `offset` of the image. */
function u32(offset: number): number {
  return site.file.view.getUint32(site.at + offset, true);
}

/** Checks that `count` items of `size` bytes at the offset held at header byte `h` lie in the image. */
function table(name: string, h: number, count: number, size: number): number {
  const offset = u32(h), length = site.length;
  if (count === 0) return offset;
  if (offset < CLIP_HEADER_BYTES || offset + count * size > length) {
    fail(name, h, `${count} × ${size} bytes at ${offset} do not fit the image of ${length} bytes`);
  }
  return offset;
}

/**
 * Counts `bytes` more bytes of key arrays read for record `index` of
 * `kind` (its name made only for an error, not for each record).
 */
function spend(kind: string, index: number, field: string, byte: number, bytes: number): void {
  site.budget -= bytes;
  if (site.budget < 0) {
    fail(
      `${kind}[${index}].${field}`,
      byte,
      "key arrays overlap: more bytes read than the image holds",
    );
  }
}

/** Checks the `n` key times at image byte `offset` of record `index` of `kind` (at image byte `byte`). */
function checkTimes(kind: string, index: number, byte: number, offset: number, n: number): void {
  const { file, at, length } = site, view = file.view;
  if (n === 0) {
    fail(`${record(kind, index)}.keyCount`, byte + 8, "a track needs at least one key");
  }
  if (offset < CLIP_HEADER_BYTES || offset + n * 4 > length) {
    fail(`${record(kind, index)}.times`, byte, `${n} key times at ${offset} do not fit the image`);
  }
  if (site.checkedTimes.checked(offset, n)) return;
  spend(kind, index, "times", byte, n * 4);
  const k = badTime(file, at + offset, n);
  if (k >= 0) {
    const t = view.getFloat32(at + offset + k * 4, true);
    const previous = k > 0 ? view.getFloat32(at + offset + k * 4 - 4, true) : -Infinity;
    if (!(Math.abs(t) <= MAX_KEY_TIME)) {
      fail(
        `${record(kind, index)}.times`,
        offset + k * 4,
        `key ${k}: time ${t} is not finite within ±1e18`,
      );
    }
    if (!(Math.fround(t - previous) >= MIN_KEY_INTERVAL)) {
      fail(
        `${record(kind, index)}.times`,
        offset + k * 4,
        `key ${k}: time ${t} is not 1e-30 after ${previous}`,
      );
    }
  }
}

/**
 * Checks the key values at image byte `offset` of record `index` of
 * `kind`: `head` bytes of ranges, then `bytes` of keys of `format`.
 */
function checkValues(
  kind: string,
  index: number,
  byte: number,
  offset: number,
  head: number,
  bytes: number,
  format: number,
): void {
  const { file, at, length } = site, view = file.view;
  const end = offset + head + bytes;
  if (offset < CLIP_HEADER_BYTES || end > length) {
    fail(
      `${record(kind, index)}.values`,
      byte + 4,
      `${head + bytes} bytes at ${offset} do not fit the image`,
    );
  }
  if (site.checkedValues.checked(offset, end)) return;
  if (format === TRACK_RANGED) {
    // min[3] then scale[3]: per track one float each, per block four lanes each.
    spend(kind, index, "values", byte + 4, head);
    const half = head / 2;
    for (let i = 0; i < half; i += 4) {
      const min = view.getFloat32(at + offset + i, true);
      const scale = view.getFloat32(at + offset + half + i, true);
      if (!(Math.abs(min) <= MAX_VALUE) || !(scale >= 0 && scale <= MAX_RANGE_SCALE)) {
        fail(
          `${record(kind, index)}.values`,
          offset + i,
          `range min ${min}, scale ${scale} out of bounds`,
        );
      }
    }
  } else if (format === TRACK_RAW) {
    spend(kind, index, "values", byte + 4, bytes);
    const k = badValue(file, at + offset, bytes >> 2);
    if (k >= 0) {
      const v = view.getFloat32(at + offset + k * 4, true);
      fail(`${record(kind, index)}.values`, offset + k * 4, `key value ${v} out of bounds`);
    }
  }
  // Smallest-three keys: every bit pattern decodes to a finite rotation.
}

/** What {@linkcode checkImage} found, kept between images (valid until the next is checked). */
const found: { shared: boolean; unheld: Uint16Array } = {
  shared: false,
  unheld: new Uint16Array(0),
};

/**
 * Checks the image of clip `c` of a file, `length` bytes at byte
 * `at`, for a skeleton of `groups` SoA×4 groups; returns the keyed-lane
 * bits it implies are allowed (lanes not held: a template may mark only
 * these keyed) and whether it is a shared-timeline clip, both valid until
 * the next image is checked. Throws a {@linkcode ClipFileError} naming the
 * field (`clips[c].image.…`) and its byte.
 */
export function checkImage(
  file: FileViews,
  at: number,
  length: number,
  c: number,
  groups: number,
): { readonly shared: boolean; readonly unheld: Uint16Array } {
  site.file = file, site.at = at, site.length = length, site.c = c;
  try {
    return checkSite(groups);
  } finally {
    // Not kept: the file may be large, and the caller's to drop.
    site.file = NO_FILE;
  }
}

/** {@linkcode checkImage} of the image at `site`. */
function checkSite(groups: number): { readonly shared: boolean; readonly unheld: Uint16Array } {
  const { file, at, length } = site, view = file.view;
  if (length < CLIP_HEADER_BYTES || length % 16 !== 0) {
    fail("bytes", 0, `expected a multiple of 16 of at least ${CLIP_HEADER_BYTES}, got ${length}`);
  }
  if (u32(0) !== groups) {
    fail("groupCount", 0, `expected ${groups} (the skeleton's), got ${u32(0)}`);
  }
  const trackCount = u32(4), syncCount = u32(16), timelineCount = u32(24);
  const sharedKeys = u32(CLIP_SHARED_KEYS);
  // Lane entries are i16: a track or block no lane can name is refused.
  if (trackCount > 32767) fail("trackCount", 4, `${trackCount} is over 32767`);
  if (syncCount > 32767) fail("syncCount", 16, `${syncCount} is over 32767`);
  const lanes = table("lanes", 8, groups * 12, 2);
  const tracks = table("tracks", 12, trackCount, TRACK_BYTES);
  const syncs = table("syncs", 20, syncCount, SYNC_BYTES);
  const timeline = table("timeline", 28, timelineCount, TIMELINE_ENTRY_BYTES);
  const shared = sharedKeys !== 0;
  const records = shared
    ? table("sharedGroups", CLIP_SHARED_GROUPS, groups, SHARED_GROUP_BYTES)
    : 0;
  if (!shared && u32(CLIP_SHARED_GROUPS) !== 0) {
    fail("sharedGroups", CLIP_SHARED_GROUPS, "must be 0 in a clip without a shared timeline");
  }
  if (shared && (syncCount === 0 || trackCount !== 0 || timelineCount !== 0 || records === 0)) {
    fail(
      "sharedKeys",
      CLIP_SHARED_KEYS,
      "a shared timeline needs sync blocks and group records, and no tracks or timeline entries",
    );
  }

  // Lanes: each names nothing (-1), one track (used by no other lane) or a
  // sync block (all of whose lanes lie in one group path).
  const { trackPath, blockPlace, blockLanes, unheld } = laneScratch(trackCount, syncCount, groups);
  for (let g = 0; g < groups; g++) {
    for (let i = 0; i < 12; i++) {
      const byte = lanes + (g * 12 + i) * 2, p = i >> 2;
      const entry = view.getInt16(at + byte, true);
      if (entry === -1) continue;
      unheld[g] |= 1 << i;
      if (entry >= 0 && entry < trackCount) {
        if (trackPath[entry] >= 0) {
          fail(lane(g, i), byte, `track ${entry} is named by a second lane`);
        }
        trackPath[entry] = p;
      } else if (entry <= -2 && -2 - entry < syncCount) {
        const b = -2 - entry, place = g * 3 + p;
        if (blockPlace[b] >= 0 && blockPlace[b] !== place) {
          fail(lane(g, i), byte, `sync block ${b} is named by lanes of two group paths`);
        }
        blockPlace[b] = place;
        blockLanes[b] |= 1 << (i & 3);
      } else {
        fail(lane(g, i), byte, `${entry} names no track (${trackCount}) or block (${syncCount})`);
      }
    }
  }

  // Key arrays: checked once per offset; the bytes checked may not pass
  // the image's (arrays of distinct records that overlap are refused).
  site.checkedTimes = checkedOffsets(0, trackCount + syncCount);
  site.checkedValues = checkedOffsets(1, trackCount + syncCount);
  site.budget = length;

  for (let i = 0; i < trackCount; i++) {
    const byte = tracks + i * TRACK_BYTES;
    const p = trackPath[i];
    if (p < 0) fail(record("tracks", i), byte, "no lane names the track");
    const n = u32(byte + 8), flags = u32(byte + 12), format = flags & 15;
    if (flags & ~(15 | TRACK_STEP | TRACK_BISECT)) {
      fail(`${record("tracks", i)}.flags`, byte + 12, `${flags}`);
    }
    if (!formatFits(format, p)) {
      fail(
        `${record("tracks", i)}.flags`,
        byte + 12,
        `format ${format} cannot hold ${PATHS[p]} keys`,
      );
    }
    if (flags & TRACK_BISECT && (p !== 1 || flags & TRACK_STEP)) {
      fail(`${record("tracks", i)}.flags`, byte + 12, "only LINEAR rotation tracks are bisected");
    }
    checkTimes("tracks", i, byte, u32(byte), n);
    const head = format === TRACK_RANGED ? TRACK_RANGE_BYTES : 0;
    checkValues("tracks", i, byte, u32(byte + 4), head, n * keyBytes(format, p), format);
  }

  for (let b = 0; b < syncCount; b++) {
    const byte = syncs + b * SYNC_BYTES;
    if (blockPlace[b] < 0) fail(record("syncs", b), byte, "no lane names the sync block");
    const p = blockPlace[b] % 3;
    const n = u32(byte + 8), flags = u32(byte + 12), format = flags & 15;
    const span = (flags >>> SYNC_SPAN_SHIFT) & 15, mask = (flags >>> SYNC_MASK_SHIFT) & 15;
    if (flags & ~(15 | (15 << SYNC_SPAN_SHIFT) | (15 << SYNC_MASK_SHIFT))) {
      fail(`${record("syncs", b)}.flags`, byte + 12, `unknown bits in ${flags}`);
    }
    if (!formatFits(format, p)) {
      fail(
        `${record("syncs", b)}.flags`,
        byte + 12,
        `format ${format} cannot hold ${PATHS[p]} keys`,
      );
    }
    // The lanes stored per key are those up to the highest of the mask.
    if (span < 1 || span > 4 || mask !== blockLanes[b] || 32 - Math.clz32(mask) !== span) {
      fail(
        `${record("syncs", b)}.flags`,
        byte + 12,
        `span ${span}, lane mask ${mask}: expected the mask of the lanes naming it (${
          blockLanes[b]
        }) up to its span`,
      );
    }
    if (shared && (format !== TRACK_RAW || mask !== 15 || n !== sharedKeys)) {
      fail(
        record("syncs", b),
        byte,
        `a shared timeline's blocks are floats in four lanes, ${sharedKeys} keys`,
      );
    }
    checkTimes("syncs", b, byte, u32(byte), n);
    const head = format === TRACK_RANGED ? SYNC_RANGE_BYTES : 0;
    const bytes = n * span * keyBytes(format, p) + (shared ? 0 : SYNC_OVERREAD);
    checkValues("syncs", b, byte, u32(byte + 4), head, bytes, format);
  }

  for (let i = 0; i < timelineCount; i++) {
    const byte = timeline + i * TIMELINE_ENTRY_BYTES, e = u32(byte), b = e & 0xffff;
    if (b >= syncCount || blockPlace[b] !== (e >>> 18) * 3 + ((e >>> 16) & 3)) {
      fail(`timeline[${i}]`, byte, `entry ${e} is not a sync block at its group and path`);
    }
  }

  for (let g = 0; g < groups && shared; g++) {
    const byte = records + g * SHARED_GROUP_BYTES, name = `sharedGroups[${g}]`;
    for (let i = 0; i < 40; i++) {
      const v = view.getFloat32(at + byte + i * 4, true);
      if (!Number.isFinite(v)) fail(`${name}.held`, byte + i * 4, `value ${v} is not finite`);
    }
    for (let p = 0; p < 3; p++) {
      const values = u32(byte + SHARED_GROUP_VALUES + p * 4);
      const entry = view.getInt16(at + lanes + (g * 12 + p * 4) * 2, true);
      const expected = entry <= -2 ? u32(syncs + (-2 - entry) * SYNC_BYTES + 4) : 0;
      if (values !== expected) {
        fail(`${name}.values[${p}]`, byte + SHARED_GROUP_VALUES + p * 4, `expected ${expected}`);
      }
    }
    const flags = u32(byte + SHARED_GROUP_FLAGS);
    if (flags & ~SHARED_SLERP) fail(`${name}.flags`, byte + SHARED_GROUP_FLAGS, `${flags}`);
  }
  found.shared = shared;
  found.unheld = unheld;
  return found;
}
