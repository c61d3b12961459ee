/**
 * Compact clip files: a skeleton's clips saved built, so that a game ships
 * them ready and never builds at run time (as ozz-animation loads an
 * archive its offline optimizer wrote). {@linkcode saveCompactClips}
 * writes the compact form of each clip (building those not built yet);
 * {@linkcode loadCompactClips} checks a file as hostile input and gives
 * back clips to play, whose compact forms are copied into the skeleton's
 * core: a loaded clip samples bit for bit as the clip it was saved from,
 * on every core build. The format (versioned, little-endian, xxHash32
 * checked, tied to the skeleton's joint count, parents and rest pose) is
 * `docs/clip_file_format.md`; `deno task compact model.glb` writes the
 * files of a glTF model's skeletons.
 *
 * @example Saving a clip built and loading it back
 * ```ts
 * import { createClip, SkeletonAsset } from "@marrow/anim";
 * import { loadCompactClips, saveCompactClips } from "@marrow/anim/clips";
 * import { createCylinder } from "@marrow/anim/procedural";
 *
 * using skeleton = new SkeletonAsset(createCylinder({ joints: 4 }).skeleton);
 * const bend = createClip({
 *   name: "bend",
 *   channels: [{
 *     joint: 1,
 *     path: "rotation",
 *     interpolation: "LINEAR",
 *     times: Float32Array.of(0, 1),
 *     values: Float32Array.of(0, 0, 0, 1, 0, 0, Math.SQRT1_2, Math.SQRT1_2),
 *   }],
 * });
 * const file = saveCompactClips(skeleton, [bend]); // e.g. await Deno.writeFile("hero.clips", file)
 * const [loaded] = loadCompactClips(skeleton, file); // then playClip(world, eid, loaded)
 * console.assert(loaded.name === "bend" && loaded.duration === 1);
 * ```
 * @module
 */

import type { Clip } from "./clip.ts";
import { SkeletonAsset } from "./skeleton_asset.ts";
import { type CompactClip, compactClip } from "./compact_clip.ts";
import { lifetimeOf } from "./_lifetime.ts";
import { resolveJoint } from "./joint_mask.ts";
import { compactClipParts } from "./_compact_parts.ts";
import { alignedFile, readClipFile } from "./_clip_file_read.ts";
import { loadClipGroup } from "./_clip_file_group.ts";
import { fileViews } from "./_clip_file_scan.ts";
import { clipExtras, extrasBytes, writeExtras } from "./_clip_file_extras.ts";
import { validateMorphChannels } from "./morph.ts";
import {
  cacheTemplate,
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
import {
  CACHE_GROUP_BYTES,
  CACHE_TIMING,
  CLIP_SHARED_KEYS,
  TIME_BOUND,
} from "../simd/wasm/assembly/abi.ts";

export { ClipFileError } from "./clip_file_error.ts";

function checkSkeleton(skeleton: SkeletonAsset, fn: string): void {
  if (!(skeleton instanceof SkeletonAsset)) {
    throw new TypeError(`${fn}: skeleton: expected a SkeletonAsset`);
  }
  if (lifetimeOf(skeleton).disposed) throw new TypeError(`${fn}: skeleton: it was disposed`);
}

/** What a file keeps of a clip's starting cache: held values and keyed lanes (`cacheTemplate`). */
function heldParts(template: Uint8Array, groups: number) {
  const held = new Uint8Array(groups * HELD_GROUP_BYTES), keyed = new Uint16Array(groups);
  const view = new DataView(template.buffer, template.byteOffset, template.byteLength);
  for (let g = 0; g < groups; g++) {
    const base = g * CACHE_GROUP_BYTES;
    held.set(template.subarray(base, base + HELD_GROUP_BYTES), g * HELD_GROUP_BYTES);
    for (let i = 0; i < 12; i++) {
      const lo = view.getFloat32(base + CACHE_TIMING + (i >> 2) * 48 + (i & 3) * 4, true);
      if (lo === Math.fround(TIME_BOUND)) keyed[g] |= 1 << i;
    }
  }
  return { held, keyed };
}

/** Options of {@linkcode saveCompactClips}. */
export interface SaveCompactClipsOptions {
  /**
   * The joints (indices or names) whose root motion the loaded clips give
   * as the clips saved (`enableRootMotion`'s `joint`): the file keeps the
   * keys of their translation and rotation channels. Default, per clip:
   * the topmost joints it moves (with a translation or rotation channel
   * and none on an ancestor: a root, or a character's hips under an
   * unanimated armature node). About other joints a loaded clip has no
   * root motion.
   */
  readonly rootMotionJoints?: readonly (number | string)[];
}

function checkedJoints(skeleton: SkeletonAsset, joints: readonly (number | string)[]): number[] {
  if (!Array.isArray(joints)) {
    throw new TypeError("saveCompactClips: options.rootMotionJoints: expected an array");
  }
  return joints.map((joint, i) =>
    resolveJoint(skeleton, joint, `saveCompactClips: options.rootMotionJoints[${i}]`)
  );
}

/**
 * The compact clip file of `clips` for `skeleton`: each clip's compact form
 * (built now, with the default options, when it was not built for the
 * skeleton yet; a clip loaded from a file saves as it was loaded), in the
 * format of `docs/clip_file_format.md`. It loads only for a skeleton with
 * the same joint count, parents and rest pose. Throws what building throws
 * (`ClipError`, `ClipBudgetError`), and a `ClipError` for morph weights
 * channels (`morphChannels`) a clip could not play, which the file keeps
 * as they are.
 */
export function saveCompactClips(
  skeleton: SkeletonAsset,
  clips: readonly Clip[],
  options?: SaveCompactClipsOptions,
): Uint8Array {
  checkSkeleton(skeleton, "saveCompactClips");
  if (!Array.isArray(clips)) throw new TypeError("saveCompactClips: clips: expected an array");
  const motionJoints = options?.rootMotionJoints === undefined
    ? undefined
    : new Set(checkedJoints(skeleton, options.rootMotionJoints));
  const parents = skeleton.parentIndices;
  const groups = Math.ceil(skeleton.jointCount / 4);
  const encoder = new TextEncoder();
  // Checked before anything is built: the file keeps them as they are.
  clips.forEach((clip) => {
    if (clip !== null && typeof clip === "object") validateMorphChannels(clip);
  });
  const records = clips.map((clip) => {
    const compact: CompactClip = compactClip(clip, skeleton);
    const parts = compactClipParts(compact, skeleton);
    const image = parts.image;
    const shared = new DataView(image.buffer).getUint32(CLIP_SHARED_KEYS, true) !== 0;
    const { held, keyed } = shared
      ? { held: new Uint8Array(0), keyed: new Uint16Array(0) }
      : heldParts(parts.cacheTemplate, groups);
    const rebuilt = cacheTemplate(
      groups,
      shared ? undefined : new Float32Array(held.buffer),
      0,
      keyed,
      0,
    );
    if (rebuilt.join() !== parts.cacheTemplate.join()) {
      throw new Error(
        `saveCompactClips: clip "${clip.name}": its playback cache is not what format version ${FILE_VERSION} rebuilds (compact_clip.ts changed: update the format)`,
      );
    }
    const name = encoder.encode(clip.name);
    const heldBytes = shared ? 0 : held.length + pad4(groups * 2);
    const extras = clipExtras(clip, parents, motionJoints);
    const size = RECORD_BYTES + pad4(name.length) + heldBytes + image.length +
      extrasBytes(extras, groups);
    return { clip, parts, shared, held, keyed, name, extras, size };
  });
  const parentsBytes = pad4(skeleton.jointCount * 2);
  const length = HEADER_BYTES + parentsBytes + records.reduce((n, r) => n + r.size, 0);
  const file = new Uint8Array(length);
  const view = new DataView(file.buffer);
  view.setUint32(HEADER.magic, FILE_MAGIC, true);
  view.setUint16(HEADER.version, FILE_VERSION, true);
  view.setUint32(HEADER.fileBytes, length, true);
  view.setUint32(HEADER.jointCount, skeleton.jointCount, true);
  view.setUint32(HEADER.restPoseHash, restPoseHash(skeleton.restPose), true);
  view.setUint32(HEADER.clipCount, records.length, true);
  let at = HEADER_BYTES;
  skeleton.parentIndices.forEach((p, j) => view.setInt16(at + j * 2, p, true));
  at += parentsBytes;
  for (const { clip, parts, shared, held, keyed, name, extras } of records) {
    view.setUint32(
      at + RECORD.flags,
      (shared ? RECORD_SHARED : 0) | (parts.steps ? RECORD_STEPS : 0),
      true,
    );
    view.setFloat64(at + RECORD.duration, parts.duration, true);
    view.setFloat64(at + RECORD.start, clip.start, true);
    view.setFloat64(at + RECORD.tolerance, parts.tolerance, true);
    view.setFloat64(at + RECORD.virtualDistance, parts.virtualDistance, true);
    view.setFloat64(at + RECORD.maxError, parts.maxError, true);
    view.setInt32(at + RECORD.animation, clip.animation, true);
    view.setUint32(at + RECORD.trackCount, parts.trackCount, true);
    view.setUint32(at + RECORD.keyCount, parts.keyCount, true);
    view.setUint32(at + RECORD.nameBytes, name.length, true);
    view.setUint32(at + RECORD.imageBytes, parts.image.length, true);
    at += RECORD_BYTES;
    file.set(name, at);
    at += pad4(name.length);
    if (!shared) {
      file.set(held, at);
      at += held.length;
      keyed.forEach((bits, g) => view.setUint16(at + g * 2, bits, true));
      at += pad4(groups * 2);
    }
    file.set(parts.image, at);
    at += parts.image.length;
    at = writeExtras(view, at, extras, groups);
  }
  view.setUint32(HEADER.checksum, xxhash32(file.subarray(HEADER.jointCount)), true);
  // What is saved loads: a clip the reader would refuse is refused here.
  readClipFile(skeleton, fileViews(file));
  return file;
}

/**
 * The clips of the compact clip file `bytes` (written by
 * {@linkcode saveCompactClips}) for `skeleton`, ready to play on it and on
 * skeletons of the same core with the same parents and rest pose: no
 * build happens when they play. The file is checked whole before anything
 * is allocated: its version, sizes, counts, offsets, flags, key times and
 * values, checksum and skeleton (joint count, parents, rest pose); a bad
 * or foreign file throws a {@linkcode ClipFileError} naming the field and
 * its byte offset; clips over the core's clip budget, a `ClipBudgetError`.
 *
 * A loaded clip has the name, duration, start, animation index and
 * markers of the clip saved, and no channels: it holds no keys, only its
 * compact form. It plays as the clip saved does, bit for bit, everywhere a
 * clip is played (layers of every mode, masked or not, additive
 * references, locomotion, sync, markers): the file keeps which properties
 * of which joints the clip animates, and the keys root motion reads (of
 * the joints `rootMotionJoints` named when saving). Played on a skeleton
 * of another structure or core, or after
 * `disposeClip` (or the skeleton's disposal) freed its compact form, it
 * throws a `ClipError`: load the file again.
 */
export function loadCompactClips(skeleton: SkeletonAsset, bytes: Uint8Array): Clip[] {
  checkSkeleton(skeleton, "loadCompactClips");
  const file = fileViews(alignedFile(bytes));
  return loadClipGroup(skeleton, file, readClipFile(skeleton, file));
}
