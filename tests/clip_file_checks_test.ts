/**
 * The compact clip file loader's own checks, against independent ones:
 * the root motion keys of a file are refused exactly when `validateClip`
 * refuses a clip made of them (the loader checks them in place, without
 * making a clip); the integer test of key values finds the float a float
 * comparison finds; a file at an unaligned offset loads as the same file
 * aligned; the parts a file's clips keep outside the core stay theirs
 * however many files are loaded after it (small files' parts share
 * buffers).
 */
import "../scalar.ts";
import { assert, assertEquals, assertInstanceOf } from "@std/assert";
import fc from "fast-check";
import { type Clip, ClipError, createClip, SkeletonAsset, validateClip } from "../mod.ts";
import * as files from "../clips.ts";
import { Core } from "../kernels.ts";
import { createCylinder } from "../procedural/cylinder.ts";
import { compactClipInternals } from "../animation/_asset_internals.ts";
import { coreMemory } from "../simd/memory/_instance.ts";
import { motionChannels } from "../animation/_keyless_clip.ts";
import * as format from "../animation/_clip_file_format.ts";
import { firstBeyond } from "../animation/_clip_file_scan.ts";
import { assertCovering, fcParams } from "./_arbitrary_numbers.ts";
import { random, wander } from "./_scene.ts";

const JOINTS = 3;

/** A clip moving the root: CUBICSPLINE translation (3 keys), LINEAR rotation (4 keys). */
function rootClip(): Clip {
  const q = (a: number) => [0, Math.sin(a / 2), 0, Math.cos(a / 2)];
  return createClip({
    name: "root",
    channels: [{
      joint: 0,
      path: "translation",
      interpolation: "CUBICSPLINE",
      times: Float32Array.of(0, 0.5, 1),
      values: Float32Array.from({ length: 27 }, (_, i) => (i % 3) * 0.25),
    }, {
      joint: 0,
      path: "rotation",
      interpolation: "LINEAR",
      times: Float32Array.of(0, 0.25, 0.5, 1),
      values: Float32Array.of(...q(0), ...q(0.5), ...q(1), ...q(1.5)),
    }],
  });
}

/** A root motion channel of a file: where its header is, its key count and floats (times, values). */
interface MotionSection {
  readonly at: number;
  readonly path: number;
  readonly interpolation: number;
  readonly keys: number;
  readonly floats: number;
}

/** The root motion channels of the one clip of `file`, for a skeleton of `joints` joints. */
function motionSections(file: Uint8Array, joints: number): MotionSection[] {
  const view = new DataView(file.buffer, file.byteOffset, file.length);
  const groups = Math.ceil(joints / 4);
  let at = format.HEADER_BYTES + format.pad4(joints * 2);
  const shared = view.getUint32(at + format.RECORD.flags, true) & format.RECORD_SHARED;
  const imageBytes = view.getUint32(at + format.RECORD.imageBytes, true);
  at += format.RECORD_BYTES + format.pad4(view.getUint32(at + format.RECORD.nameBytes, true));
  if (!shared) at += groups * format.HELD_GROUP_BYTES + format.pad4(groups * 2);
  at += imageBytes + format.pad4(groups * 2);
  assertEquals(view.getUint32(at, true), 0, "no markers");
  const count = view.getUint32(at + 4, true);
  at += 8;
  const sections: MotionSection[] = [];
  for (let c = 0; c < count; c++) {
    const path = view.getUint8(at + 2), interpolation = view.getUint8(at + 3);
    const keys = view.getUint32(at + 4, true);
    const floats = keys * (1 + (path === 1 ? 4 : 3) * (interpolation === 2 ? 3 : 1));
    sections.push({ at, path, interpolation, keys, floats });
    at += 16 + floats * 4;
  }
  return sections;
}

/** The clip `validateClip` is given for the root keys of a (mutated) file. */
function clipOfSections(file: Uint8Array, sections: MotionSection[]): Clip {
  const view = new DataView(file.buffer, file.byteOffset, file.length);
  const floats = (from: number, n: number) =>
    Float32Array.from({ length: n }, (_, i) => view.getFloat32(from + i * 4, true));
  return {
    name: "root",
    animation: -1,
    start: 0,
    duration: 1,
    channels: sections.map(({ at, path, interpolation, keys, floats: n }) => ({
      joint: view.getUint16(at, true),
      path: (["translation", "rotation", "scale"] as const)[path],
      interpolation: (["STEP", "LINEAR", "CUBICSPLINE"] as const)[interpolation],
      times: floats(at + 16, keys),
      values: floats(at + 16 + keys * 4, n - keys),
      node: view.getInt32(at + 8, true),
    })),
  };
}

/** Floats that sit on the checks' edges: bounds, non-finite, tiny intervals, near-unit scales. */
const edgeFloat = fc.oneof(
  fc.constantFrom(
    NaN,
    Infinity,
    -Infinity,
    1e18,
    -1e18,
    Math.fround(1e18),
    1.0000001e18,
    3.4e38,
    0,
    -0,
    1e-31,
    5e-31,
    1e-30,
    2e-30,
    5.8e-39,
  ),
  fc.float({ noDefaultInfinity: true }),
  fc.double({ min: -2, max: 2, noNaN: true }),
);

Deno.test("clip file: root motion keys are refused exactly when validateClip refuses a clip of them", () => {
  using skeleton = new SkeletonAsset(
    createCylinder({ joints: JOINTS }).skeleton,
    Core.create("scalar"),
  );
  const file = files.saveCompactClips(skeleton, [rootClip()]);
  const sections = motionSections(file, JOINTS);
  assertEquals(sections.length, 2, "the root's translation and rotation");
  let refused = 0, loaded = 0;
  const change = fc.record({
    channel: fc.nat(sections.length - 1),
    index: fc.nat(64),
    value: edgeFloat,
    // A whole rotation key scaled near 1: within or just past the unit tolerance; or the
    // first two key times 0 and a time near 1e-30 (keys closer are only possible near 0).
    kind: fc.constantFrom("float", "float", "scale", "interval"),
    scale: fc.double({ min: 0.998, max: 1.002, noNaN: true }),
    interval: fc.constantFrom(1e-31, 5e-31, 9e-31, 1e-30, 1.1e-30, 2e-30),
  });
  assertCovering(
    fc.property(fc.array(change, { minLength: 1, maxLength: 3 }), (changes) => {
      const bad = file.slice();
      const view = new DataView(bad.buffer);
      for (const { channel, index, value, kind, scale, interval } of changes) {
        const { at, path, keys, floats } = sections[channel];
        const i = index % floats;
        if (kind === "scale" && path === 1) {
          const key = at + 16 + keys * 4 + (i % keys) * 16;
          for (let k = 0; k < 4; k++) {
            view.setFloat32(key + k * 4, view.getFloat32(key + k * 4, true) * scale, true);
          }
        } else if (kind === "interval") {
          view.setFloat32(at + 16, 0, true);
          view.setFloat32(at + 20, interval, true);
        } else view.setFloat32(at + 16 + i * 4, value, true);
      }
      view.setUint32(
        format.HEADER.checksum,
        format.xxhash32(bad.subarray(format.HEADER.jointCount)),
        true,
      );
      let valid = true;
      try {
        validateClip(clipOfSections(bad, sections));
      } catch (e) {
        assertInstanceOf(e, ClipError);
        valid = false;
      }
      let clips: Clip[] | undefined;
      try {
        clips = files.loadCompactClips(skeleton, bad);
      } catch (e) {
        assertInstanceOf(e, files.ClipFileError);
        assert(e.field.startsWith("clips[0].motion["), e.message);
      }
      assertEquals(clips !== undefined, valid, `validateClip ${valid ? "passes" : "refuses"}`);
      if (clips) loaded++, clips.forEach(files.disposeClip);
      else refused++;
    }),
    300,
    () =>
      refused < 100 || loaded < 30 ? `${refused} refused, ${loaded} loaded (100, 30)` : undefined,
  );
});

Deno.test("clip file: the integer test of key values finds the first float beyond ±1e18 or not finite, as a float comparison does", () => {
  const limit = new Int32Array(Float32Array.of(1e18).buffer)[0];
  const word = fc.oneof(
    fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }),
    fc.integer({ min: limit - 2, max: limit + 2 }),
    fc.integer({ min: limit - 2, max: limit + 2 }).map((w) => w | 0x80000000),
    fc.constantFrom(0x7f800000, 0xff800000 | 0, 0x7fc00000, 0, 0x80000000 | 0),
    fc.integer({ min: 0, max: 0x5d000000 }),
  );
  fc.assert(
    fc.property(fc.array(word, { maxLength: 40 }), fc.nat(8), (words, skip) => {
      const ints = Int32Array.from(words), floats = new Float32Array(ints.buffer);
      const from = Math.min(skip, ints.length);
      let expected = -1;
      for (let i = from; i < ints.length && expected < 0; i++) {
        if (!(Math.abs(floats[i]) <= 1e18)) expected = i - from;
      }
      assertEquals(firstBeyond(ints, from, ints.length - from), expected);
    }),
    fcParams(2000),
  );
});

Deno.test("clip file: a file at an unaligned offset of its buffer loads as the same file aligned", () => {
  const { skeleton: definition } = createCylinder({ joints: 6 });
  using skeleton = new SkeletonAsset(definition, Core.create("scalar"));
  const clips = [wander("a", 3, 1), wander("b", 5, 2), rootClip()];
  const file = files.saveCompactClips(skeleton, clips);
  const buffer = new Uint8Array(file.length + 3);
  buffer.set(file, 1);
  const unaligned = buffer.subarray(1, 1 + file.length);
  const a = files.loadCompactClips(skeleton, file), b = files.loadCompactClips(skeleton, unaligned);
  const memory = coreMemory(skeleton.core);
  a.forEach((clip, i) => {
    const ca = files.compactClip(clip, skeleton), cb = files.compactClip(b[i], skeleton);
    const ia = compactClipInternals(ca), ib = compactClipInternals(cb);
    const u8 = memory.views().u8;
    assertEquals(
      u8.slice(ib.byteOffset, ib.byteOffset + cb.bytes),
      u8.slice(ia.byteOffset, ia.byteOffset + ca.bytes),
    );
    assertEquals(ib.cacheTemplate, ia.cacheTemplate);
    assertEquals(motionChannels(b[i]), motionChannels(a[i]));
  });
});

Deno.test("clip file: what a file's clips keep outside the core stays theirs while other files load", () => {
  const { skeleton: definition } = createCylinder({ joints: 6 });
  using skeleton = new SkeletonAsset(definition, Core.create("scalar"));
  const first = [wander("a", 3, 1), rootClip()];
  const other = [wander("c", 7, 0), wander("d", 9, 2)];
  const fileA = files.saveCompactClips(skeleton, first),
    fileB = files.saveCompactClips(skeleton, other);
  // Read only after the other loads: a loaded clip's cache and root keys are made on first use.
  const loaded = files.loadCompactClips(skeleton, fileA);
  const next = random(5);
  // Enough loads of another file to pass the shared buffers' size many times; some kept a while.
  const held: Clip[][] = [];
  for (let i = 0; i < 400; i++) {
    held.push(files.loadCompactClips(skeleton, fileB));
    if (held.length > 8 || next() < 0.5) held.shift()!.forEach(files.disposeClip);
  }
  first.forEach((clip, i) => {
    const motion = motionChannels(loaded[i]);
    assert(motion.length > 0, `clip ${i} keeps root keys`);
    for (const channel of motion) {
      const saved = clip.channels.find((c) => c.joint === channel.joint && c.path === channel.path);
      assertEquals([channel.times, channel.values], [saved?.times, saved?.values]);
    }
    assertEquals(
      compactClipInternals(files.compactClip(loaded[i], skeleton)).cacheTemplate,
      compactClipInternals(files.compactClip(clip, skeleton)).cacheTemplate,
    );
  });
  held.flat().forEach(files.disposeClip);
});
