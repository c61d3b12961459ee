// Hostile use of the compact clip, marker and playback APIs: each attack ends in a typed error
// naming what was wrong (nothing written) or in correct output.

import { assert, assertEquals, assertThrows } from "@std/assert";
import {
  type Clip,
  ClipError,
  createClip,
  crossFadeTo,
  getPlayback,
  getPose,
  playClip,
  sampleClipsSystem,
  SkeletonAsset,
} from "../mod.ts";
import { addLayer, addLocomotionLayer } from "../layers.ts";
import { compactClip, disposeClip, setClipMarkers } from "../clips.ts";
import { createCylinder } from "../procedural/cylinder.ts";
import { createScene, finite, wander } from "./_scene.ts";

Deno.test("hostile: compactClip of a clip animating a joint the skeleton does not have is a typed error", () => {
  const { skeleton } = createScene("simd", 0);
  const clip = createClip({
    name: "far",
    channels: [{
      joint: skeleton.jointCount + 1,
      path: "translation",
      interpolation: "LINEAR",
      times: Float32Array.of(0, 1),
      values: Float32Array.of(0, 0, 0, 1, 1, 1),
    }],
  });
  const error = assertThrows(() => compactClip(clip, skeleton), ClipError);
  assert(/"far" channel 0.*joint/.test(error.message), error.message);
  const far = createClip({
    name: "farther",
    channels: [{
      joint: 1000,
      path: "rotation",
      interpolation: "STEP",
      times: Float32Array.of(0),
      values: Float32Array.of(0, 0, 0, 1),
    }],
  });
  const error2 = assertThrows(() => compactClip(far, skeleton), ClipError);
  assert(/channel 0.*joint 1000/.test(error2.message), error2.message);
});

Deno.test("hostile: compactClip of an unvalidated clip object is a ClipError", () => {
  const { skeleton } = createScene("simd", 0);
  const clip = {
    name: "raw",
    animation: 0,
    start: 0,
    duration: 1,
    channels: [{
      joint: 1,
      path: "translation",
      interpolation: "LINEAR",
      times: Float32Array.of(1, 0),
      values: Float32Array.of(0, 0, 0, NaN, 1, 1),
      node: 1,
    }],
  } as unknown as Clip;
  assertThrows(() => compactClip(clip, skeleton), ClipError);
});

Deno.test("hostile: compactClip on a disposed skeleton is a typed error", () => {
  const core = createScene("simd", 0).core;
  const skeleton = new SkeletonAsset(createCylinder({ joints: 4 }).skeleton, core);
  skeleton[Symbol.dispose]();
  assertThrows(() => compactClip(wander("w", 1), skeleton), TypeError);
});

Deno.test("hostile: compactClip tolerances of 0, -1, NaN, Infinity", () => {
  const { skeleton } = createScene("simd", 0);
  for (const tolerance of [-1, NaN, Infinity, -Infinity]) {
    assertThrows(() => compactClip(wander("t", 2), skeleton, { tolerance }), RangeError);
    assertThrows(
      () => compactClip(wander("v", 2), skeleton, { virtualDistance: tolerance }),
      RangeError,
    );
  }
  const exact = compactClip(wander("zero", 3), skeleton, { tolerance: 0 });
  assert(exact.maxError >= 0);
});

Deno.test("hostile: extreme hand-made clips: beyond 1e18 refused, denormals and 1e18 leave the neighbour alone", () => {
  const { world, entities: [eid, other] } = createScene("simd", 2);
  const channel = (values: Float32Array) => ({
    joint: 1,
    path: "translation" as const,
    interpolation: "LINEAR" as const,
    times: Float32Array.of(0, 1e-7, 2e-7, 1),
    values,
  });
  const error = assertThrows(
    () => createClip({ name: "huge", channels: [channel(new Float32Array(12).fill(1e38))] }),
    ClipError,
  );
  assert(/channel 0 key 0/.test(error.message), error.message);
  const big = createClip({
    name: "big",
    channels: [
      channel(Float32Array.of(0, 0, 0, 1e18, -1e18, 1e-40, 1e-45, 0, 0, 1e18, 1e18, 1e18)),
    ],
  });
  playClip(world, other, wander("n", 4));
  sampleClipsSystem(world, 0);
  const neighbour = getPose(world, other).slice();
  playClip(world, eid, big, { time: 0.5 });
  for (const time of [0, 1e-7, 1.5e-7, 0.5, 1]) {
    playClip(world, eid, big, { time, wrap: "clamp" });
    sampleClipsSystem(world, 0);
    assertEquals(getPose(world, other), neighbour);
    assert(finite(getPose(world, eid)), `time ${time}`);
  }
});
Deno.test("hostile: markers on a zero-duration clip, locomotion on one clip or duplicate points", () => {
  const { world, entities: [eid] } = createScene("simd", 1);
  const still = createClip({
    name: "still",
    channels: [{
      joint: 1,
      path: "translation",
      interpolation: "STEP",
      times: Float32Array.of(0),
      values: Float32Array.of(0, 1, 0),
    }],
  });
  setClipMarkers(still, [{ name: "a", time: 0 }]);
  assertThrows(() => setClipMarkers(still, [{ name: "b", time: 1e-9 }]), RangeError);
  playClip(world, eid, still, { speed: 1e30 });
  addLocomotionLayer(world, eid, [{ clip: still, at: 1 }]);
  addLocomotionLayer(world, eid, [{ clip: still, at: 1 }, { clip: wander("w", 3), at: 1 }]);
  for (let i = 0; i < 3; i++) sampleClipsSystem(world, 1e30);
  assert(finite(getPose(world, eid)));
  disposeClip(still);
  sampleClipsSystem(world, 1 / 60);
  assert(finite(getPose(world, eid)));
});
Deno.test("hostile: a speed beyond the 32-bit float range is refused, not stored as Infinity; a time is float64", () => {
  const { world, entities: [eid, other] } = createScene("simd", 2);
  playClip(world, other, wander("n", 1));
  for (const bad of [1e300, -1e39]) {
    assertThrows(
      () => playClip(world, eid, wander("s", 2), { speed: bad }),
      RangeError,
      `entity ${eid}`,
    );
    // Times are float64 from the store to the kernel: any finite one plays.
    playClip(world, eid, wander("t", 2), { time: bad });
    assertEquals(getPlayback(world, eid).time, bad);
    assertThrows(
      () => playClip(world, eid, wander("t", 2), { time: Infinity }),
      RangeError,
      "time",
    );
    assertThrows(() => crossFadeTo(world, other, wander("c", 3), 0.5, { speed: bad }), RangeError);
  }
  sampleClipsSystem(world, 1 / 60);
  assert(finite(getPose(world, other)));
  assert(finite(getPose(world, eid)));
});
Deno.test("hostile: compact clips sample the same after the core grows under them", () => {
  const { world, entities: [eid], core } = createScene("simd", 1);
  const clip = wander("grow", 9);
  playClip(world, eid, clip, { time: 0.3 });
  addLayer(world, eid, wander("l", 10, 2), { time: 0.7, weight: 0.5 });
  sampleClipsSystem(world, 0);
  const before = getPose(world, eid).slice();
  const pages = core.byteLength;
  const big = Array.from(
    { length: 8 },
    () => new SkeletonAsset(createCylinder({ joints: 2000 }).skeleton, core),
  );
  assert(core.byteLength > pages, "the core grew");
  sampleClipsSystem(world, 0);
  assertEquals(getPose(world, eid), before);
  for (const s of big) s[Symbol.dispose]();
});
