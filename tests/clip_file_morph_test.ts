/**
 * Morph weights channels in compact clip files (format version 2): saved
 * as the clip has them and loaded bit for bit; every field of a channel
 * refused with its name and byte offset when hostile, allocating nothing.
 * (Playing loaded morph channels against the clips saved: morph_play_test.)
 */
import "../scalar.ts";
import { assert, assertEquals, assertThrows } from "@std/assert";
import { type Clip, SkeletonAsset } from "../mod.ts";
import { ClipFileError, loadCompactClips, saveCompactClips } from "../clips.ts";
import type { MorphWeightsChannel } from "../morph.ts";
import { Core } from "../kernels.ts";
import { createCylinder } from "../procedural/cylinder.ts";
import { coreMemory } from "../simd/memory/_instance.ts";
import { HEADER, xxhash32 } from "../animation/_clip_file_format.ts";
import { random } from "./_scene.ts";
import { randomClip } from "./_compact.ts";

/** Marks the first channel's header in the file: node, then mesh. */
const NODE = 0x4d52_4f46, MESH = 0x1234_5678;

const cylinder = createCylinder({ joints: 6 });
const next = random(5);
const linear: MorphWeightsChannel = {
  node: NODE,
  mesh: MESH,
  targetCount: 3,
  interpolation: "LINEAR",
  times: Float32Array.of(0, 0.25, 1),
  values: Float32Array.of(0, 1, 0.5, 0.2, -0.3, 1e30, 1, 0, -0),
};
const cubic: MorphWeightsChannel = {
  node: 7,
  mesh: 2,
  targetCount: 1,
  interpolation: "CUBICSPLINE",
  times: Float32Array.of(0.1, 0.9),
  values: Float32Array.of(0, 1, 2, 3, 4, 5),
};
const clips: Clip[] = [
  { ...randomClip(6, next), name: "faces", morphChannels: [linear, cubic] },
  {
    ...randomClip(6, next),
    name: "stepped",
    morphChannels: [{ ...cubic, interpolation: "STEP", values: Float32Array.of(1, 0) }],
  },
  randomClip(6, next),
];
const skeleton = new SkeletonAsset(cylinder.skeleton, Core.create("scalar"));
const file = saveCompactClips(skeleton, clips);

/** Byte offset of the first morph channel's header (its node word). */
function headerAt(bytes: Uint8Array): number {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.length);
  for (let at = 0; at + 8 <= bytes.length; at += 4) {
    if (view.getUint32(at, true) === NODE && view.getUint32(at + 4, true) === MESH) return at;
  }
  throw new Error("no morph channel header in the file");
}

/** `file` with `edit` applied at the first morph header, its checksum made right again. */
function edited(edit: (view: DataView, at: number) => void): Uint8Array {
  const copy = file.slice();
  const view = new DataView(copy.buffer);
  edit(view, headerAt(copy));
  view.setUint32(HEADER.checksum, xxhash32(copy.subarray(HEADER.jointCount)), true);
  return copy;
}

Deno.test("clip file: morph weights channels load as the clips saved have them", () => {
  const loaded = loadCompactClips(skeleton, file);
  assertEquals(loaded.map((c) => c.morphChannels), clips.map((c) => c.morphChannels));
  // The keys are the file's, copied: bit for bit (-0 included), and not views of the file.
  const values = loaded[0].morphChannels![0].values;
  assertEquals(
    new Uint32Array(values.slice().buffer),
    new Uint32Array(linear.values.slice().buffer),
  );
  assert(values.buffer !== file.buffer);
  // Saved again, the same file.
  assertEquals(saveCompactClips(skeleton, loaded), file);
});

Deno.test("clip file: a hostile morph channel field is refused with its name and byte offset", () => {
  const at = headerAt(file), times = at + 16, values = times + 12;
  const cases: [(view: DataView, at: number) => void, string, number][] = [
    [(v, a) => v.setInt32(a, -1, true), "clips[0].morph[0].node", at],
    [(v, a) => v.setInt32(a + 4, -5, true), "clips[0].morph[0].mesh", at + 4],
    [(v, a) => v.setUint16(a + 8, 0, true), "clips[0].morph[0].targetCount", at + 8],
    [(v, a) => v.setUint16(a + 8, 60_000, true), "clips[0].morph[0].keyCount", at + 12],
    [(v, a) => v.setUint8(a + 10, 3), "clips[0].morph[0].interpolation", at + 10],
    [(v, a) => v.setUint8(a + 11, 1), "clips[0].morph[0].reserved", at + 11],
    [(v, a) => v.setUint32(a + 12, 0, true), "clips[0].morph[0].keyCount", at + 12],
    [(v, a) => v.setUint32(a + 12, 0xffff_ffff, true), "clips[0].morph[0].keyCount", at + 12],
    [(v, a) => v.setFloat32(a + 20, 0, true), "clips[0].morph[0].times[1]", times + 4],
    [(v, a) => v.setFloat32(a + 24, NaN, true), "clips[0].morph[0].times[2]", times + 8],
    [(v, a) => v.setFloat32(a + 28 + 8, Infinity, true), "clips[0].morph[0].values[2]", values + 8],
    [(v, a) => v.setUint32(a - 4, 1e6, true), "clips[0].morphCount", at - 4],
  ];
  const memory = coreMemory(skeleton.core);
  for (const [edit, field, byteOffset] of cases) {
    const before = memory.allocatedBytes;
    const e = assertThrows(() => loadCompactClips(skeleton, edited(edit)), ClipFileError);
    assertEquals([e.field, e.byteOffset], [field, byteOffset], e.message);
    assertEquals(memory.allocatedBytes, before, `${field}: nothing allocated`);
  }
});
