/**
 * The last section of a compact clip file's record
 * (`docs/clip_file_format.md`, version 2): the clip's morph weights
 * channels (`Clip.morphChannels`), kept as the clip has them, so that a
 * loaded clip drives MorphWeights as the clip saved does. Checked in place
 * as `validateMorphChannels` checks a clip's; made into channels only once
 * the whole file passed.
 *
 * @module
 */

import { FILE_INTERPOLATIONS } from "./_clip_file_format.ts";
import type { MorphWeightsChannel } from "./morph.ts";
import { ClipFileError } from "./clip_file_error.ts";
import type { FileViews } from "./_clip_file_scan.ts";

/** Bytes of a morph channel's header: node, mesh, target count, interpolation, reserved, key count. */
const MORPH_HEADER_BYTES = 16;

/** Weights per key of a channel: each target's, × 3 (in-tangent, value, out-tangent) for CUBICSPLINE. */
function keyWeights(targets: number, interpolation: number): number {
  return targets * (interpolation === 2 ? 3 : 1);
}

/** Bytes of the morph section of `channels`. */
export function morphBytes(channels: readonly MorphWeightsChannel[]): number {
  let bytes = 4;
  for (const c of channels) bytes += MORPH_HEADER_BYTES + 4 * (c.times.length + c.values.length);
  return bytes;
}

/** Writes the morph section of `channels` at `at` of `view`; returns the offset after it. */
export function writeMorph(
  view: DataView,
  at: number,
  channels: readonly MorphWeightsChannel[],
): number {
  view.setUint32(at, channels.length, true);
  at += 4;
  for (const c of channels) {
    view.setInt32(at, c.node, true);
    view.setInt32(at + 4, c.mesh, true);
    view.setUint16(at + 8, c.targetCount, true);
    view.setUint8(at + 10, FILE_INTERPOLATIONS.indexOf(c.interpolation));
    view.setUint32(at + 12, c.times.length, true);
    at += MORPH_HEADER_BYTES;
    for (const floats of [c.times, c.values]) {
      floats.forEach((v, i) => view.setFloat32(at + i * 4, v, true));
      at += floats.length * 4;
    }
  }
  return at;
}

/** Where a record's morph section is, once checked. */
interface MorphSection {
  /** Byte offset of the first channel's header. */
  readonly at: number;
  readonly count: number;
  /** Byte offset after the section. */
  readonly end: number;
}

/**
 * The error of field `field` (after `morph[m].`, or the section's own
 * field when `m` is -1) of record `c`, at byte `offset`. The field's name
 * is made only for the error.
 */
function morphError(c: number, m: number, field: string, offset: number, message: string) {
  const where = m < 0 ? field : `morph[${m}]${field === "" ? "" : "."}${field}`;
  return new ClipFileError(`clips[${c}].${where}`, offset, message);
}

/**
 * Checks the morph section of record `c` at byte `at`: every field and
 * key, in place, without allocating (a refusal names the field and its
 * byte offset).
 */
export function checkMorph(file: FileViews, c: number, at: number): MorphSection {
  const { view, f32 } = file, length = file.bytes.length;
  if (at + 4 > length) {
    throw morphError(c, -1, "morphCount", at, `4 bytes past the end of the file (${length})`);
  }
  const count = view.getUint32(at, true);
  at += 4;
  const first = at;
  // Each channel takes at least its header and one key: a count the file cannot hold is refused at once.
  if (count > (length - at) / (MORPH_HEADER_BYTES + 8)) {
    throw morphError(c, -1, "morphCount", first - 4, `${count} channels cannot fit`);
  }
  for (let m = 0; m < count; m++) {
    const header = at;
    if (at + MORPH_HEADER_BYTES > length) {
      throw morphError(c, m, "", at, "its header is past the end of the file");
    }
    const node = view.getInt32(at, true), mesh = view.getInt32(at + 4, true);
    const targets = view.getUint16(at + 8, true), interpolation = view.getUint8(at + 10);
    const keys = view.getUint32(at + 12, true);
    if (node < 0) throw morphError(c, m, "node", at, `${node} is not a node index`);
    if (mesh < 0) throw morphError(c, m, "mesh", at + 4, `${mesh} is not a mesh index`);
    if (targets === 0) throw morphError(c, m, "targetCount", at + 8, "0 targets");
    if (interpolation > 2) {
      throw morphError(c, m, "interpolation", at + 10, `${interpolation}`);
    }
    if (view.getUint8(at + 11) !== 0) throw morphError(c, m, "reserved", at + 11, "not 0");
    at += MORPH_HEADER_BYTES;
    const values = keys * keyWeights(targets, interpolation);
    if (keys === 0 || at + (keys + values) * 4 > length) {
      throw morphError(c, m, "keyCount", header + 12, `${keys} keys cannot fit`);
    }
    const from = at >> 2;
    let previous = -Infinity;
    for (let k = 0; k < keys; k++) {
      const t = f32[from + k];
      if (!(Number.isFinite(t) && t > previous)) {
        throw morphError(
          c,
          m,
          `times[${k}]`,
          at + k * 4,
          `${t}: times must be finite and increasing`,
        );
      }
      previous = t;
    }
    for (let v = from + keys, end = v + values; v < end; v++) {
      if (!Number.isFinite(f32[v])) {
        throw morphError(c, m, `values[${v - from - keys}]`, v * 4, `${f32[v]} is not finite`);
      }
    }
    at += (keys + values) * 4;
  }
  return { at: first, count, end: at };
}

const NO_MORPH_CHANNELS: readonly MorphWeightsChannel[] = Object.freeze([]);
const NO_MORPH_KEYS = { copy: new Float32Array(0), shift: new Int32Array(0) };

/**
 * The morph sections of the checked file `file`'s clips `entries` copied
 * out of it: one array for the file (each channel's times and values are
 * views of it, {@linkcode loadedMorphChannels}), not two per channel.
 * Each section is copied whole, headers too, where the file has it: word
 * `w` of the file is word `w - shift` of the copy, shifted per section.
 * Empty when no clip has morph channels.
 */
export function loadedMorphKeys(
  file: FileViews,
  entries: readonly { readonly extras: { readonly morphAt: number; readonly end: number } }[],
): { readonly copy: Float32Array; readonly shift: Int32Array } {
  let words = 0;
  for (const { extras } of entries) words += (extras.end - extras.morphAt) >> 2;
  if (words === 0) return NO_MORPH_KEYS;
  const copy = new Float32Array(words), shift = new Int32Array(entries.length);
  const f32 = file.f32;
  for (let i = 0, to = 0; i < entries.length; i++) {
    const from = entries[i].extras.morphAt >> 2, n = (entries[i].extras.end >> 2) - from;
    if (n > 0) copy.set(f32.subarray(from, from + n), to);
    shift[i] = from - to;
    to += n;
  }
  return { copy, shift };
}

/**
 * The `count` morph channels of the checked file `file` from byte `at`,
 * viewing `keys` (its {@linkcode loadedMorphKeys}, for clip `clip`).
 */
export function loadedMorphChannels(
  file: FileViews,
  at: number,
  count: number,
  keys: { readonly copy: Float32Array; readonly shift: Int32Array },
  clip: number,
): readonly MorphWeightsChannel[] {
  if (count === 0) return NO_MORPH_CHANNELS;
  const view = file.view, copy = keys.copy, shift = keys.shift[clip];
  const channels: MorphWeightsChannel[] = [];
  for (let m = 0; m < count; m++) {
    const targets = view.getUint16(at + 8, true), interpolation = view.getUint8(at + 10);
    const keys = view.getUint32(at + 12, true);
    const from = ((at + MORPH_HEADER_BYTES) >> 2) - shift;
    const values = keys * keyWeights(targets, interpolation);
    channels.push(Object.freeze({
      node: view.getInt32(at, true),
      mesh: view.getInt32(at + 4, true),
      targetCount: targets,
      interpolation: FILE_INTERPOLATIONS[interpolation],
      times: copy.subarray(from, from + keys),
      values: copy.subarray(from + keys, from + keys + values),
    }));
    at += MORPH_HEADER_BYTES + (keys + values) * 4;
  }
  return Object.freeze(channels);
}
