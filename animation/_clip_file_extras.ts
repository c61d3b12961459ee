/**
 * The sections of a compact clip file's record after the image
 * (`docs/clip_file_format.md`): what a clip is besides its compact form,
 * so that a loaded clip plays as the clip saved everywhere a clip is used.
 * `animated`: the properties of each joint it has channels for (a layer's
 * effective mask; not the image's keyed lanes, since a channel held
 * constant has no keys yet still masks the layers under it). `markers`:
 * its markers. `motion`: the keys, as given, of the translation and
 * rotation channels of the joints root motion may be taken from. `morph`:
 * its morph weights channels (`_clip_file_morph.ts`).
 *
 * @module
 */

import type { ChannelPath, Clip, ClipChannel } from "./clip.ts";
import { type ClipMarker, getClipMarkers, MAX_MARKERS } from "./markers.ts";
import { animatedProperties, type AnimatedProperty, motionChannels } from "./_keyless_clip.ts";
import { MIN_KEY_INTERVAL } from "./clip_validation.ts";
import { badMotionTime, type FileViews, firstBeyondIn, notUnit } from "./_clip_file_scan.ts";
import { ClipFileError } from "./clip_file_error.ts";
import { FILE_INTERPOLATIONS, pad4 } from "./_clip_file_format.ts";
import type { KeptParts } from "./_clip_file_read.ts";
import type { MorphWeightsChannel } from "./morph.ts";
import { checkMorph, morphBytes, writeMorph } from "./_clip_file_morph.ts";

/** What a record keeps of a clip after its image. */
interface ClipExtras {
  readonly animated: readonly AnimatedProperty[];
  readonly markers: readonly ClipMarker[];
  readonly motion: readonly ClipChannel[];
  readonly morph: readonly MorphWeightsChannel[];
}

const PATHS: readonly ChannelPath[] = ["translation", "rotation", "scale"];
/** Bytes of a motion channel's header: joint, path, interpolation, key count, node, reserved. */
const MOTION_HEADER_BYTES = 16;
const encoder = new TextEncoder();
const utf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * The extras of `clip`, root motion kept for the joints in `motionJoints`,
 * or by default for the skeleton's roots and the topmost joints the clip
 * moves (a translation or rotation channel, none on an ancestor: a
 * character's hips under an unanimated armature node).
 */
export function clipExtras(
  clip: Clip,
  parents: ArrayLike<number>,
  motionJoints?: ReadonlySet<number>,
): ClipExtras {
  const moving = motionChannels(clip).filter((c) =>
    c.path === "translation" || c.path === "rotation"
  );
  let joints = motionJoints;
  if (!joints) {
    const moved = new Set(moving.map((c) => c.joint));
    const topmost = (joint: number) => {
      for (let p = parents[joint]; p >= 0; p = parents[p]) if (moved.has(p)) return false;
      return true;
    };
    joints = new Set([...moved].filter(topmost));
  }
  return {
    animated: animatedProperties(clip),
    markers: getClipMarkers(clip),
    motion: moving.filter((c) => joints.has(c.joint)),
    morph: clip.morphChannels ?? [],
  };
}

function valueFloats(channel: ClipChannel): number {
  return channel.times.length * (channel.path === "rotation" ? 4 : 3) *
    (channel.interpolation === "CUBICSPLINE" ? 3 : 1);
}

/** Bytes of `extras` in a record of a skeleton of `groups` SoA×4 groups. */
export function extrasBytes(extras: ClipExtras, groups: number): number {
  let bytes = pad4(groups * 2) + 4 + 4;
  for (const m of extras.markers) bytes += 12 + pad4(encoder.encode(m.name).length);
  for (const c of extras.motion) {
    bytes += MOTION_HEADER_BYTES + 4 * (c.times.length + valueFloats(c));
  }
  return bytes + morphBytes(extras.morph);
}

/** Writes `extras` at `at` of `view`; returns the offset after them. */
export function writeExtras(
  view: DataView,
  at: number,
  extras: ClipExtras,
  groups: number,
): number {
  for (const { joint, path } of extras.animated) {
    const word = at + (joint >> 2) * 2;
    view.setUint16(
      word,
      view.getUint16(word, true) | (1 << (PATHS.indexOf(path) * 4 + (joint & 3))),
      true,
    );
  }
  at += pad4(groups * 2);
  view.setUint32(at, extras.markers.length, true);
  at += 4;
  for (const { name, time } of extras.markers) {
    const bytes = encoder.encode(name);
    view.setFloat64(at, time, true);
    view.setUint32(at + 8, bytes.length, true);
    new Uint8Array(view.buffer, view.byteOffset).set(bytes, at + 12);
    at += 12 + pad4(bytes.length);
  }
  view.setUint32(at, extras.motion.length, true);
  at += 4;
  for (const c of extras.motion) {
    view.setUint16(at, c.joint, true);
    view.setUint8(at + 2, PATHS.indexOf(c.path));
    view.setUint8(at + 3, FILE_INTERPOLATIONS.indexOf(c.interpolation));
    view.setUint32(at + 4, c.times.length, true);
    view.setInt32(at + 8, c.node, true);
    at += MOTION_HEADER_BYTES;
    for (const floats of [c.times, c.values]) {
      floats.forEach((v, i) => view.setFloat32(at + i * 4, v, true));
      at += floats.length * 4;
    }
  }
  return writeMorph(view, at, extras.morph);
}

/** Where a record's extras are in a checked file (`checkExtras`). */
export interface ExtrasSections {
  /** Byte offset of the animated lanes (u16 per group, padded). */
  readonly animatedAt: number;
  readonly markers: readonly ClipMarker[];
  /** Byte offset of the first root motion channel's header; the channels follow each other. */
  readonly motionAt: number;
  readonly motionCount: number;
  /** 4-byte words of the root motion channels (headers, times and values). */
  readonly motionWords: number;
  /** Byte offset of the first morph weights channel's header, and their count. */
  readonly morphAt: number;
  readonly morphCount: number;
  /** Byte offset after the extras. */
  readonly end: number;
}

const NO_MARKERS: readonly ClipMarker[] = Object.freeze([]);

/** Lanes of each group seen in a record's root motion channels (one per joint and path), reused. */
let motionSeen = new Uint16Array(64);

/**
 * Checks the extras of record `c` at byte `at` of the file, of a clip of `duration` for a skeleton of `jointCount` joints:
 * where they are, and its markers. Root motion keys pass the checks
 * `validateClip` makes of a clip's channels (increasing times at least
 * `MIN_KEY_INTERVAL` apart, values within ±1e18, unit `LINEAR`/`STEP`
 * rotations, one channel per joint and path), read in place: a clip made
 * of them to validate cost more than a small clip's load.
 */
export function checkExtras(
  file: FileViews,
  c: number,
  jointCount: number,
  duration: number,
  at: number,
): ExtrasSections {
  const { bytes, view } = file;
  const length = bytes.length, groups = Math.ceil(jointCount / 4);
  const animatedAt = at;
  need(c, ".animated", at, pad4(groups * 2) + 4, length);
  for (let g = 0; g < groups; g++) {
    const bits = view.getUint16(at + g * 2, true);
    const lanes = Math.min(4, jointCount - g * 4), lanesMask = (1 << lanes) - 1;
    const allowed = lanesMask | (lanesMask << 4) | (lanesMask << 8);
    if (bits & ~allowed) {
      throw new ClipFileError(
        `clips[${c}].animated[${g}]`,
        at + g * 2,
        `${bits} marks lanes past the skeleton's joints`,
      );
    }
  }
  at += groups * 2;
  for (; at % 4 !== 0; at++) {
    if (bytes[at] !== 0) throw new ClipFileError(`clips[${c}].animated.padding`, at, "not 0");
  }
  const markerCount = view.getUint32(at, true);
  if (markerCount > MAX_MARKERS) {
    throw new ClipFileError(`clips[${c}].markerCount`, at, `${markerCount} is over ${MAX_MARKERS}`);
  }
  at += 4;
  const markers: ClipMarker[] | readonly ClipMarker[] = markerCount > 0 ? [] : NO_MARKERS;
  for (let m = 0; m < markerCount; m++) {
    const where = `clips[${c}].markers[${m}]`;
    if (at + 12 > length) need(c, `.markers[${m}]`, at, 12, length);
    const time = view.getFloat64(at, true), nameBytes = view.getUint32(at + 8, true);
    if (!(time >= 0 && time <= duration)) {
      throw new ClipFileError(`${where}.time`, at, `${time} is not in [0, ${duration}]`);
    }
    at += 12;
    need(c, `.markers[${m}].name`, at, pad4(nameBytes), length);
    let name: string;
    try {
      name = utf8.decode(bytes.subarray(at, at + nameBytes));
    } catch {
      throw new ClipFileError(`${where}.name`, at, "not UTF-8");
    }
    for (at += nameBytes; at % 4 !== 0; at++) {
      if (bytes[at] !== 0) throw new ClipFileError(`${where}.name.padding`, at, "not 0");
    }
    (markers as ClipMarker[]).push({ name, time });
  }
  need(c, ".motionCount", at, 4, length);
  const motionCount = view.getUint32(at, true);
  at += 4;
  const motionAt = at;
  if (motionSeen.length < groups) motionSeen = new Uint16Array(groups);
  motionSeen.fill(0, 0, groups);
  for (let m = 0; m < motionCount; m++) {
    at = checkMotion(file, c, m, jointCount, animatedAt, at);
  }
  const motionWords = (at - motionAt) >> 2;
  const morph = checkMorph(file, c, at);
  return {
    animatedAt,
    markers,
    motionAt,
    motionCount,
    motionWords,
    morphAt: morph.at,
    morphCount: morph.count,
    end: morph.end,
  };
}

/**
 * Throws a ClipFileError on field `section` of record `c` (`.animated`)
 * when `n` bytes from `from` pass `length`. The field's name is made only
 * for the error, not for each section of each clip.
 */
export function need(c: number, section: string, from: number, n: number, length: number): void {
  if (from + n > length) {
    throw new ClipFileError(
      `clips[${c}]${section}`,
      from,
      `${n} bytes past the end of the file (${length})`,
    );
  }
}

/** The error of root motion channel `m` of record `c`, at `offset` from its header at `at`. */
function motionError(c: number, m: number, at: number, offset: number, message: string) {
  return new ClipFileError(`clips[${c}].motion[${m}]`, at + offset, message);
}

/** Checks root motion channel `m` of record `c`, at byte `at`; returns the offset after it. */
function checkMotion(
  file: FileViews,
  c: number,
  m: number,
  jointCount: number,
  animatedAt: number,
  at: number,
): number {
  const { bytes, view } = file, length = bytes.length;
  if (at + MOTION_HEADER_BYTES > length) need(c, `.motion[${m}]`, at, MOTION_HEADER_BYTES, length);
  const joint = view.getUint16(at, true), path = view.getUint8(at + 2);
  const interpolation = view.getUint8(at + 3);
  const keys = view.getUint32(at + 4, true), node = view.getInt32(at + 8, true);
  if (joint >= jointCount) {
    throw motionError(c, m, at, 0, `joint ${joint}: the skeleton has ${jointCount}`);
  }
  if (path > 1) throw motionError(c, m, at, 2, `path ${path}`);
  if (interpolation > 2) throw motionError(c, m, at, 3, `interpolation ${interpolation}`);
  const lane = 1 << (path * 4 + (joint & 3));
  if (!(view.getUint16(animatedAt + (joint >> 2) * 2, true) & lane)) {
    throw motionError(c, m, at, 0, `joint ${joint}'s ${PATHS[path]} is not animated`);
  }
  if (keys === 0 || keys > (length - at) / 4) {
    throw motionError(c, m, at, 4, `${keys} keys cannot fit`);
  }
  if (node < -1) throw motionError(c, m, at, 8, `node ${node}`);
  if (view.getUint32(at + 12, true) !== 0) throw motionError(c, m, at, 12, "reserved: not 0");
  const header = at;
  at += MOTION_HEADER_BYTES;
  const size = path === 1 ? 4 : 3, perKey = interpolation === 2 ? 3 : 1;
  const values = keys * size * perKey;
  if (at + (keys + values) * 4 > length) {
    need(c, `.motion[${m}]`, at, keys * 4, length);
    need(c, `.motion[${m}]`, at + keys * 4, values * 4, length);
  }
  if (motionSeen[joint >> 2] & lane) {
    throw motionError(c, m, header, 0, `joint ${joint} has a second ${PATHS[path]} channel`);
  }
  motionSeen[joint >> 2] |= lane;
  const k = badMotionTime(file.f32, at >> 2, keys);
  if (k >= 0) {
    const t = file.f32[(at >> 2) + k];
    throw motionError(
      c,
      m,
      header,
      0,
      `key ${k}: time ${t} is not finite, or not ${MIN_KEY_INTERVAL} s after the one before`,
    );
  }
  const v = firstBeyondIn(file, (at >> 2) + keys, values);
  if (v >= 0) {
    const key = Math.floor(v / (size * perKey));
    throw motionError(c, m, header, 0, `key ${key}: a value is not finite or beyond ±1e18`);
  }
  if (path === 1 && perKey === 1) {
    const q = notUnit(file.f32, (at >> 2) + keys, keys);
    if (q >= 0) throw motionError(c, m, header, 0, `key ${q}: rotation is not a unit quaternion`);
  }
  return at + (keys + values) * 4;
}

/**
 * The properties marked in the animated lanes of a loaded clip (`groups`
 * u16 from word `from` of its file's kept parts), 12 per group
 * (translation, rotation, scale of 4 joints).
 */
export function keptAnimated(
  kept: KeptParts,
  from: number,
  groups: number,
): readonly AnimatedProperty[] {
  const animated: AnimatedProperty[] = [];
  const lanes = kept.lanes;
  for (let g = 0; g < groups; g++) {
    for (let i = 0; i < 12; i++) {
      if (lanes[from * 2 + g] & (1 << i)) {
        animated.push({ joint: g * 4 + (i & 3), path: PATHS[i >> 2] });
      }
    }
  }
  return Object.freeze(animated);
}

/**
 * The `count` root motion channels of a loaded clip from word `from` of
 * its file's kept parts, viewing the kept keys.
 */
export function keptMotion(kept: KeptParts, from: number, count: number): readonly ClipChannel[] {
  const { words, floats } = kept;
  const motion: ClipChannel[] = [];
  for (let m = 0, at = from; m < count; m++) {
    const head = words[at], keys = words[at + 1], node = words[at + 2];
    const path = (head >>> 16) & 0xff, interpolation = head >>> 24;
    const values = keys * (path === 1 ? 4 : 3) * (interpolation === 2 ? 3 : 1);
    at += MOTION_HEADER_BYTES >> 2;
    motion.push(Object.freeze({
      joint: head & 0xffff,
      path: PATHS[path],
      interpolation: FILE_INTERPOLATIONS[interpolation],
      times: floats.subarray(at, at + keys),
      values: floats.subarray(at + keys, at + keys + values),
      node,
    }));
    at += keys + values;
  }
  return Object.freeze(motion);
}
