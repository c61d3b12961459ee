/**
 * Reading a compact clip file (`docs/clip_file_format.md`) as hostile
 * input: the header, the skeleton's identity, every clip record, image
 * (`_clip_file_image.ts`) and extras (`_clip_file_extras.ts`) are checked,
 * in the file's order and in place, before anything is allocated in the
 * core. What the clips keep outside the core (held values, keyed and
 * animated lanes, root keys) is then copied out of the file with
 * {@linkcode keepClipParts}: for all the clips of a file, one array.
 * Objects, arrays and views made per clip cost more than a small clip's
 * checks, and clips kept alive make a game's collections longer.
 *
 * @module
 */

import type { SkeletonAsset } from "./skeleton_asset.ts";
import { ClipFileError } from "./clip_file_error.ts";
import { checkImage } from "./_clip_file_image.ts";
import { checkExtras, type ExtrasSections, need } from "./_clip_file_extras.ts";
import { badHeld, beyondFlags, type FileViews } from "./_clip_file_scan.ts";
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
  xxhash32Words,
} from "./_clip_file_format.ts";

/** One clip of a file, checked for its skeleton: its record, and where its sections are. */
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
  /** Where its held values are in the file (the keyed lanes follow), or -1 on a shared timeline. */
  readonly heldAt: number;
  readonly extras: ExtrasSections;
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * The string of `n` bytes of UTF-8 at `from` of `bytes`, or undefined when
 * they are not UTF-8. ASCII, as clip names mostly are, is read here: the
 * decoder's call costs more than a short name's loop.
 */
function decodeName(bytes: Uint8Array, from: number, n: number): string | undefined {
  if (n > MAX_CODES) return decodeUtf8(bytes, from, n);
  codes.length = n;
  for (let i = 0; i < n; i++) {
    const c = bytes[from + i];
    if (c >= 0x80) return decodeUtf8(bytes, from, n);
    codes[i] = c;
  }
  // One flat string (a string grown by `+=` is a chain of pieces, kept with the clip).
  return String.fromCharCode.apply(null, codes);
}

/** An ASCII name's codes: names up to this long are read by {@linkcode decodeName}. */
const MAX_CODES = 64;
const codes: number[] = [];

function decodeUtf8(bytes: Uint8Array, from: number, n: number): string | undefined {
  try {
    return utf8.decode(bytes.subarray(from, from + n));
  } catch {
    return undefined;
  }
}

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

/** Throws a ClipFileError on `field` at `at` unless `got` is `wanted`. */
function expect(field: string, at: number, got: number, wanted: number, what = ""): void {
  if (got !== wanted) throw new ClipFileError(field, at, `expected ${wanted}${what}, got ${got}`);
}

/** Throws a ClipFileError on `field` when `bytes` bytes from `from` pass `length`. */
function needAt(field: string, from: number, bytes: number, length: number): void {
  if (from + bytes > length) {
    throw new ClipFileError(field, from, `${bytes} bytes past the end of the file (${length})`);
  }
}

/**
 * Throws a ClipFileError on `field` (of record `c` unless `c` is -1: its
 * name made only for the error) at the first byte of `[from, to)` that is
 * not 0.
 */
function zeros(bytes: Uint8Array, c: number, field: string, from: number, to: number): void {
  for (let at = from; at < to; at++) {
    if (bytes[at] !== 0) {
      throw new ClipFileError(c < 0 ? field : `clips[${c}]${field}`, at, "not 0");
    }
  }
}

/** The f64 field `name` of the record at `record`: finite and at least `min`, or a ClipFileError. */
function recordNumber(
  view: DataView,
  c: number,
  record: number,
  name: keyof typeof RECORD,
  min: number,
): number {
  const v = view.getFloat64(record + RECORD[name], true);
  if (!(Number.isFinite(v) && v >= min)) {
    throw new ClipFileError(
      `clips[${c}].${name}`,
      record + RECORD[name],
      `${v} is not finite >= ${min}`,
    );
  }
  return v;
}

/** Checks the header and the skeleton's identity; returns the offset of the first record. */
function checkHeader(skeleton: SkeletonAsset, file: FileViews): number {
  const { bytes, view } = file, length = bytes.length;
  const u32 = (at: number) => view.getUint32(at, true);
  expect("magic", HEADER.magic, u32(HEADER.magic), FILE_MAGIC, ' ("MRWC")');
  expect("version", HEADER.version, view.getUint16(HEADER.version, true), FILE_VERSION);
  expect("flags", HEADER.flags, view.getUint16(HEADER.flags, true), 0);
  expect("fileBytes", HEADER.fileBytes, u32(HEADER.fileBytes), length, " (the bytes given)");
  const from = HEADER.jointCount, beyond = beyondFlags(length >> 2);
  const checksum = xxhash32Words(file.words, from >> 2, bytes, from, length - from, beyond);
  expect("checksum", HEADER.checksum, u32(HEADER.checksum), checksum, " (xxHash32 of the file)");
  file.beyond = beyond;
  expect("reserved", HEADER.reserved, u32(HEADER.reserved), 0);

  // The skeleton's identity: joint count, parents, rest pose.
  const joints = skeleton.jointCount;
  expect("jointCount", HEADER.jointCount, u32(HEADER.jointCount), joints, " (the skeleton's)");
  const { parents, hash } = identityOf(skeleton);
  expect(
    "restPoseHash",
    HEADER.restPoseHash,
    u32(HEADER.restPoseHash),
    hash,
    " (the skeleton's rest pose)",
  );
  let at = HEADER_BYTES;
  needAt("parents", at, pad4(joints * 2), length);
  for (let j = 0; j < joints; j++, at += 2) {
    const parent = view.getInt16(at, true);
    if (parent !== parents[j]) expect(`parents[${j}]`, at, parent, parents[j], " (the skeleton's)");
  }
  zeros(bytes, -1, "parents.padding", at, pad4(at));
  return pad4(at);
}

/**
 * The file `bytes` where its 4-byte words can be read as a typed array's
 * (at a multiple of 4 in its buffer): itself, or else a copy.
 */
export function alignedFile(bytes: Uint8Array): Uint8Array {
  if (!(bytes instanceof Uint8Array)) {
    throw new ClipFileError("bytes", 0, `expected a Uint8Array, got ${typeof bytes}`);
  }
  return bytes.byteOffset % 4 === 0 ? bytes : bytes.slice();
}

/** The clips of the compact clip file `file` (the views of an {@linkcode alignedFile}), checked for `skeleton`. */
export function readClipFile(skeleton: SkeletonAsset, file: FileViews): ClipFileEntry[] {
  const { bytes, view } = file, length = bytes.length;
  if (length < HEADER_BYTES) {
    throw new ClipFileError("header", length, `a file of ${length} bytes has no 32-byte header`);
  }
  let at = checkHeader(skeleton, file);
  const groups = Math.ceil(skeleton.jointCount / 4);
  const { rest } = identityOf(skeleton);

  const clipCount = view.getUint32(HEADER.clipCount, true);
  if (clipCount > (length - at) / RECORD_BYTES) {
    throw new ClipFileError("clipCount", HEADER.clipCount, `${clipCount} clips cannot fit`);
  }
  const entries: ClipFileEntry[] = [];
  for (let c = 0; c < clipCount; c++) {
    const record = at;
    need(c, "", record, RECORD_BYTES, length);
    const flags = view.getUint32(record + RECORD.flags, true);
    if (flags & ~(RECORD_SHARED | RECORD_STEPS)) {
      throw new ClipFileError(`clips[${c}].flags`, record, `${flags}`);
    }
    const duration = recordNumber(view, c, record, "duration", 0);
    const start = recordNumber(view, c, record, "start", -Infinity);
    const tolerance = recordNumber(view, c, record, "tolerance", 0);
    const virtualDistance = recordNumber(view, c, record, "virtualDistance", 0);
    const maxError = recordNumber(view, c, record, "maxError", 0);
    const animation = view.getInt32(record + RECORD.animation, true);
    if (animation < -1) {
      throw new ClipFileError(`clips[${c}].animation`, record + RECORD.animation, `${animation}`);
    }
    const nameBytes = view.getUint32(record + RECORD.nameBytes, true);
    const imageBytes = view.getUint32(record + RECORD.imageBytes, true);
    at += RECORD_BYTES;
    need(c, ".name", at, pad4(nameBytes), length);
    const name = decodeName(bytes, at, nameBytes);
    if (name === undefined) throw new ClipFileError(`clips[${c}].name`, at, "not UTF-8");
    at += nameBytes;
    zeros(bytes, c, ".name.padding", at, pad4(at));
    at = pad4(at);
    const shared = (flags & RECORD_SHARED) !== 0;
    const heldAt = at, keyedAt = at + groups * HELD_GROUP_BYTES;
    if (!shared) {
      need(c, ".held", at, groups * HELD_GROUP_BYTES + pad4(groups * 2), length);
      at = keyedAt + groups * 2;
      zeros(bytes, c, ".keyedLanes.padding", at, pad4(at));
      at = pad4(at);
    }
    need(c, ".image", at, imageBytes, length);
    const imageAt = at;
    const image = checkImage(file, imageAt, imageBytes, c, groups);
    if (image.shared !== shared) {
      throw new ClipFileError(
        `clips[${c}].flags`,
        record,
        "the shared flag does not match the image",
      );
    }
    at += imageBytes;
    const extras = checkExtras(file, c, skeleton.jointCount, duration, at);
    at = extras.end;
    if (!shared) {
      const i = badHeld(file, heldAt >> 2, rest);
      if (i >= 0) {
        const v = view.getFloat32(heldAt + i * 4, true);
        throw new ClipFileError(`clips[${c}].held`, heldAt + i * 4, `value ${v} out of bounds`);
      }
      for (let g = 0; g < groups; g++) {
        const keyed = view.getUint16(keyedAt + g * 2, true);
        if (keyed & ~image.unheld[g]) {
          throw new ClipFileError(
            `clips[${c}].keyedLanes[${g}]`,
            keyedAt + g * 2,
            `${keyed} marks lanes that name no track or block (${image.unheld[g]})`,
          );
        }
      }
    }
    entries.push({
      name,
      animation,
      start,
      duration,
      trackCount: view.getUint32(record + RECORD.trackCount, true),
      keyCount: view.getUint32(record + RECORD.keyCount, true),
      tolerance,
      virtualDistance,
      maxError,
      steps: (flags & RECORD_STEPS) !== 0,
      imageAt,
      imageBytes,
      heldAt: shared ? -1 : heldAt,
      extras,
    });
  }
  if (at !== length) throw new ClipFileError("end", at, `${length - at} bytes after the last clip`);
  return entries;
}

/**
 * What the clips of a checked file keep outside the core, in one buffer
 * (little-endian, as the file and the core's memory are): per clip, in
 * 4-byte words, its held values (40 f32 per group) and keyed lanes (u16
 * per group, padded) unless on a shared timeline, its animated lanes (as
 * keyed), then its root motion channels (16-byte header, f32 times and
 * values), each copied as the file has it. `from[i]` is clip `i`'s first
 * word. The float and u16 views are made when first used (a clip's first
 * play, a layer's mask, root motion), not per load.
 */
export class KeptParts {
  #floats: Float32Array | undefined;
  #lanes: Uint16Array | undefined;

  constructor(readonly words: Int32Array, readonly from: Uint32Array) {}

  /** The words as floats. */
  get floats(): Float32Array {
    const { buffer, byteOffset, length } = this.words;
    return this.#floats ??= new Float32Array(buffer, byteOffset, length);
  }

  /** The words as u16 pairs (lanes). */
  get lanes(): Uint16Array {
    const { buffer, byteOffset, length } = this.words;
    return this.#lanes ??= new Uint16Array(buffer, byteOffset, length * 2);
  }
}

/**
 * Bytes of the buffers that the kept parts of small files are cut from: a
 * buffer made per load cost a Fox load as much as its checks (and one of
 * 64 KB, cut for RobotExpressive's 60 KB of held values and root motion
 * keys only once, 5 % of its load). Such a buffer stays while any clip cut
 * from it does (at most this much memory held for a small clip).
 */
const SLAB_BYTES = 1 << 18;
/** Kept parts larger than this get a buffer of their own. */
const MAX_SLAB_CUT = SLAB_BYTES >> 2;
let slab = new ArrayBuffer(SLAB_BYTES), slabUsed = 0;

/** A buffer and byte offset with `bytes` bytes (a multiple of 4) of zeros for a file's kept parts. */
function keptBuffer(bytes: number): [ArrayBuffer, number] {
  if (bytes > MAX_SLAB_CUT) return [new ArrayBuffer(bytes), 0];
  if (slabUsed + bytes > SLAB_BYTES) slab = new ArrayBuffer(SLAB_BYTES), slabUsed = 0;
  const at = slabUsed;
  slabUsed += bytes;
  return [slab, at];
}

/** Copies `n` words of `words` from word `from` to `out` from `to`. */
function copyWords(words: Int32Array, from: number, n: number, out: Int32Array, to: number): void {
  // Words, not floats: a copy through a JavaScript number may change a NaN's bits.
  // A long run as a copy of memory; a short one in a loop, cheaper than a view.
  if (n > 256) out.set(words.subarray(from, from + n), to);
  else for (let i = 0; i < n; i++) out[to + i] = words[from + i];
}

/** Copies what the clips `entries` of the checked file `file` keep outside the core ({@linkcode KeptParts}). */
export function keepClipParts(
  file: FileViews,
  entries: readonly ClipFileEntry[],
  groups: number,
): KeptParts {
  const laneWords = pad4(groups * 2) >> 2, heldWords = groups * (HELD_GROUP_BYTES >> 2);
  const from = new Uint32Array(entries.length);
  let words = 0;
  for (let i = 0; i < entries.length; i++) {
    const { heldAt, extras } = entries[i];
    from[i] = words;
    words += (heldAt >= 0 ? heldWords + laneWords : 0) + laneWords + extras.motionWords;
  }
  const [buffer, byteOffset] = keptBuffer(words * 4);
  const out = new Int32Array(buffer, byteOffset, words);
  const fileWords = file.words;
  for (let i = 0; i < entries.length; i++) {
    const { heldAt, extras } = entries[i];
    let to = from[i];
    if (heldAt >= 0) {
      copyWords(fileWords, heldAt >> 2, heldWords + laneWords, out, to);
      to += heldWords + laneWords;
    }
    copyWords(fileWords, extras.animatedAt >> 2, laneWords, out, to);
    copyWords(fileWords, extras.motionAt >> 2, extras.motionWords, out, to + laneWords);
  }
  return new KeptParts(out, from);
}
