/**
 * Layers on compact clips: every playback of every layer (a locomotion
 * blend's included) samples through its own sampler, checked against the
 * exact sampler forward, after a seek and played backwards; the samplers
 * go with their layer, and with them the layers' hold on their clips.
 */
import { assertEquals, assertLess } from "@std/assert";
import {
  addLayer,
  addLocomotionLayer,
  type Clip,
  clipBytes,
  disposeClip,
  getPose,
  playClip,
  PoseField,
  poseIndex,
  removeClipPlayer,
  removeLayer,
  sampleClip,
  sampleClipsSystem,
  setLayerTime,
  setLayerWeight,
} from "../mod.ts";
import { coreMemory } from "../simd/_instance.ts";
import { BUILDS, createScene, random } from "./_scene.ts";

/** Joint 1 turns about z and joint 2 moves along x through `keys` uneven keys over `duration` s. */
function wander(name: string, seed: number, keys = 24, duration = 2): Clip {
  const next = random(seed);
  const times = Float32Array.from({ length: keys }, (_, k) => (duration * k) / (keys - 1));
  const rotations = new Float32Array(keys * 4), translations = new Float32Array(keys * 3);
  let angle = 0;
  for (let k = 0; k < keys; k++) {
    angle += (next() - 0.3) * 0.8;
    rotations.set([0, 0, Math.sin(angle / 2), Math.cos(angle / 2)], k * 4);
    translations.set([next() * 2 - 1, 0.5, 0], k * 3);
  }
  return {
    name,
    animation: 0,
    start: 0,
    duration,
    channels: [
      { joint: 1, path: "rotation", interpolation: "LINEAR", times, values: rotations, node: 1 },
      {
        joint: 2,
        path: "translation",
        interpolation: "LINEAR",
        times,
        values: translations,
        node: 2,
      },
    ],
  };
}

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
    for (let frame = 1; frame <= 40; frame++) {
      sampleClipsSystem(world, 1 / 30);
      const expected = exact(rest, clip, (frame / 30) % 2);
      assertLess(
        jointDifference(getPose(world, eid), expected, n),
        TOLERANCE,
        `forward frame ${frame}`,
      );
    }
    setLayerTime(world, eid, 1, 0.35);
    sampleClipsSystem(world, 0);
    assertLess(jointDifference(getPose(world, eid), exact(rest, clip, 0.35), n), TOLERANCE, "seek");
    setLayerWeight(world, eid, 1, 0);
    setLayerWeight(world, eid, 2, 1);
    for (let frame = 1; frame <= 40; frame++) {
      sampleClipsSystem(world, 1 / 30);
      // Layer 2 kept its time moving while its weight was 0.
      const time = (((1.85 - (40 + frame) / 30) % 2) + 2) % 2;
      assertLess(
        jointDifference(getPose(world, eid), exact(rest, clip, time), n),
        TOLERANCE,
        `backward frame ${frame}`,
      );
    }
    // A locomotion blend of the clip with itself: both playbacks in phase, the blend the clip.
    removeLayer(world, eid, 2);
    removeLayer(world, eid, 1);
    addLocomotionLayer(world, eid, [{ clip, at: 0 }, { clip, at: 1 }], { parameter: 0.4 });
    for (let frame = 1; frame <= 20; frame++) {
      sampleClipsSystem(world, 1 / 30);
      const expected = exact(rest, clip, (frame / 30) % 2);
      assertLess(
        jointDifference(getPose(world, eid), expected, n),
        TOLERANCE,
        `locomotion frame ${frame}`,
      );
    }
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
