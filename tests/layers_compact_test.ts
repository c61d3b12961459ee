/**
 * Layers on compact clips: every playback of every layer (a locomotion
 * blend's included) samples through its own sampler, checked against the
 * exact sampler forward, after a seek and played backwards; the samplers
 * go with their layer, and with them the layers' hold on their clips.
 */
import { assertEquals, assertLess } from "@std/assert";
import { type Clip, getPose, playClip, removeClipPlayer, sampleClipsSystem } from "../mod.ts";
import {
  addLayer,
  addLocomotionLayer,
  removeLayer,
  setLayerTime,
  setLayerWeight,
} from "../layers.ts";
import { clipBytes, disposeClip, sampleClip } from "../clips.ts";
import { PoseField, poseIndex } from "../kernels.ts";
import { coreMemory } from "../simd/memory/_instance.ts";
import { BUILDS, createScene, wander } from "./_scene.ts";

/** The exact pose of `clip` at clip time `time` (wrapped by the caller). */
function exact(rest: Float32Array, clip: Clip, time: number): Float32Array {
  const pose = rest.slice();
  sampleClip(clip, time, pose);
  return pose;
}

const TOLERANCE = 1e-3;

/** Largest difference of two poses over the joints' fields (padding lanes left out). */
function jointDifference(a: Float32Array, b: Float32Array, jointCount: number): number {
  let max = 0;
  for (let joint = 0; joint < jointCount; joint++) {
    for (let f = PoseField.TX; f <= PoseField.SZ; f++) {
      max = Math.max(max, Math.abs(a[poseIndex(joint, f)] - b[poseIndex(joint, f)]));
    }
  }
  return max;
}

for (const build of BUILDS) {
  Deno.test(`layers (${build}): each layer playback samples its compact clip forward, after a seek and backwards`, () => {
    const { world, entities, skeleton } = createScene(build, 1);
    const [eid] = entities;
    const clip = wander("wander", 7), rest = skeleton.restPose, n = skeleton.jointCount;
    playClip(world, eid, wander("base", 8));
    setLayerWeight(world, eid, 0, 0);
    // Two layers play the same clip, each from its own cache.
    addLayer(world, eid, clip, { time: 0 });
    addLayer(world, eid, clip, { time: 1.85, speed: -1, weight: 0 });
    /** Plays `frames` frames of 1/30 s, each pose the clip's at `timeOf(frame)`. */
    const follow = (what: string, frames: number, timeOf: (frame: number) => number) => {
      for (let frame = 1; frame <= frames; frame++) {
        sampleClipsSystem(world, 1 / 30);
        const expected = exact(rest, clip, timeOf(frame));
        assertLess(
          jointDifference(getPose(world, eid), expected, n),
          TOLERANCE,
          `${what} ${frame}`,
        );
      }
    };
    follow("forward frame", 40, (frame) => (frame / 30) % 2);
    setLayerTime(world, eid, 1, 0.35);
    sampleClipsSystem(world, 0);
    assertLess(jointDifference(getPose(world, eid), exact(rest, clip, 0.35), n), TOLERANCE, "seek");
    setLayerWeight(world, eid, 1, 0);
    setLayerWeight(world, eid, 2, 1);
    // Layer 2 kept its time moving while its weight was 0.
    follow("backward frame", 40, (frame) => (((1.85 - (40 + frame) / 30) % 2) + 2) % 2);
    // A locomotion blend of the clip with itself: both playbacks in phase, the blend the clip.
    removeLayer(world, eid, 2);
    removeLayer(world, eid, 1);
    addLocomotionLayer(world, eid, [{ clip, at: 0 }, { clip, at: 1 }], { parameter: 0.4 });
    follow("locomotion frame", 20, (frame) => (frame / 30) % 2);
  });
}

Deno.test("layers: removing layers frees their samplers, and a clip only layers played is disposed at once", () => {
  const { world, entities, core } = createScene("simd", 1);
  const [eid] = entities;
  const memory = coreMemory(core);
  const base = wander("base", 1), other = wander("other", 2), third = wander("third", 3);
  playClip(world, eid, base);
  let baseline = 0;
  for (let round = 0; round < 10; round++) {
    // After the first round the systems' job tables have their size.
    if (round === 1) baseline = memory.allocatedBytes;
    addLayer(world, eid, other, { time: round * 0.1 });
    addLocomotionLayer(world, eid, [{ clip: other, at: 0 }, { clip: third, at: 1 }], {
      parameter: 0.5,
    });
    sampleClipsSystem(world, 0.1);
    removeLayer(world, eid, round % 2 ? 1 : 2);
    sampleClipsSystem(world, 0.1);
    removeLayer(world, eid, 1);
    sampleClipsSystem(world, 0.1);
  }
  assertEquals(memory.allocatedBytes, baseline);
  const built = clipBytes(core);
  disposeClip(other);
  disposeClip(third);
  assertLess(clipBytes(core), built, "no layer holds the clips any more");
  // The player's own clip is still held while it plays.
  const held = clipBytes(core);
  disposeClip(base);
  assertEquals(clipBytes(core), held);
  removeClipPlayer(world, eid);
  assertLess(clipBytes(core), held);
});
