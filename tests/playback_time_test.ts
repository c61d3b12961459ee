/**
 * Playback time is float64 from the game's call to the sampling kernel:
 * the ClipPlayer store, layers' and fades' times are float64, and for a
 * clip with STEP keys the time a kernel compares with float32 key times is
 * the float64 time rounded down (`floorToFloat32`), so a STEP key switches
 * exactly at its time. Rounded to nearest, a time 2.4e-8 s before a key
 * near 1.3 s reached it.
 */

import "../scalar.ts";
import fc from "fast-check";
import { assert, assertEquals } from "@std/assert";
import {
  type Clip,
  createAnimationPipeline,
  getPose,
  playClip,
  sampleClipsSystem,
} from "../mod.ts";
import { addLayer, getLayers, setLayerTime, setLayerWeight } from "../layers.ts";
import { PoseField, poseIndex } from "../kernels.ts";
import { floorToFloat32 } from "../animation/clip_sampler.ts";
import { BUILDS, createScene } from "./_scene.ts";

/** The next float32 above float32 `f` (by its bits; an independent walk from floorToFloat32's). */
function nextFloat32Up(f: number): number {
  const view = new DataView(new ArrayBuffer(4));
  view.setFloat32(0, f);
  if (f === 0) return 2 ** -149;
  const bits = view.getUint32(0);
  view.setUint32(0, f > 0 ? bits + 1 : bits - 1);
  return view.getFloat32(0);
}

Deno.test("floorToFloat32 is the largest float32 not above the time", () => {
  fc.assert(
    fc.property(
      fc.oneof(
        fc.double({ noNaN: true, min: -1e30, max: 1e30 }),
        fc.float({ noNaN: true, noDefaultInfinity: true }).chain((f) =>
          fc.double({ min: -1e-6, max: 1e-6, noNaN: true }).map((d) => f + d * Math.abs(f))
        ),
      ),
      (time) => {
        const floor = floorToFloat32(time);
        assertEquals(Math.fround(floor), floor, "a float32");
        assert(floor <= time, `${floor} > ${time}`);
        assert(nextFloat32Up(floor) > time, `a float32 between ${floor} and ${time}`);
      },
    ),
    { numRuns: 20_000 },
  );
});

const KEY = Math.fround(1.3);
/** Joint 1 jumps from 0 to 5 at KEY (a STEP key at a float32 time). */
const step: Clip = {
  name: "step",
  animation: 0,
  start: 0,
  duration: 2,
  channels: [{
    joint: 1,
    path: "translation",
    interpolation: "STEP",
    times: Float32Array.of(0, KEY),
    values: Float32Array.of(0, 0, 0, 5, 5, 5),
    node: 1,
  }],
};
/** Times before the key that float32 rounds to it, the key, and just after. */
const TIMES: [number, number][] = [
  [KEY - 2.4e-8, 0],
  [KEY - 1e-12, 0],
  [KEY, 5],
  [KEY + 1e-12, 5],
];

for (const build of BUILDS) {
  Deno.test(`${build}: a STEP key switches exactly at its time, on layer 0 and on a layer`, () => {
    const scene = createScene(build, 1);
    const [eid] = scene.entities;
    const animate = createAnimationPipeline();
    const tx = poseIndex(1, PoseField.TX);
    for (const [time, value] of TIMES) {
      playClip(scene.world, eid, step, { time });
      animate(scene.world, 0);
      assertEquals(getPose(scene.world, eid)[tx], value, `layer 0 at key ${time - KEY}`);
    }
    playClip(scene.world, eid, { ...step, name: "still", channels: [] });
    const layer = addLayer(scene.world, eid, step);
    setLayerWeight(scene.world, eid, layer, 1);
    for (const [time, value] of TIMES) {
      setLayerTime(scene.world, eid, layer, time);
      animate(scene.world, 0);
      assertEquals(getPose(scene.world, eid)[tx], value, `layer ${layer} at key ${time - KEY}`);
    }
  });
}

Deno.test("ten hours into a session, 1/60 s frames keep the times float64 sums", () => {
  const scene = createScene("scalar", 1);
  const [eid] = scene.entities;
  const start = 10 * 3600, dt = 1 / 60, frames = 60 * 60;
  playClip(scene.world, eid, step, { time: start });
  const layer = addLayer(scene.world, eid, step, { weight: 0 });
  setLayerTime(scene.world, eid, layer, start);
  const store = scene.components.ClipPlayer.time;
  let expected = start;
  for (let f = 0; f < frames; f++) {
    sampleClipsSystem(scene.world, dt);
    expected += dt;
  }
  assertEquals(store[eid], expected);
  assertEquals(getLayers(scene.world, eid)[layer].time, expected);
  // In float32 each frame would round to a multiple of 2^-8 s (the ulp near 36,000 s).
  assert(Math.fround(expected) !== expected);
});
