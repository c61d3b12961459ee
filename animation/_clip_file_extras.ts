/**
 * The sections of a compact clip file's record after the image
 * (`docs/clip_file_format.md`): what a clip is besides its compact form,
 * so that a loaded clip plays as the clip saved everywhere a clip is used.
 * `animated`: the properties of each joint it has channels for (a layer's
 * effective mask; not the image's keyed lanes, since a channel held
 * constant has no keys yet still masks the layers under it). `markers`:
 * its markers. `motion`: the keys, as given, of the translation and
 * rotation channels of the joints root motion may be taken from.
 *
 * @module
 */

import type { ChannelPath, Clip, ClipChannel, Interpolation } from "./clip.ts";
import { type ClipMarker, getClipMarkers, MAX_MARKERS } from "./markers.ts";
import { animatedProperties, type AnimatedProperty, motionChannels } from "./_keyless_clip.ts";
import { ClipError, validateClip } from "./clip_validation.ts";
import { ClipFileError } from "./clip_file_error.ts";
import { pad4 } from "./_clip_file_format.ts";

/** What a record keeps of a clip after its image. */
export interface ClipExtras {
  readonly animated: readonly AnimatedProperty[];
  readonly markers: readonly ClipMarker[];
  readonly motion: readonly ClipChannel[];
}

const PATHS: readonly ChannelPath[] = ["translation", "rotation", "scale"];
const INTERPOLATIONS: readonly Interpolation[] = ["STEP", "LINEAR", "CUBICSPLINE"];
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
  return bytes;
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
    view.setUint8(at + 3, INTERPOLATIONS.indexOf(c.interpolation));
    view.setUint32(at + 4, c.times.length, true);
    view.setInt32(at + 8, c.node, true);
    at += MOTION_HEADER_BYTES;
    for (const floats of [c.times, c.values]) {
      floats.forEach((v, i) => view.setFloat32(at + i * 4, v, true));
      at += floats.length * 4;
    }
  }
  return at;
}

/** Where a record's extras are read from, and how a read past the file is refused. */
interface ExtrasInput {
  readonly bytes: Uint8Array;
  readonly view: DataView;
  /** The record's field name (`clips[2]`). */
  readonly field: string;
  readonly jointCount: number;
  /** The clip's checked name and duration. */
  readonly name: string;
  readonly duration: number;
  /** Throws a ClipFileError when `bytes` bytes from `at` pass the end of the file. */
  readonly need: (field: string, at: number, bytes: number) => void;
}

/**
 * Reads and checks the extras of a record at `at`: them, the offset after
 * them, and the array their root keys were copied to, after `reserve`
 * floats kept for the reader.
 */
export function readExtras(
  input: ExtrasInput,
  at: number,
  reserve: number,
): [ClipExtras, number, Float32Array] {
  const { bytes, view, field, jointCount, duration, need } = input;
  const groups = Math.ceil(jointCount / 4);
  need(`${field}.animated`, at, pad4(groups * 2) + 4);
  const animatedBits = new Uint16Array(groups);
  for (let g = 0; g < groups; g++) {
    const bits = animatedBits[g] = view.getUint16(at + g * 2, true);
    const lanes = Math.min(4, jointCount - g * 4), lanesMask = (1 << lanes) - 1;
    const allowed = lanesMask | (lanesMask << 4) | (lanesMask << 8);
    if (bits & ~allowed) {
      throw new ClipFileError(
        `${field}.animated[${g}]`,
        at + g * 2,
        `${bits} marks lanes past the skeleton's joints`,
      );
    }
  }
  at += groups * 2;
  for (; at % 4 !== 0; at++) {
    if (bytes[at] !== 0) throw new ClipFileError(`${field}.animated.padding`, at, "not 0");
  }
  const markerCount = view.getUint32(at, true);
  if (markerCount > MAX_MARKERS) {
    throw new ClipFileError(`${field}.markerCount`, at, `${markerCount} is over ${MAX_MARKERS}`);
  }
  at += 4;
  const markers: ClipMarker[] = [];
  for (let m = 0; m < markerCount; m++) {
    const where = `${field}.markers[${m}]`;
    need(where, at, 12);
    const time = view.getFloat64(at, true), nameBytes = view.getUint32(at + 8, true);
    if (!(time >= 0 && time <= duration)) {
      throw new ClipFileError(`${where}.time`, at, `${time} is not in [0, ${duration}]`);
    }
    at += 12;
    need(`${where}.name`, at, pad4(nameBytes));
    let name: string;
    try {
      name = utf8.decode(bytes.subarray(at, at + nameBytes));
    } catch {
      throw new ClipFileError(`${where}.name`, at, "not UTF-8");
    }
    for (at += nameBytes; at % 4 !== 0; at++) {
      if (bytes[at] !== 0) throw new ClipFileError(`${where}.name.padding`, at, "not 0");
    }
    markers.push({ name, time });
  }
  need(`${field}.motionCount`, at, 4);
  const motionCount = view.getUint32(at, true);
  at += 4;
  const motionAt: number[] = [];
  // Headers first, then one array for the clip's keys and what the reader
  // keeps before them (`reserve`): an array, or a view, per channel cost
  // most of a small file's load.
  let floats = reserve;
  for (let c = 0; c < motionCount; c++) {
    const where = `${field}.motion[${c}]`;
    need(where, at, MOTION_HEADER_BYTES);
    const joint = view.getUint16(at, true), path = PATHS[view.getUint8(at + 2)];
    const interpolation = INTERPOLATIONS[view.getUint8(at + 3)];
    const keys = view.getUint32(at + 4, true), node = view.getInt32(at + 8, true);
    const fail = (offset: number, message: string): never => {
      throw new ClipFileError(where, at + offset, message);
    };
    if (joint >= jointCount) fail(0, `joint ${joint}: the skeleton has ${jointCount}`);
    if (path !== "translation" && path !== "rotation") fail(2, `path ${view.getUint8(at + 2)}`);
    if (!interpolation) fail(3, `interpolation ${view.getUint8(at + 3)}`);
    if (!(animatedBits[joint >> 2] & (1 << (PATHS.indexOf(path) * 4 + (joint & 3))))) {
      fail(0, `joint ${joint}'s ${path} is not animated`);
    }
    if (keys === 0 || keys > (bytes.length - at) / 4) fail(4, `${keys} keys cannot fit`);
    if (node < -1) fail(8, `node ${node}`);
    if (view.getUint32(at + 12, true) !== 0) fail(12, "reserved: not 0");
    motionAt.push(at);
    at += MOTION_HEADER_BYTES;
    const values = keys * (path === "rotation" ? 4 : 3) * (interpolation === "CUBICSPLINE" ? 3 : 1);
    need(where, at, keys * 4);
    need(where, at + keys * 4, values * 4);
    at += (keys + values) * 4;
    floats += keys + values;
  }
  const kept = new Float32Array(floats);
  const motion: ClipChannel[] = [];
  for (let c = 0, to = reserve; c < motionCount; c++) {
    const from = motionAt[c];
    const joint = view.getUint16(from, true), path = PATHS[view.getUint8(from + 2)];
    const interpolation = INTERPOLATIONS[view.getUint8(from + 3)];
    const keys = view.getUint32(from + 4, true), node = view.getInt32(from + 8, true);
    const values = keys * (path === "rotation" ? 4 : 3) * (interpolation === "CUBICSPLINE" ? 3 : 1);
    // The clip outlives the file's bytes: its keys are copied.
    copyFloats(view, from + MOTION_HEADER_BYTES, keys + values, kept, to);
    const times = kept.subarray(to, to + keys);
    motion.push(
      Object.freeze({
        joint,
        path,
        interpolation,
        times,
        values: kept.subarray(to + keys, to += keys + values),
        node,
      }),
    );
  }
  // Without keys there is nothing the clip's own checks (name, duration: the record's) add.
  if (motion.length > 0) {
    try {
      validateClip({ name: input.name, animation: -1, start: 0, duration, channels: motion });
    } catch (e) {
      if (!(e instanceof ClipError)) throw e;
      const c = Math.max(e.channel, 0);
      throw new ClipFileError(`${field}.motion[${c}]`, motionAt[c] ?? at, e.message);
    }
  }
  // Listed when first asked for (a layer's mask): an object per property
  // and clip was much of a small file's load.
  let animated: readonly AnimatedProperty[] | undefined;
  const extras: ClipExtras = {
    get animated() {
      return animated ??= animatedList(animatedBits);
    },
    markers,
    motion: Object.freeze(motion),
  };
  return [extras, at, kept];
}

/**
 * Copies `count` little-endian floats at byte `from` of `view` to `out`
 * from `to`: through a view of them where they are 4-aligned (a copy of
 * memory), else one by one. The core's views are little-endian too.
 */
function copyFloats(
  view: DataView,
  from: number,
  count: number,
  out: Float32Array,
  to: number,
): void {
  if ((view.byteOffset + from) % 4 === 0) {
    out.set(new Float32Array(view.buffer, view.byteOffset + from, count), to);
  } else {
    for (let i = 0; i < count; i++) out[to + i] = view.getFloat32(from + i * 4, true);
  }
}

/** The properties marked in `bits`, 12 per group (translation, rotation, scale of 4 joints). */
function animatedList(bits: Uint16Array): readonly AnimatedProperty[] {
  const animated: AnimatedProperty[] = [];
  for (let g = 0; g < bits.length; g++) {
    for (let i = 0; i < 12; i++) {
      if (bits[g] & (1 << i)) animated.push({ joint: g * 4 + (i & 3), path: PATHS[i >> 2] });
    }
  }
  return Object.freeze(animated);
}
