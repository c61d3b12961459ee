import "../scalar.ts";
import { assertAlmostEquals, assertEquals, assertLess, assertThrows } from "@std/assert";
import { addEntity } from "bitecs";
import {
  addJointQuat,
  addSkeleton,
  type Clip,
  ComponentError,
  crossFadeTo,
  getPlayback,
  getPose,
  playClip,
  removeClipPlayer,
  sampleClipsSystem,
} from "../mod.ts";
import { PoseField, poseIndex } from "../kernels.ts";
import { createScene } from "./_scene.ts";

/** Joint 1 turns about z from 0 to 90° over one second; joint 2 moves along x. */
function turn(name = "turn", to = Math.PI / 2): Clip {
  const s = Math.sin(to / 2), c = Math.cos(to / 2);
  return {
    name,
    animation: 0,
    start: 0,
    duration: 1,
    channels: [
      {
        joint: 1,
        path: "rotation",
        interpolation: "LINEAR",
        times: Float32Array.from([0, 1]),
        values: Float32Array.from([0, 0, 0, 1, 0, 0, s, c]),
        node: 1,
      },
      {
        joint: 2,
        path: "translation",
        interpolation: "LINEAR",
        times: Float32Array.from([0, 1]),
        values: Float32Array.from([0, 0, 0, 4, 0, 0]),
        node: 2,
      },
    ],
  };
}

const field = (pose: Float32Array, joint: number, f: PoseField) => pose[poseIndex(joint, f)];

Deno.test("sampleClipsSystem advances time by speed and loops or clamps", () => {
  const { world, entities } = createScene("simd", 2);
  const [a, b] = entities;
  playClip(world, a, turn(), { speed: 0.5 });
  playClip(world, b, turn(), { wrap: "clamp", time: 0.25 });
  sampleClipsSystem(world, 0.5);
  // a: t = 0.25 → 22.5°; b: t = 0.75 → 67.5°.
  assertAlmostEquals(field(getPose(world, a), 1, PoseField.QZ), Math.sin(Math.PI / 16), 1e-6);
  assertAlmostEquals(field(getPose(world, b), 1, PoseField.QZ), Math.sin(3 * Math.PI / 16), 1e-6);
  assertAlmostEquals(field(getPose(world, b), 2, PoseField.TX), 3, 1e-6);
  sampleClipsSystem(world, 2);
  // a: t = 1.25 wraps to 0.25; b: t = 2.75 clamps to 1.
  assertAlmostEquals(field(getPose(world, a), 1, PoseField.QZ), Math.sin(Math.PI / 16), 1e-6);
  assertAlmostEquals(field(getPose(world, b), 2, PoseField.TX), 4, 1e-6);
  assertEquals(getPlayback(world, a).time, 1.25);
  // Joint 0 is not animated: it keeps the rest pose.
  assertEquals(field(getPose(world, a), 0, PoseField.QW), 1);
});

Deno.test("crossFadeTo blends from one clip to the other and then plays the new one", () => {
  const { world, entities } = createScene("simd", 1);
  const [eid] = entities;
  const still = turn("still", 0);
  playClip(world, eid, still, { wrap: "clamp" });
  crossFadeTo(world, eid, turn("turned", Math.PI / 2), 1, { wrap: "clamp", time: 1 });
  sampleClipsSystem(world, 0.5);
  // Half way: nlerp of 0° and 90° about z is 45°.
  assertAlmostEquals(field(getPose(world, eid), 1, PoseField.QZ), Math.sin(Math.PI / 8), 1e-6);
  assertEquals(getPlayback(world, eid).fade, 0.5);
  assertEquals(getPlayback(world, eid).next?.name, "turned");
  sampleClipsSystem(world, 0.6);
  assertEquals(getPlayback(world, eid).clip.name, "turned");
  assertEquals(getPlayback(world, eid).next, undefined);
  assertAlmostEquals(field(getPose(world, eid), 1, PoseField.QZ), Math.SQRT1_2, 1e-6);
});

Deno.test("cross-fades take the shorter arc when the clips' quaternions differ in sign", () => {
  const { world, entities } = createScene("scalar", 1);
  const [eid] = entities;
  const flipped = turn("flipped", Math.PI / 2);
  const values = flipped.channels[0].values as Float32Array;
  for (let i = 4; i < 8; i++) values[i] = -values[i]; // the same rotation, as -q
  playClip(world, eid, turn("still", 0), { wrap: "clamp" });
  crossFadeTo(world, eid, flipped, 1, { wrap: "clamp", time: 1 });
  sampleClipsSystem(world, 0.5);
  const qz = field(getPose(world, eid), 1, PoseField.QZ),
    qw = field(getPose(world, eid), 1, PoseField.QW);
  assertLess(Math.abs(Math.abs(qz) - Math.sin(Math.PI / 8)), 1e-6);
  assertLess(Math.abs(Math.abs(qw) - Math.cos(Math.PI / 8)), 1e-6);
});

Deno.test("playClip checks the entity and the clip", () => {
  const { world, skeleton, components } = createScene("scalar", 0);
  const eid = addEntity(world);
  assertThrows(
    () => playClip(world, eid, turn()),
    ComponentError,
    `entity ${eid}: ClipPlayer: the entity needs a Skeleton first`,
  );
  addSkeleton(world, eid, skeleton);
  assertThrows(() => playClip(world, eid, turn()), ComponentError, "needs a JointQuat first");
  addJointQuat(world, eid);
  const far = turn();
  (far.channels as Clip["channels"][number][]).push({ ...far.channels[0], joint: 99 });
  assertThrows(
    () => playClip(world, eid, far),
    ComponentError,
    `clip "turn" channel 2 animates joint 99, but the skeleton has ${skeleton.jointCount} joints`,
  );
  assertThrows(
    () => playClip(world, eid, turn(), { speed: NaN }),
    RangeError,
    "speed must be finite",
  );
  assertThrows(
    () => sampleClipsSystem(world, Infinity),
    RangeError,
    "deltaSeconds: expected a finite number >= 0",
  );
  playClip(world, eid, turn());
  assertEquals(components.ClipPlayer.clipName[eid], "turn");
  removeClipPlayer(world, eid);
  assertThrows(() => removeClipPlayer(world, eid), ComponentError, "has no ClipPlayer");
});
