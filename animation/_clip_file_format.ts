/**
 * The layout of compact clip files (`docs/clip_file_format.md`): the
 * header and clip record offsets, the checksum (CRC-32), the hash of a
 * skeleton's rest pose, and a playback's starting cache rebuilt from the
 * part a file stores.
 *
 * @module
 */

import {
  CACHE_GROUP_BYTES,
  CACHE_RIGHT,
  CACHE_TIMING,
  SHARED_CACHE_BYTES,
  TIME_BOUND,
} from "../simd/assembly/abi.ts";

/** "MRWC", little-endian. */
export const FILE_MAGIC = 0x4357524d;
/** The version this reader reads and writes. */
export const FILE_VERSION = 1;
/** Header fields: byte offsets. */
export const HEADER = {
  magic: 0,
  version: 4,
  flags: 6,
  fileBytes: 8,
  checksum: 12,
  jointCount: 16,
  restPoseHash: 20,
  clipCount: 24,
  reserved: 28,
} as const;
/** Bytes of the header; the checksum covers the file from `HEADER.jointCount` on. */
export const HEADER_BYTES = 32;
/** Clip record fields: byte offsets from the record's start. */
export const RECORD = {
  flags: 0,
  duration: 4,
  start: 12,
  tolerance: 20,
  virtualDistance: 28,
  maxError: 36,
  animation: 44,
  trackCount: 48,
  keyCount: 52,
  nameBytes: 56,
  imageBytes: 60,
} as const;
/** Bytes of a clip record before its name. */
export const RECORD_BYTES = 64;
/** Clip record flag: the clip is on one shared timeline; no held pose section. */
export const RECORD_SHARED = 1;
/** Bytes of held values per SoA×4 group (a pose group: 40 f32). */
export const HELD_GROUP_BYTES = 160;

/** `n` rounded up to a multiple of 4. */
export function pad4(n: number): number {
  return (n + 3) & ~3;
}

const CRC_TABLES = (() => {
  const tables = new Uint32Array(8 * 256);
  for (let i = 0; i < 256; i++) {
    let c = i;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    tables[i] = c;
  }
  for (let i = 0; i < 256; i++) {
    for (let t = 1; t < 8; t++) {
      const c = tables[(t - 1) * 256 + i];
      tables[t * 256 + i] = tables[c & 0xff] ^ (c >>> 8);
    }
  }
  return tables;
})();

/** CRC-32 (IEEE 802.3, as zlib's) of `bytes`, eight bytes a step (slicing-by-8). */
export function crc32(bytes: Uint8Array): number {
  const t = CRC_TABLES;
  let c = 0xffffffff, i = 0;
  const n = bytes.length, end8 = n - (n & 7);
  for (; i < end8; i += 8) {
    const a = c ^ (bytes[i] | (bytes[i + 1] << 8) | (bytes[i + 2] << 16) | (bytes[i + 3] << 24));
    const b = bytes[i + 4] | (bytes[i + 5] << 8) | (bytes[i + 6] << 16) | (bytes[i + 7] << 24);
    c = t[1792 + (a & 0xff)] ^ t[1536 + ((a >>> 8) & 0xff)] ^ t[1280 + ((a >>> 16) & 0xff)] ^
      t[1024 + (a >>> 24)] ^ t[768 + (b & 0xff)] ^ t[512 + ((b >>> 8) & 0xff)] ^
      t[256 + ((b >>> 16) & 0xff)] ^ t[b >>> 24];
  }
  for (; i < n; i++) c = t[(c ^ bytes[i]) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/** The hash a file keeps of a skeleton's rest pose: CRC-32 of its floats, little-endian. */
export function restPoseHash(restPose: Float32Array): number {
  const bytes = new Uint8Array(restPose.length * 4);
  const view = new DataView(bytes.buffer);
  restPose.forEach((v, i) => view.setFloat32(i * 4, v, true));
  return crc32(bytes);
}

/**
 * A playback's starting cache (`_clip_image.ts`) from what a file keeps of
 * it: per group the held values (left keys; the right keys are the same)
 * and a bit per lane whose track or block has keys (`path * 4 + lane`:
 * its interval starts empty at `TIME_BOUND`, so the first sample refills
 * it; other lanes hold `[-TIME_BOUND, TIME_BOUND)`). Shared clips: the
 * zero cursor.
 */
export function cacheTemplate(
  groups: number,
  held: Uint8Array | undefined,
  keyedLanes: ArrayLike<number>,
): Uint8Array {
  if (!held) return new Uint8Array(SHARED_CACHE_BYTES);
  const template = new Uint8Array(groups * CACHE_GROUP_BYTES);
  const view = new DataView(template.buffer);
  for (let g = 0; g < groups; g++) {
    const base = g * CACHE_GROUP_BYTES;
    const values = held.subarray(g * HELD_GROUP_BYTES, (g + 1) * HELD_GROUP_BYTES);
    template.set(values, base);
    template.set(values, base + CACHE_RIGHT);
    for (let i = 0; i < 12; i++) {
      const timing = base + CACHE_TIMING + (i >> 2) * 48 + (i & 3) * 4;
      view.setFloat32(timing, keyedLanes[g] & (1 << i) ? TIME_BOUND : -TIME_BOUND, true);
      view.setFloat32(timing + 16, TIME_BOUND, true);
    }
  }
  return template;
}
