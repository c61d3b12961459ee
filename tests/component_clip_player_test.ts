/**
 * The ClipPlayer component: playback arguments checked at the call, the
 * fade weight within [0, 1], the store's time and speed as the truth, the
 * clip budget, and clip memory given back.
 */
import "../scalar.ts";
import { assertEquals, assertThrows } from "@std/assert";
import {
  type Clip,
  ComponentError,
  createAnimation,
  createAnimationPipeline,
  crossFadeTo,
  disposeAnimation,
  getPlayback,
  getPose,
  playClip,
  sampleClipsSystem,
} from "../mod.ts";
import { clipBytes, disposeClip, setClipBudget } from "../clips.ts";
import { createScene } from "./_scene.ts";

function spin(name: string, keys = 2, joint = 1): Clip {
  const times = Float32Array.from({ length: keys }, (_, k) => k / (keys - 1));
  const values = new Float32Array(keys * 4);
  for (let k = 0; k < keys; k++) {
    const angle = (k % 2) * Math.PI * 0.999; // flips half a turn per key
    values.set([0, 0, Math.sin(angle / 2), Math.cos(angle / 2)], k * 4);
  }
  return {
    name,
    animation: 0,
    start: 0,
    duration: 1,
    channels: [{ joint, path: "rotation", interpolation: "LINEAR", times, values, node: joint }],
  };
}

Deno.test("playback arguments are checked at the call", () => {
  const { world, entities } = createScene("scalar", 1);
  const [eid] = entities;
  playClip(world, eid, spin("a"));
  for (const duration of [NaN, -1, Infinity, "1" as unknown as number]) {
    assertThrows(() => crossFadeTo(world, eid, spin("b"), duration), RangeError, "fade duration");
  }
  for (const delta of [-1 / 60, NaN, Infinity, undefined as unknown as number]) {
    assertThrows(() => sampleClipsSystem(world, delta), RangeError, "deltaSeconds");
  }
  assertThrows(() => createAnimationPipeline()(world, -1), RangeError, "deltaSeconds");
  assertThrows(() => playClip(world, eid, spin("c"), { time: NaN }), RangeError, "time");
});

Deno.test("the fade weight stays within [0, 1] whatever the frame times", () => {
  const { world, entities } = createScene("scalar", 1);
  const [eid] = entities;
  playClip(world, eid, spin("a"));
  crossFadeTo(world, eid, spin("b"), 0.5);
  for (const delta of [0, 0.01, 0.2, 5, 0]) {
    sampleClipsSystem(world, delta);
    const { fade } = getPlayback(world, eid);
    assertEquals(fade >= 0 && fade <= 1, true, `fade ${fade}`);
  }
  assertEquals(getPlayback(world, eid).clip.name, "b");
});

Deno.test("ClipPlayer.time and speed are the playing clip's, and checked every frame", () => {
  const { world, entities, components } = createScene("scalar", 1);
  const [eid] = entities;
  const { ClipPlayer } = components;
  playClip(world, eid, spin("a"), { speed: 2 });
  sampleClipsSystem(world, 0.1);
  assertEquals(ClipPlayer.time[eid], 0.2);
  ClipPlayer.time[eid] = 0.5; // seek
  ClipPlayer.speed[eid] = 0;
  sampleClipsSystem(world, 0.1);
  assertEquals(getPlayback(world, eid).time, 0.5);
  const pose = getPose(world, eid).slice();
  ClipPlayer.time[eid] = NaN;
  createAnimation(world, { faults: "throw" });
  assertThrows(
    () => sampleClipsSystem(world, 0.1),
    RangeError,
    `entity ${eid}: ClipPlayer: time is NaN`,
  );
  assertEquals(getPose(world, eid), pose);
});

Deno.test("a clip whose frames pass the core's clip budget is refused before it is built", () => {
  const { world, entities, core } = createScene("scalar", 1, { joints: 30 });
  const [eid] = entities;
  setClipBudget(core, 2 * 1024);
  const allocated = core.allocatedBytes;
  // 300 keys flipping half a turn: 300 bisected keys, about 5 KB.
  const error = assertThrows(() => playClip(world, eid, spin("flips", 300)), RangeError);
  for (const part of ['clip "flips"', "skeleton of 30 joints", "setClipBudget"]) {
    assertEquals(error.message.includes(part), true, error.message);
  }
  assertEquals(clipBytes(core), 0);
  assertEquals(core.allocatedBytes, allocated);
  assertThrows(() => getPlayback(world, eid), ComponentError, "has no ClipPlayer");
  setClipBudget(core, 64 << 20);
  playClip(world, eid, spin("flips", 300));
  assertEquals(clipBytes(core) > 2 * 1024, true);
});

Deno.test("disposeClip gives clip memory back once no player uses them", () => {
  const scene = createScene("simd", 2);
  const [a, b] = scene.entities;
  const clip = spin("a", 5);
  playClip(scene.world, a, clip);
  playClip(scene.world, b, clip);
  const baked = clipBytes(scene.core);
  assertEquals(baked > 0, true);
  disposeClip(clip);
  assertEquals(clipBytes(scene.core), baked, "still played: deferred");
  const other = spin("other");
  playClip(scene.world, a, other);
  disposeAnimation(scene.world);
  assertEquals(clipBytes(scene.core) < baked, true, "the disposed clip's memory is gone");
  disposeClip(other);
  assertEquals(clipBytes(scene.core), 0);
});
