/**
 * Compact clip files: every clip of every test model (and random clips of
 * every layout) saved and loaded samples bit for bit as the clip saved, on
 * every core build; a file is refused, with a ClipFileError naming the
 * field and byte and nothing allocated, when it is for another skeleton,
 * of another version, damaged or truncated; a loaded clip plays through
 * the ECS without a build, and refuses another skeleton.
 */
import "../scalar.ts";
import {
  assert,
  assertEquals,
  assertInstanceOf,
  assertStringIncludes,
  assertThrows,
} from "@std/assert";
import { addEntity, createWorld } from "bitecs";
import {
  addCharacter,
  type Clip,
  ClipError,
  createAnimation,
  createAnimationPipeline,
  createClip,
  getPose,
  playClip,
  SkeletonAsset,
  type SkeletonDefinition,
  SkinAsset,
} from "../mod.ts";
import { importGltf } from "../gltf/mod.ts";
import {
  clipBytes,
  ClipFileError,
  compactClip,
  disposeClip,
  loadCompactClips,
  saveCompactClips,
} from "../clips.ts";
import { Core, type CoreBuild } from "../kernels.ts";
import { createCylinder } from "../procedural/cylinder.ts";
import { coreMemory } from "../simd/memory/_instance.ts";
import { compactClipInternals } from "../animation/_asset_internals.ts";
import { random } from "./_scene.ts";
import { randomClip, randomSkeleton, SIMD_BUILDS } from "./_compact.ts";
import { playTimes, samplePlayback } from "./_clip_file.ts";
import { assetUrl, listAssets, testOnModels } from "./_three_gltf.ts";
import { HEADER, HEADER_BYTES, RECORD, RECORD_BYTES } from "../animation/_clip_file_format.ts";
import { xxhash32 } from "../animation/_clip_file_format.ts";
import { syncPolicy } from "../animation/_sync_blocks.ts";
import { sharedPolicy } from "../animation/_shared_blocks.ts";

const BUILDS: CoreBuild[] = ["scalar", ...SIMD_BUILDS];

/** The bits of a pose, so that -0 and NaN compare as bits. */
function bits(pose: Float32Array): Uint32Array {
  return new Uint32Array(pose.buffer, pose.byteOffset, pose.length);
}

/**
 * On a core of each build: `clips` built for `definition`, saved, loaded
 * for a skeleton of the same definition on a second core of that build;
 * the loaded compact forms equal the built ones (bytes, starting cache,
 * fields) and sample bit for bit as they do. The file is the same for
 * every build. Returns it.
 */
function roundTrip(definition: SkeletonDefinition, clips: readonly Clip[], label: string) {
  let file: Uint8Array | undefined;
  for (const build of BUILDS) {
    const coreA = Core.create(build), coreB = Core.create(build);
    using skeletonA = new SkeletonAsset(definition, coreA);
    using skeletonB = new SkeletonAsset(definition, coreB);
    const saved = saveCompactClips(skeletonA, clips);
    if (file) assertEquals(saved, file, `${label}: the file is the same on ${build}`);
    file = saved;
    const loaded = loadCompactClips(skeletonB, saved);
    assertEquals(loaded.length, clips.length);
    const next = random(7);
    clips.forEach((clip, i) => {
      const where = `${label} clip ${i} "${clip.name}" on ${build}`;
      const a = compactClip(clip, skeletonA), b = compactClip(loaded[i], skeletonB);
      assertEquals(loaded[i].name, clip.name, where);
      assertEquals([loaded[i].duration, loaded[i].start, loaded[i].animation], [
        clip.duration,
        clip.start,
        clip.animation,
      ]);
      for (const key of ["name", "duration", "groupCount", "trackCount", "keyCount", "bytes"]) {
        assertEquals(b[key as keyof typeof b], a[key as keyof typeof a], `${where}: ${key}`);
      }
      assertEquals([b.tolerance, b.virtualDistance, b.maxError], [
        a.tolerance,
        a.virtualDistance,
        a.maxError,
      ]);
      const inA = compactClipInternals(a), inB = compactClipInternals(b);
      const imageA = coreMemory(coreA).views().u8.slice(inA.byteOffset, inA.byteOffset + a.bytes);
      const imageB = coreMemory(coreB).views().u8.slice(inB.byteOffset, inB.byteOffset + b.bytes);
      assertEquals(imageB, imageA, `${where}: image`);
      assertEquals(inB.cacheTemplate, inA.cacheTemplate, `${where}: starting cache`);
      assertEquals(inB.steps, inA.steps, `${where}: STEP time rounding`);
      const times = playTimes(clip.duration, next);
      const posesA = samplePlayback(coreA, a, times), posesB = samplePlayback(coreB, b, times);
      times.forEach((t, k) => assertEquals(bits(posesB[k]), bits(posesA[k]), `${where} t=${t}`));
    });
  }
  return file!;
}

for (const name of listAssets()) {
  testOnModels(
    [name],
    `clip file: ${name}: every clip round-trips bit for bit on every build`,
    async () => {
      const model = await importGltf(assetUrl(name));
      let clips = 0;
      for (const [s, character] of model.skeletons.entries()) {
        if (character.clips.length === 0) continue;
        roundTrip(character.skeleton, character.clips, `${name} skeleton ${s}`);
        clips += character.clips.length;
      }
      assert(
        clips > 0 || name === "RiggedFigure.glb" || name === "SimpleSkin.gltf",
        `${name} has clips`,
      );
    },
  );
}

/** A LINEAR clip keying every joint's translation and rotation at common times (a shared timeline). */
function linearClip(joints: number, next: () => number): Clip {
  const times = Float32Array.from({ length: 12 }, (_, k) => k / 10);
  const channels = [];
  for (let joint = 0; joint < joints; joint++) {
    const axis = [next() - 0.5, next() - 0.5, next() - 0.5], n = Math.hypot(...axis);
    const rotation = [...times].flatMap((t) => {
      const h = Math.sin(t * 3 + joint) * 0.4, s = Math.sin(h) / n;
      return [axis[0] * s, axis[1] * s, axis[2] * s, Math.cos(h)];
    });
    const translation = [...times].flatMap((t) => [Math.sin(t + joint), 0.2 * t, 0.1]);
    channels.push(
      {
        joint,
        path: "rotation" as const,
        interpolation: "LINEAR" as const,
        times,
        values: Float32Array.from(rotation),
      },
      {
        joint,
        path: "translation" as const,
        interpolation: "LINEAR" as const,
        times,
        values: Float32Array.from(translation),
      },
    );
  }
  return createClip({ name: "linear", channels });
}

Deno.test("clip file: random clips of every layout (tracks, sync blocks, shared timelines) round-trip", () => {
  const next = random(20261127);
  const layouts = { shared: 0, synced: 0, tracks: 0, timeline: 0 };
  for (let i = 0; i < 4; i++) {
    const joints = 2 + Math.floor(next() * 10);
    const definition = randomSkeleton(joints, next);
    const clips = [
      randomClip(joints, next),
      randomClip(joints, next, true),
      linearClip(joints, next),
    ];
    // Odd rounds build blocks wherever a group path has two keyed lanes,
    // and a shared timeline wherever a clip can have one.
    const saved = { ...syncPolicy }, savedShared = { ...sharedPolicy };
    if (i % 2) syncPolicy.byteFactor = syncPolicy.clipFactor = sharedPolicy.fileFactor = Infinity;
    try {
      const file = roundTrip(definition, clips, `random ${i}`);
      const core = Core.create("scalar");
      using skeleton = new SkeletonAsset(definition, core);
      for (const clip of loadCompactClips(skeleton, file)) {
        const at = compactClipInternals(compactClip(clip, skeleton)).byteOffset;
        const u32 = coreMemory(core).views().u32.subarray(at >> 2);
        if (u32[8]) layouts.shared++;
        else if (u32[4]) layouts.synced++;
        if (u32[1]) layouts.tracks++;
        if (u32[6]) layouts.timeline++;
      }
    } finally {
      Object.assign(syncPolicy, saved);
      Object.assign(sharedPolicy, savedShared);
    }
  }
  const { shared, synced, tracks, timeline } = layouts;
  assert(shared && synced && tracks && timeline, `layouts: ${JSON.stringify(layouts)}`);
});

/** A file of two clips for a cylinder of `joints`, with the skeleton asset on `core`. */
function cylinderFile(joints = 6) {
  const character = createCylinder({ joints });
  const next = random(3);
  const clips = [randomClip(joints, next), randomClip(joints, next, true)];
  const core = Core.create("scalar");
  const skeleton = new SkeletonAsset(character.skeleton, core);
  return { character, clips, skeleton, core, file: saveCompactClips(skeleton, clips) };
}

/** Asserts that loading `bytes` for `skeleton` throws a ClipFileError on `field` and allocates nothing. */
function assertRefused(
  skeleton: SkeletonAsset,
  bytes: Uint8Array,
  field: RegExp,
  byte?: number,
  message?: string,
) {
  const memory = coreMemory(skeleton.core);
  const before = memory.allocatedBytes;
  const e = assertThrows(() => loadCompactClips(skeleton, bytes), ClipFileError);
  assert(field.test(e.field), `field ${e.field}: ${e.message}`);
  if (byte !== undefined) assertEquals(e.byteOffset, byte, e.message);
  if (message !== undefined) assertStringIncludes(e.message, message);
  assert(e.message.startsWith(`clip file: byte ${e.byteOffset}: ${e.field}: `), e.message);
  assertEquals(memory.allocatedBytes, before, "nothing allocated");
}

/** `file` with `edit` applied and its checksum made right again. */
function edited(file: Uint8Array, edit: (view: DataView) => void): Uint8Array {
  const copy = file.slice();
  const view = new DataView(copy.buffer);
  edit(view);
  view.setUint32(HEADER.checksum, xxhash32(copy.subarray(HEADER.jointCount)), true);
  return copy;
}

Deno.test("clip file: a file for another skeleton is refused (joint count, parents, rest pose)", () => {
  const { character, skeleton, file } = cylinderFile();
  const base = character.skeleton;
  using fewer = new SkeletonAsset(createCylinder({ joints: 5 }).skeleton, skeleton.core);
  assertRefused(fewer, file, /^jointCount$/, HEADER.jointCount);
  const parents = Int16Array.from(base.parents);
  parents[5] = 3;
  using reparented = new SkeletonAsset({ ...base, parents }, skeleton.core);
  assertRefused(reparented, file, /^parents\[5\]$/, HEADER_BYTES + 10);
  const restPose = base.restPose.slice();
  restPose[1] = Math.fround(restPose[1] + 1e-3);
  using moved = new SkeletonAsset({ ...base, restPose }, skeleton.core);
  assertRefused(moved, file, /^restPoseHash$/, HEADER.restPoseHash);
  using same = new SkeletonAsset(base, skeleton.core);
  assertEquals(loadCompactClips(same, file).length, 2);
});

Deno.test("clip file: version, magic, flags, size, checksum, truncation and trailing bytes are refused", () => {
  const { skeleton, file } = cylinderFile();
  const plain = (edit: (view: DataView) => void) => {
    const copy = file.slice();
    edit(new DataView(copy.buffer));
    return copy;
  };
  // Version 1 (no morph section) and any later one.
  assertRefused(skeleton, plain((v) => v.setUint16(HEADER.version, 1, true)), /^version$/, 4);
  assertRefused(skeleton, plain((v) => v.setUint16(HEADER.version, 3, true)), /^version$/, 4);
  assertRefused(skeleton, plain((v) => v.setUint8(0, 0x4e)), /^magic$/, 0);
  assertRefused(skeleton, plain((v) => v.setUint16(HEADER.flags, 1, true)), /^flags$/, 6);
  assertRefused(skeleton, plain((v) => v.setUint8(file.length - 1, 1)), /^checksum$/, 12);
  assertRefused(skeleton, file.subarray(0, file.length - 16), /^fileBytes$/, 8);
  assertRefused(skeleton, file.subarray(0, 20), /^header$/, 20);
  const longer = new Uint8Array(file.length + 4);
  longer.set(file);
  assertRefused(skeleton, edited(longer, (v) => v.setUint32(8, longer.length, true)), /^end$/);
  // Counts and offsets, with the checksum made right: the structure's own checks.
  const first = HEADER_BYTES + 12; // six joints' parents
  assertRefused(
    skeleton,
    edited(file, (v) => v.setUint32(HEADER.clipCount, 3, true)),
    /^clips\[2\]|^clipCount$/,
  );
  assertRefused(
    skeleton,
    edited(file, (v) => v.setUint32(first + RECORD.imageBytes, 1 << 30, true)),
    /^clips\[0\]\.image$/,
  );
  assertRefused(
    skeleton,
    edited(file, (v) => v.setUint32(first + RECORD.nameBytes, 0xfffffffe, true)),
    /^clips\[0\]\.name$/,
    first + RECORD_BYTES,
    "4294967296 bytes past the end of the file",
  );
  assertRefused(
    skeleton,
    edited(file, (v) => v.setFloat64(first + RECORD.duration, NaN, true)),
    /^clips\[0\]\.duration$/,
    first + RECORD.duration,
  );
  const imageAt = first + 64 + 8 + 2 * 160 + 4; // name "random", held values, keyed lanes
  assertRefused(
    skeleton,
    edited(file, (v) => v.setUint32(imageAt + 12, 1 << 24, true)),
    /^clips\[0\]\.image\.tracks$/,
    imageAt + 12,
  );
  // A key time equal to the one before (a zero interval), a NaN value, a lane naming no track.
  const image = new DataView(file.buffer, imageAt);
  const track = image.getUint32(12, true), times = image.getUint32(track, true);
  assert(image.getUint32(track + 8, true) >= 2);
  assertRefused(
    skeleton,
    edited(
      file,
      (v) => v.setFloat32(imageAt + times + 4, v.getFloat32(imageAt + times, true), true),
    ),
    /^clips\[0\]\.image\.tracks\[0\]\.times$/,
    imageAt + times + 4,
  );
  const raw = [...Array(image.getUint32(4, true)).keys()].find((t) =>
    (image.getUint32(track + t * 16 + 12, true) & 15) === 0
  )!;
  const values = image.getUint32(track + raw * 16 + 4, true);
  assertRefused(
    skeleton,
    edited(file, (v) => v.setFloat32(imageAt + values, NaN, true)),
    new RegExp(`^clips\\[0\\]\\.image\\.tracks\\[${raw}\\]\\.values$`),
    imageAt + values,
  );
  const lanes = image.getUint32(8, true);
  assertRefused(
    skeleton,
    edited(file, (v) => v.setInt16(imageAt + lanes, 999, true)),
    /^clips\[0\]\.image\.lanes\[0\]$/,
    imageAt + lanes,
  );
});

Deno.test("clip file: loaded clips play through the ECS without a build, bit for bit, and refuse another skeleton", () => {
  const { character, clips, skeleton, core, file } = cylinderFile();
  using other = new SkeletonAsset(character.skeleton, core);
  const loaded = loadCompactClips(other, file);
  const world = createWorld();
  createAnimation(world, { core });
  using skin = new SkinAsset(skeleton, character.skin);
  using skinOther = new SkinAsset(other, character.skin);
  const pairs = clips.map((clip, i) => {
    const a = addEntity(world), b = addEntity(world);
    addCharacter(world, a, skeleton, skin);
    addCharacter(world, b, other, skinOther);
    playClip(world, a, clip);
    // A build would take clip budget; the loaded clip's compact form is there.
    const budget = clipBytes(core);
    playClip(world, b, loaded[i]);
    assertEquals(clipBytes(core), budget, `clip ${i}: no build`);
    return [a, b];
  });
  const animate = createAnimationPipeline();
  const first = pairs.map(([a]) => getPose(world, a).slice());
  for (let frame = 0; frame < 30; frame++) {
    animate(world, 0.037);
    for (const [a, b] of pairs) {
      assertEquals(bits(getPose(world, b)), bits(getPose(world, a)), `frame ${frame}`);
    }
  }
  pairs.forEach(([a], i) =>
    assert(getPose(world, a).some((v, k) => v !== first[i][k]), `clip ${i} moves`)
  );
  // Another core's skeleton has no compact form of it, and no keys to build one.
  using elsewhere = new SkeletonAsset(character.skeleton, Core.create("scalar"));
  assertInstanceOf(assertThrows(() => compactClip(loaded[0], elsewhere)), ClipError);
  disposeClip(loaded[0]);
  assertThrows(() => compactClip(loaded[0], other), ClipError, "no keys to build from");
});

Deno.test("clip file: the checksum is xxHash32 (the reference's test vectors, aligned or not)", () => {
  const text = (s: string) => new TextEncoder().encode(s);
  const vectors: [string, number][] = [
    ["", 0x02cc5d05],
    ["a", 0x550d7456],
    ["abc", 0x32d153ff],
    ["Nobody inspects the spammish repetition", 0xe2293b2f],
  ];
  for (const [input, hash] of vectors) {
    assertEquals(xxhash32(text(input)), hash, input);
    const shifted = new Uint8Array(input.length + 1);
    shifted.set(text(input), 1);
    assertEquals(xxhash32(shifted.subarray(1)), hash, `${input}, unaligned`);
  }
});
