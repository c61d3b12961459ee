/**
 * Fuzzing the compact clip file loader: seeded mutants of the files of two
 * freely licensed models (a shared-timeline clip; tracks, sync blocks and
 * timelines) and of random clips of every layout: bit flips, hostile
 * values in the records' fields (counts inflated, offsets moved, sizes
 * changed), bad floats over key times and values, truncations. Most get
 * their checksum (and size) made right again, so that the structural
 * checks behind it are reached. Every mutant must end in a ClipFileError
 * that allocated nothing, or load and sample finite poses on every core
 * build and by the scalar reference over a buffer that ends where the
 * clip does (a read past it throws). The seed (`MARROW_FUZZ_SEED`) and
 * the outcomes are printed; a share of refusals must come from the
 * checks of the clips' images.
 */

import "../scalar.ts";
import { assert, assertGreater } from "@std/assert";
import { type Clip, SkeletonAsset, type SkeletonDefinition } from "../mod.ts";
import { importGltf } from "../gltf/mod.ts";
import {
  clipBytes,
  ClipFileError,
  compactClip,
  disposeClip,
  loadCompactClips,
  saveCompactClips,
  setClipMarkers,
} from "../clips.ts";
import { Core, type CoreBuild } from "../kernels.ts";
import { coreMemory } from "../simd/memory/_instance.ts";
import { compactClipInternals } from "../animation/_asset_internals.ts";
import { random } from "./_scene.ts";
import { randomClip, randomSkeleton, SIMD_BUILDS } from "./_compact.ts";
import { playTimes, sampleImageBounded, samplePlayback } from "./_clip_file.ts";
import { syncPolicy } from "../animation/_sync_blocks.ts";
import { type MorphWeightsChannel, validateMorphChannels } from "../animation/morph.ts";
import { sharedPolicy } from "../animation/_shared_blocks.ts";
import {
  HEADER,
  HEADER_BYTES,
  HELD_GROUP_BYTES,
  pad4,
  RECORD,
  RECORD_BYTES,
  RECORD_SHARED,
  xxhash32,
} from "../animation/_clip_file_format.ts";
import { SYNC_BYTES, TRACK_BYTES } from "../simd/wasm/assembly/abi.ts";

const SEED = Number(Deno.env.get("MARROW_FUZZ_SEED") ?? 20261127);
const MUTANTS_PER_FILE = 300;
const BUILDS: CoreBuild[] = ["scalar", ...SIMD_BUILDS];
const FIXTURES = new URL("./fixtures/gltf/", import.meta.url);

/** A file to mutate, with the skeleton it is for. */
interface Source {
  readonly name: string;
  readonly definition: SkeletonDefinition;
  readonly file: Uint8Array;
}

async function modelSource(name: string): Promise<Source> {
  const model = await importGltf(new URL(name, FIXTURES));
  const character = model.skeletons.find((s) => s.clips.length > 0)!;
  using skeleton = new SkeletonAsset(character.skeleton, Core.create("scalar"));
  withMarkers(character.clips);
  return {
    name,
    definition: character.skeleton,
    file: saveCompactClips(skeleton, character.clips),
  };
}

/** Sets two markers on each clip, so that the files' marker sections are mutated too. */
function withMarkers(clips: readonly Clip[]): void {
  for (const clip of clips) {
    setClipMarkers(clip, [{ name: "step", time: clip.duration / 3 }, {
      name: "ü",
      time: clip.duration,
    }]);
  }
}

/** Random clips built with blocks and shared timelines wherever they can be. */
function randomSource(): Source {
  const next = random(SEED ^ 0x5eed);
  const definition = randomSkeleton(7, next);
  const saved = { ...syncPolicy }, savedShared = { ...sharedPolicy };
  syncPolicy.byteFactor = syncPolicy.clipFactor = sharedPolicy.fileFactor = Infinity;
  try {
    using skeleton = new SkeletonAsset(definition, Core.create("scalar"));
    const clips = [randomClip(7, next), randomClip(7, next, true), randomClip(7, next, true)];
    // Morph weights channels, so that the files' morph sections are mutated too.
    clips[1] = {
      ...clips[1],
      morphChannels: [morphChannel("LINEAR", 2), morphChannel("CUBICSPLINE", 3)],
    };
    withMarkers(clips);
    return { name: "random clips", definition, file: saveCompactClips(skeleton, clips) };
  } finally {
    Object.assign(syncPolicy, saved);
    Object.assign(sharedPolicy, savedShared);
  }
}

/** A morph weights channel of `targets` targets keyed at 0, 0.5 and 1 s. */
function morphChannel(
  interpolation: "LINEAR" | "CUBICSPLINE",
  targets: number,
): MorphWeightsChannel {
  const times = Float32Array.of(0, 0.5, 1);
  const per = interpolation === "CUBICSPLINE" ? 3 : 1;
  const values = Float32Array.from({ length: 3 * targets * per }, (_, i) => (i % 5) / 4);
  return { node: 2, mesh: 1, targetCount: targets, interpolation, times, values };
}

/** Byte offsets of the file's u32 fields worth a hostile value: record, image header, track and block records. */
function fieldOffsets(file: Uint8Array, joints: number): number[] {
  const view = new DataView(file.buffer, file.byteOffset, file.length);
  const groups = Math.ceil(joints / 4);
  const fields: number[] = [HEADER.clipCount];
  let at = HEADER_BYTES + pad4(joints * 2);
  for (let c = 0; c < view.getUint32(HEADER.clipCount, true); c++) {
    for (const offset of Object.values(RECORD)) fields.push(at + offset);
    const shared = view.getUint32(at + RECORD.flags, true) & RECORD_SHARED;
    const imageBytes = view.getUint32(at + RECORD.imageBytes, true);
    at += RECORD_BYTES + pad4(view.getUint32(at + RECORD.nameBytes, true));
    if (!shared) at += groups * HELD_GROUP_BYTES + pad4(groups * 2);
    for (let h = 0; h < 40; h += 4) fields.push(at + h);
    const u32 = (o: number) => view.getUint32(at + o, true);
    for (let t = 0; t < u32(4); t++) {
      for (let w = 0; w < 16; w += 4) fields.push(at + u32(12) + t * TRACK_BYTES + w);
    }
    for (let b = 0; b < u32(16); b++) {
      for (let w = 0; w < 16; w += 4) fields.push(at + u32(20) + b * SYNC_BYTES + w);
    }
    for (let e = 0; e < u32(24); e++) fields.push(at + u32(28) + e * 4);
    at += imageBytes;
    // The sections after the image: animated lanes, markers, root motion keys.
    fields.push(at);
    at += pad4(groups * 2);
    fields.push(at);
    const markers = view.getUint32(at, true);
    at += 4;
    for (let m = 0; m < markers; m++) {
      fields.push(at, at + 4, at + 8);
      at += 12 + pad4(view.getUint32(at + 8, true));
    }
    fields.push(at);
    const motion = view.getUint32(at, true);
    at += 4;
    for (let c = 0; c < motion; c++) {
      fields.push(at, at + 4, at + 8, at + 12, at + 16);
      const keys = view.getUint32(at + 4, true);
      const size = view.getUint8(at + 2) === 1 ? 4 : 3,
        perKey = view.getUint8(at + 3) === 2 ? 3 : 1;
      at += 16 + keys * 4 * (1 + size * perKey);
    }
    fields.push(at);
    const morph = view.getUint32(at, true);
    at += 4;
    for (let c = 0; c < morph; c++) {
      fields.push(at, at + 4, at + 8, at + 12, at + 16, at + 20);
      const keys = view.getUint32(at + 12, true), targets = view.getUint16(at + 8, true);
      at += 16 + keys * 4 * (1 + targets * (view.getUint8(at + 10) === 2 ? 3 : 1));
    }
  }
  return fields;
}

const HOSTILE_FLOATS = [NaN, Infinity, -Infinity, 1e30, -1e30, 3.4e38, 1e-40, -0, 0, 5.8e-39];

/** One mutant of `source`, and a word for the kind of change. */
function mutate(source: Source, fields: number[], next: () => number): [Uint8Array, string] {
  const pick = (n: number) => Math.floor(next() * n);
  const file = source.file;
  let out = file.slice();
  let view = new DataView(out.buffer);
  const kind = next();
  let name: string;
  if (kind < 0.3) {
    const at = fields[pick(fields.length)], old = view.getUint32(at, true);
    const values = [
      0,
      1,
      old + 1,
      old - 1,
      old * 2,
      old + 16,
      old + 4096,
      0xffffffff,
      0x7fffffff,
      0x8000,
      pick(file.length),
      1 << pick(32),
    ];
    view.setUint32(at, values[pick(values.length)] >>> 0, true);
    name = "field";
  } else if (kind < 0.5) {
    const at = HEADER_BYTES + pick((file.length - HEADER_BYTES) >> 2) * 4;
    view.setFloat32(at, HOSTILE_FLOATS[pick(HOSTILE_FLOATS.length)], true);
    name = "float";
  } else if (kind < 0.75) {
    for (let i = 1 + pick(4); i > 0; i--) out[pick(out.length)] ^= 1 << pick(8);
    name = "bits";
  } else if (kind < 0.85) {
    const at = HEADER_BYTES + pick(file.length - HEADER_BYTES - 2);
    view.setInt16(at, [-1, -2, -3, 0, 1, 32767, -32768][pick(7)], true);
    name = "short";
  } else {
    out = out.slice(0, pick(file.length));
    view = new DataView(out.buffer);
    name = "truncation";
    if (out.length >= HEADER_BYTES && next() < 0.7) {
      view.setUint32(HEADER.fileBytes, out.length, true);
    }
  }
  // Most mutants get a right checksum, so that the checks behind it are reached.
  if (out.length >= HEADER_BYTES && next() < 0.85) {
    view.setUint32(HEADER.checksum, xxhash32(out.subarray(HEADER.jointCount)), true);
  } else name += " (checksum as is)";
  return [out, name];
}

/** Samples every loaded clip on `core` and by the bounded reference: finite everywhere. */
function sampleLoaded(core: Core, skeleton: SkeletonAsset, clips: Clip[], next: () => number) {
  const memory = coreMemory(core);
  for (const clip of clips) {
    const compact = compactClip(clip, skeleton);
    const times = playTimes(Math.min(clip.duration, 1e6), next, 16);
    times.push(-1, 1e7, clip.duration);
    const { byteOffset, cacheTemplate } = compactClipInternals(compact);
    const image = memory.views().u8.slice(byteOffset, byteOffset + compact.bytes);
    const poses = [
      ...samplePlayback(core, compact, times),
      ...sampleImageBounded(image, cacheTemplate, compact.groupCount, times),
    ];
    for (const pose of poses) {
      for (let i = 0; i < pose.length; i++) {
        if (!Number.isFinite(pose[i])) {
          throw new Error(`clip "${clip.name}": pose float ${i} is ${pose[i]}`);
        }
      }
    }
  }
}

Deno.test("fuzz: every mutant of a compact clip file loads and samples finite, or is a ClipFileError", async () => {
  const sources = [
    await modelSource("CesiumMan.glb"),
    await modelSource("Fox.glb"),
    randomSource(),
  ];
  const next = random(SEED);
  const outcomes = new Map<string, number>();
  const count = (key: string) => outcomes.set(key, (outcomes.get(key) ?? 0) + 1);
  let total = 0, refused = 0, deep = 0, loaded = 0;
  const started = performance.now();
  for (const source of sources) {
    const fields = fieldOffsets(source.file, source.definition.parents.length);
    const cores = BUILDS.map((build) => Core.create(build));
    const skeletons = cores.map((core) => new SkeletonAsset(source.definition, core));
    for (let m = 0; m < MUTANTS_PER_FILE; m++, total++) {
      const [bytes, kind] = mutate(source, fields, next);
      const where = `${source.name} mutant ${m} (${kind}, seed ${SEED})`;
      const b = m % BUILDS.length, core = cores[b], skeleton = skeletons[b];
      const memory = coreMemory(core);
      const before = memory.allocatedBytes, budget = clipBytes(core);
      let clips: Clip[];
      try {
        clips = loadCompactClips(skeleton, bytes);
      } catch (e) {
        if (!(e instanceof ClipFileError)) throw new Error(`${where}: ${e}`, { cause: e });
        assert(e.byteOffset >= 0 && e.byteOffset <= bytes.length, `${where}: ${e.message}`);
        assert(e.message.startsWith(`clip file: byte ${e.byteOffset}: ${e.field}: `), e.message);
        assert(
          memory.allocatedBytes === before && clipBytes(core) === budget,
          `${where}: allocated`,
        );
        refused++;
        const field = e.field.replace(/\[\d+\]/g, "[]");
        const inImage = field.includes(".image.") || field.includes(".held") ||
          field.includes(".keyedLanes");
        if (inImage) deep++;
        count(`${kind}: refused at ${field.split(".").slice(0, 3).join(".")}`);
        continue;
      }
      // Loaded morph channels are channels the frame can play.
      for (const clip of clips) validateMorphChannels(clip);
      try {
        sampleLoaded(core, skeleton, clips, next);
      } catch (e) {
        throw new Error(`${where} loaded but sampling failed: ${e}`, { cause: e });
      }
      for (const clip of clips) disposeClip(clip);
      assert(memory.allocatedBytes === before, `${where}: the loaded clips' memory went back`);
      loaded++;
      count(`${kind}: loaded and sampled`);
    }
    for (const skeleton of skeletons) skeleton.dispose();
  }
  const seconds = (performance.now() - started) / 1000;
  console.log(
    `  ${total} mutants of ${sources.length} files in ${seconds.toFixed(1)} s, seed ${SEED}: ` +
      `${refused} refused (${deep} by the checks of the clips' images), ${loaded} loaded`,
  );
  for (const [key, n] of [...outcomes].sort()) console.log(`    ${key}: ${n}`);
  assert(total >= 900);
  // The structural checks are reached, and some mutants get through them.
  assertGreater(deep, refused * 0.3, `${deep} of ${refused} refusals in the images`);
  assertGreater(loaded, total * 0.05);
});
