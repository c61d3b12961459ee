/**
 * Reading a compact clip file (`docs/clip_file_format.md`) as hostile
 * input: the header, the skeleton's identity, every clip record and image
 * (`_clip_file_image.ts`) are checked, in the file's order, before
 * anything is allocated in the core. What a clip keeps outside the core
 * (held values, root keys) is copied out of the file into one array per
 * clip, with no view but its channels' keys: arrays and views per channel
 * cost more than the checks on a file of small clips.
 *
 * @module
 */

import type { SkeletonAsset } from "./skeleton_asset.ts";
import { ClipFileError } from "./clip_file_error.ts";
import { checkImage } from "./_clip_file_image.ts";
import { type ClipExtras, readExtras } from "./_clip_file_extras.ts";
import { MAX_VALUE } from "./clip_validation.ts";
import {
  FILE_MAGIC,
  FILE_VERSION,
  HEADER,
  HEADER_BYTES,
  HELD_GROUP_BYTES,
  pad4,
  RECORD,
  RECORD_BYTES,
  RECORD_SHARED,
  RECORD_STEPS,
  restPoseHash,
  xxhash32,
} from "./_clip_file_format.ts";

/** One clip of a file, checked for its skeleton. */
export interface ClipFileEntry {
  readonly name: string;
  readonly animation: number;
  readonly start: number;
  readonly duration: number;
  readonly trackCount: number;
  readonly keyCount: number;
  readonly tolerance: number;
  readonly virtualDistance: number;
  readonly maxError: number;
  /** Whether a channel holds STEP keys (`RECORD_STEPS`). */
  readonly steps: boolean;
  /** Where its image is in the file. */
  readonly imageAt: number;
  readonly imageBytes: number;
  /**
   * Held values, 40 floats per group first (copied out of the file; after
   * them, the root keys its extras' channels view); none on a shared timeline.
   */
  readonly held: Float32Array | undefined;
  /** Per group, the lanes with keys (`cacheTemplate`); none on a shared timeline. */
  readonly keyed: readonly number[] | undefined;
  readonly extras: ClipExtras;
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

/** What a file must match of a skeleton (immutable), computed once per skeleton. */
const identities = new WeakMap<
  SkeletonAsset,
  { rest: Float32Array; parents: Int16Array; hash: number }
>();

function identityOf(skeleton: SkeletonAsset) {
  let identity = identities.get(skeleton);
  if (!identity) {
    const rest = skeleton.restPose;
    identity = { rest, parents: skeleton.parentIndices, hash: restPoseHash(rest) };
    identities.set(skeleton, identity);
  }
  return identity;
}

/**
 * Copies a clip's held values at byte `from` of `view` (one per float of
 * the rest pose `rest`) to `out` up to the first beyond ±{@linkcode MAX_VALUE}:
 * its index, or -1. The rest pose's own values pass as they are (finite,
 * checked by the skeleton). A function of its own: in the reader's body,
 * not optimized, each float read was boxed, 16 bytes of garbage a float.
 */
function keepHeld(view: DataView, from: number, rest: Float32Array, out: Float32Array): number {
  for (let i = 0; i < rest.length; i++) {
    const v = view.getFloat32(from + i * 4, true);
    if (!(Math.abs(v) <= MAX_VALUE) && !Object.is(v, rest[i])) return i;
    out[i] = v;
  }
  return -1;
}

/** The clips of the compact clip file `bytes`, checked for `skeleton`. */
export function readClipFile(skeleton: SkeletonAsset, bytes: Uint8Array): ClipFileEntry[] {
  if (!(bytes instanceof Uint8Array)) {
    throw new ClipFileError("bytes", 0, `expected a Uint8Array, got ${typeof bytes}`);
  }
  const length = bytes.length;
  if (length < HEADER_BYTES) {
    throw new ClipFileError("header", length, `a file of ${length} bytes has no 32-byte header`);
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, length);
  const u32 = (at: number) => view.getUint32(at, true);
  const expect = (field: string, at: number, got: number, wanted: number, what = "") => {
    if (got !== wanted) {
      throw new ClipFileError(field, at, `expected ${wanted}${what}, got ${got}`);
    }
  };
  expect("magic", HEADER.magic, u32(HEADER.magic), FILE_MAGIC, ' ("MRWC")');
  expect("version", HEADER.version, view.getUint16(HEADER.version, true), FILE_VERSION);
  expect("flags", HEADER.flags, view.getUint16(HEADER.flags, true), 0);
  expect("fileBytes", HEADER.fileBytes, u32(HEADER.fileBytes), length, " (the bytes given)");
  const checksum = xxhash32(bytes.subarray(HEADER.jointCount));
  expect("checksum", HEADER.checksum, u32(HEADER.checksum), checksum, " (xxHash32 of the file)");
  expect("reserved", HEADER.reserved, u32(HEADER.reserved), 0);

  // The skeleton's identity: joint count, parents, rest pose.
  const joints = skeleton.jointCount, groups = Math.ceil(joints / 4);
  expect("jointCount", HEADER.jointCount, u32(HEADER.jointCount), joints, " (the skeleton's)");
  const { rest, parents, hash } = identityOf(skeleton);
  expect(
    "restPoseHash",
    HEADER.restPoseHash,
    u32(HEADER.restPoseHash),
    hash,
    " (the skeleton's rest pose)",
  );
  let at = HEADER_BYTES;
  const needAt = (field: string, from: number, bytes: number) => {
    if (from + bytes > length) {
      throw new ClipFileError(field, from, `${bytes} bytes past the end of the file (${length})`);
    }
  };
  const need = (field: string, bytes: number) => needAt(field, at, bytes);
  const zeros = (field: string, end: number) => {
    for (; at < end; at++) if (bytes[at] !== 0) throw new ClipFileError(field, at, "not 0");
  };
  need("parents", pad4(joints * 2));
  for (let j = 0; j < joints; j++, at += 2) {
    expect(`parents[${j}]`, at, view.getInt16(at, true), parents[j], " (the skeleton's)");
  }
  zeros("parents.padding", pad4(at));

  const clipCount = u32(HEADER.clipCount);
  if (clipCount > (length - at) / RECORD_BYTES) {
    throw new ClipFileError("clipCount", HEADER.clipCount, `${clipCount} clips cannot fit`);
  }
  const entries: ClipFileEntry[] = [];
  for (let c = 0; c < clipCount; c++) {
    const field = `clips[${c}]`, record = at;
    need(field, RECORD_BYTES);
    const number = (name: keyof typeof RECORD, min: number) => {
      const v = view.getFloat64(record + RECORD[name], true);
      if (!(Number.isFinite(v) && v >= min)) {
        throw new ClipFileError(
          `${field}.${name}`,
          record + RECORD[name],
          `${v} is not finite >= ${min}`,
        );
      }
      return v;
    };
    const flags = u32(record + RECORD.flags);
    if (flags & ~(RECORD_SHARED | RECORD_STEPS)) {
      throw new ClipFileError(`${field}.flags`, record, `${flags}`);
    }
    const duration = number("duration", 0), start = number("start", -Infinity);
    const tolerance = number("tolerance", 0), virtualDistance = number("virtualDistance", 0);
    const maxError = number("maxError", 0);
    const animation = view.getInt32(record + RECORD.animation, true);
    if (animation < -1) {
      throw new ClipFileError(`${field}.animation`, record + RECORD.animation, `${animation}`);
    }
    const nameBytes = u32(record + RECORD.nameBytes);
    const imageBytes = u32(record + RECORD.imageBytes);
    at += RECORD_BYTES;
    need(`${field}.name`, pad4(nameBytes));
    let name: string;
    try {
      name = utf8.decode(bytes.subarray(at, at + nameBytes));
    } catch {
      throw new ClipFileError(`${field}.name`, at, "not UTF-8");
    }
    at += nameBytes;
    zeros(`${field}.name.padding`, pad4(at));
    const shared = (flags & RECORD_SHARED) !== 0;
    const heldAt = at, keyedAt = at + groups * HELD_GROUP_BYTES;
    if (!shared) {
      need(`${field}.held`, groups * HELD_GROUP_BYTES + pad4(groups * 2));
      at = keyedAt + groups * 2;
      zeros(`${field}.keyedLanes.padding`, pad4(at));
    }
    need(`${field}.image`, imageBytes);
    const imageAt = at;
    const image = checkImage({ view, at, length: imageBytes, field: `${field}.image` }, groups);
    if (image.shared !== shared) {
      throw new ClipFileError(`${field}.flags`, record, "the shared flag does not match the image");
    }
    at += imageBytes;
    const [extras, end, kept] = readExtras(
      {
        bytes,
        view,
        field,
        jointCount: joints,
        name,
        duration,
        need: needAt,
      },
      at,
      shared ? 0 : groups * 40,
    );
    at = end;
    let keyed: number[] | undefined;
    if (!shared) {
      keyed = [];
      const i = keepHeld(view, heldAt, rest, kept);
      if (i >= 0) {
        const v = view.getFloat32(heldAt + i * 4, true);
        throw new ClipFileError(`${field}.held`, heldAt + i * 4, `value ${v} out of bounds`);
      }
      for (let g = 0; g < groups; g++) {
        keyed.push(view.getUint16(keyedAt + g * 2, true));
        if (keyed[g] & ~image.unheld[g]) {
          throw new ClipFileError(
            `${field}.keyedLanes[${g}]`,
            keyedAt + g * 2,
            `${keyed[g]} marks lanes that name no track or block (${image.unheld[g]})`,
          );
        }
      }
    }
    entries.push({
      name,
      animation,
      start,
      duration,
      trackCount: u32(record + RECORD.trackCount),
      keyCount: u32(record + RECORD.keyCount),
      tolerance,
      virtualDistance,
      maxError,
      steps: (flags & RECORD_STEPS) !== 0,
      imageAt,
      imageBytes,
      held: shared ? undefined : kept,
      keyed,
      extras,
    });
  }
  if (at !== length) throw new ClipFileError("end", at, `${length - at} bytes after the last clip`);
  return entries;
}
