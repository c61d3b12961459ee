/**
 * Lifetimes of loaded clips. A file's clips are loaded as one group (one
 * finalization registration and one skeleton registration per file,
 * `animation/_clip_file_group.ts`), yet each clip's block still goes back
 * as a built clip's does: on `disposeClip` (after its last player), with
 * the skeleton it was loaded for, and when the clips are dropped and
 * collected; a disposed clip cannot be played again, and a compact form a
 * player still holds keeps its block even when every clip of its file is
 * collected.
 *
 * The collection test runs without `--expose-gc`, as the runner does: it
 * makes garbage until FinalizationRegistry probes see the clips collected.
 */
import "../scalar.ts";
import { assert, assertEquals, assertThrows } from "@std/assert";
import { type Clip, ClipError, SkeletonAsset } from "../mod.ts";
import {
  clipBytes,
  compactClip,
  disposeClip,
  loadCompactClips,
  saveCompactClips,
} from "../clips.ts";
import { Core } from "../kernels.ts";
import { createCylinder } from "../procedural/cylinder.ts";
import { coreMemory } from "../simd/memory/_instance.ts";
import { compactClipInternals } from "../animation/_asset_internals.ts";
import { lifetimeOf } from "../animation/_lifetime.ts";
import { random } from "./_scene.ts";
import { randomClip } from "./_compact.ts";
import { collectUntil } from "./_collect.ts";

const JOINTS = 6;

/** A file of three random clips for a cylinder, and a skeleton of it on a scalar core. */
function cylinderFile() {
  const character = createCylinder({ joints: JOINTS });
  const next = random(11);
  const clips = [
    randomClip(JOINTS, next),
    randomClip(JOINTS, next, true),
    randomClip(JOINTS, next),
  ];
  const core = Core.create("scalar");
  const skeleton = new SkeletonAsset(character.skeleton, core);
  return { character, clips, skeleton, core, file: saveCompactClips(skeleton, clips) };
}

/** The bytes of `clip`'s compact form in its core (a copy). */
function imageOf(clip: Clip, skeleton: SkeletonAsset): Uint8Array {
  const compact = compactClip(clip, skeleton);
  const { byteOffset } = compactClipInternals(compact);
  return coreMemory(skeleton.core).views().u8.slice(byteOffset, byteOffset + compact.bytes);
}

Deno.test("clip file: a disposed loaded clip gives its block back after its last player, and cannot be played again", () => {
  const { skeleton, core, file } = cylinderFile();
  const before = clipBytes(core);
  const loaded = loadCompactClips(skeleton, file);
  const sizes = loaded.map((clip) => compactClip(clip, skeleton).bytes);
  assertEquals(clipBytes(core), before + sizes[0] + sizes[1] + sizes[2]);

  // Unplayed: its block goes now; its siblings stay and play.
  disposeClip(loaded[0]);
  assertEquals(clipBytes(core), before + sizes[1] + sizes[2], "the disposed clip's block is back");
  assertThrows(() => compactClip(loaded[0], skeleton), ClipError, "no keys to build from");
  const image = imageOf(loaded[1], skeleton);

  // Played: its block stays until the player lets go.
  const lifetime = lifetimeOf(compactClip(loaded[1], skeleton));
  lifetime.acquire();
  disposeClip(loaded[1]);
  assertEquals(clipBytes(core), before + sizes[1] + sizes[2], "a player keeps the block");
  assertThrows(() => compactClip(loaded[1], skeleton), ClipError, "no keys to build from");
  lifetime.release();
  assertEquals(clipBytes(core), before + sizes[2], "back with the last player");
  assertEquals(image.length, sizes[1]);

  disposeClip(loaded[2]);
  assertEquals(clipBytes(core), before, "every block of the file is back");
  skeleton.dispose();
});

Deno.test("clip file: disposing the skeleton gives back the blocks of the clips loaded for it", () => {
  const { character, skeleton, core, file } = cylinderFile();
  using twin = new SkeletonAsset(character.skeleton, core);
  const built = clipBytes(core);
  const loaded = loadCompactClips(skeleton, file);
  // Played on another skeleton of the structure too: tied to both.
  compactClip(loaded[1], twin);
  assertEquals(clipBytes(core), 2 * built, "the file's clips are as large as the clips saved");
  skeleton.dispose();
  // The clips saved were built for the skeleton too, and went with it.
  assertEquals(clipBytes(core), 0, "the file's blocks went with the skeleton");
  for (const clip of loaded) {
    assertThrows(() => compactClip(clip, twin), ClipError, "no keys to build from");
  }
});

/** Loads `files` times the file for `skeleton` and drops the clips; returns a probe of their collection. */
function loadAndDrop(skeleton: SkeletonAsset, file: Uint8Array, files: number) {
  // The probe lives as long as the state (a registry collected calls back nobody).
  const state = { collected: 0, probe: new FinalizationRegistry(() => state.collected++) };
  for (let i = 0; i < files; i++) {
    for (const clip of loadCompactClips(skeleton, file)) state.probe.register(clip, undefined);
  }
  return state;
}

Deno.test("clip file: dropped loaded clips are collected and their blocks come back; a compact form a player holds keeps its file's", async () => {
  // The clips saved stay referenced: their builds count in `before`.
  const { clips, skeleton, core, file } = cylinderFile();
  const FILES = 12;
  const before = clipBytes(core);
  // One file whose clips are dropped while a player holds one compact form.
  let held = (() => {
    const loaded = loadCompactClips(skeleton, file);
    const compact = compactClip(loaded[1], skeleton);
    lifetimeOf(compact).acquire();
    return { compact, image: imageOf(loaded[1], skeleton) };
  })();
  const fileBytes = clipBytes(core) - before;
  const state = loadAndDrop(skeleton, file, FILES);
  assertEquals(clipBytes(core), before + fileBytes * (FILES + 1));
  // One clip may still sit in a register or on the stack.
  await collectUntil(() => state.collected >= (FILES - 1) * 3);
  assert(state.collected >= (FILES - 1) * 3, `${state.collected} of ${FILES * 3} clips collected`);
  // Released by the registry's callbacks, which may run a task after the probes'.
  await collectUntil(() => clipBytes(core) - before <= 2 * fileBytes);
  assert(
    clipBytes(core) - before <= 2 * fileBytes,
    `${clipBytes(core) - before} bytes of clips still held (a file: ${fileBytes})`,
  );
  // The held form's file is still there, its image intact after blocks were reused.
  assert(clipBytes(core) - before >= fileBytes, "the held compact form's file keeps its blocks");
  loadAndDrop(skeleton, file, 4);
  const { byteOffset } = compactClipInternals(held.compact);
  const image = coreMemory(core).views().u8.slice(byteOffset, byteOffset + held.compact.bytes);
  assertEquals(image, held.image, "the held compact form's image");
  lifetimeOf(held.compact).release();
  held = undefined as unknown as typeof held;
  assertEquals(clips.length, 3);
  skeleton.dispose();
});
