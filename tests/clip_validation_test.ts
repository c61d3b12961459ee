/**
 * Clip validation: createClip/validateClip refuse every malformed clip with a
 * ClipError naming clip, channel and key; playClip refuses such a hand-made
 * clip before anything changes; the frame delta is checked at the call and
 * the fade weight stays in [0, 1]; baking over the budget is a typed error.
 */

import "../scalar.ts";
import { assert, assertEquals, assertInstanceOf, assertThrows } from "@std/assert";
import {
  type Clip,
  ClipError,
  createAnimationPipeline,
  createClip,
  crossFadeTo,
  getPlayback,
  playClip,
  removeClipPlayer,
  SkeletonAsset,
  validateClip,
} from "../mod.ts";
import { ClipBudgetError, clipBytes, compactClip, disposeClip, setClipBudget } from "../clips.ts";
import { Core } from "../kernels.ts";
import { ComponentError } from "../components/errors.ts";
import { BUILDS } from "./_arbitrary.ts";
import { randomSkeleton, sampleOnCore } from "./_compact.ts";
import { createScene, random } from "./_scene.ts";

type ChannelInit = Parameters<typeof createClip>[0]["channels"][number];

const turn = (overrides: Partial<ChannelInit> = {}): ChannelInit => ({
  joint: 1,
  path: "rotation",
  interpolation: "LINEAR",
  times: new Float32Array([0, 1]),
  values: new Float32Array([0, 0, 0, 1, 0, 0, Math.SQRT1_2, Math.SQRT1_2]),
  ...overrides,
});

function refused(channels: ChannelInit[], channel: number, key: number, text: string): void {
  const e = assertThrows(() => createClip({ name: "bad", channels }), ClipError);
  assertEquals([e.clip, e.channel, e.key], ["bad", channel, key], e.message);
  assert(e.message.includes(text), `"${e.message}" lacks "${text}"`);
  assert(e.message.startsWith(`clip "bad"`), e.message);
}

Deno.test("createClip builds a frozen, validated clip with its duration", () => {
  const clip = createClip({
    name: "turn",
    channels: [turn(), turn({ joint: 2, times: new Float32Array([0.5, 2]) })],
  });
  assertEquals([clip.start, clip.duration, clip.animation], [0, 2, -1]);
  assertEquals(clip.channels[0].node, -1);
  assert(Object.isFrozen(clip) && Object.isFrozen(clip.channels));
  validateClip(clip);
});

Deno.test("keys closer than MIN_KEY_INTERVAL are refused; at it, a clip compacts within its tolerance and samples finite on every build", () => {
  // A fuzzed glTF's keys, 5.8e-39 s apart: compacting its clip threw (the
  // error it measured while sampling was NaN).
  refused([turn({ times: new Float32Array([0, 5.843e-39]) })], 0, 1, "less than 1e-30 s after 0");
  refused(
    [turn({ joint: 2 }), turn({ times: new Float32Array([1e-31, 5e-31]) })],
    1,
    1,
    "less than 1e-30 s after 9.99",
  );
  // At the limit, that file's joint (a turn and a move) beside a channel
  // whose keys last 1.25 s: 5.8e-39 s apart, its compact form's error was
  // 1e4 times its tolerance.
  const brief = new Float32Array([0, 1e-30]);
  const clip = createClip({
    name: "brief",
    channels: [
      turn({ path: "translation", times: brief, values: Float32Array.of(0, 0, 0.05, 0, 0, 0.06) }),
      turn({
        times: brief,
        values: Float32Array.of(-0.7271, 0, 0, -0.6865, -0.6355, 0, 0, -0.7721),
      }),
      turn({
        joint: 2,
        path: "translation",
        times: new Float32Array([0, 1.25]),
        values: new Float32Array(6),
      }),
    ],
  });
  const definition = randomSkeleton(3, random(5));
  const times = [0, 2.5e-31, 5e-31, 7.5e-31, 1e-30, 0.5, 1.25, 0.1, 0];
  for (const build of BUILDS) {
    for (const [i, pose] of sampleOnCore(build, definition, clip, times).entries()) {
      assert(pose.every(Number.isFinite), `${build}: t=${times[i]}`);
    }
  }
  const compact = compactClip(clip, new SkeletonAsset(definition, Core.create("scalar")));
  assert(compact.maxError <= compact.tolerance, `error ${compact.maxError}`);
});

Deno.test("malformed channels are ClipErrors naming clip, channel and key", () => {
  refused([turn({ times: new Float32Array([0, 0]) })], 0, 1, "does not come after 0");
  refused(
    [turn(), turn({ joint: 2, times: new Float32Array([1, 0.5]) })],
    1,
    1,
    "does not come after 1",
  );
  refused([turn({ times: new Float32Array([0, NaN]) })], 0, 1, "time is NaN");
  refused(
    [turn({ times: new Float32Array(0), values: new Float32Array(0) })],
    0,
    -1,
    "has no keys",
  );
  refused([turn({ values: new Float32Array(7) })], 0, -1, "need 8 values (2 elements of 4), got 7");
  refused(
    [turn({ values: new Float32Array([0, 0, 0, 1, 0, 0, Infinity, 1]) })],
    0,
    1,
    "not finite",
  );
  refused(
    [turn({ values: new Float32Array([0, 0, 0, 1, 0, 0, 0, 2]) })],
    0,
    1,
    "not a unit quaternion",
  );
  refused([turn({ path: "weights" as never })], 0, -1, "morph weights are not joint channels");
  refused([turn({ path: "color" as never })], 0, -1, 'path "color"');
  refused([turn({ interpolation: "SMOOTH" as never })], 0, -1, 'unknown interpolation "SMOOTH"');
  refused([turn({ joint: -1 })], 0, -1, "joint must be a whole number");
  refused([turn({ joint: 1.5 })], 0, -1, "joint must be a whole number");
  refused([turn(), turn()], 1, -1, "second rotation channel");
  refused([turn({ times: [0, 1] as unknown as Float32Array })], 0, -1, "Float32Arrays");
  const e = assertThrows(
    () => createClip({ name: "neg", channels: [turn()], duration: -1 }),
    ClipError,
  );
  assertEquals(e.channel, -1);
});

Deno.test("playClip refuses a bad hand-made clip before anything changes", () => {
  const { world, entities } = createScene("scalar", 1);
  const [eid] = entities;
  const bad: Clip = {
    name: "decreasing",
    animation: 0,
    start: 0,
    duration: 1,
    channels: [{ ...turn({ times: new Float32Array([1, 0]) }), node: 1 }],
  };
  const e = assertThrows(() => playClip(world, eid, bad), ClipError);
  assertEquals([e.clip, e.channel, e.key], ["decreasing", 0, 1]);
  assertThrows(() => getPlayback(world, eid), ComponentError, "has no ClipPlayer");
  const good = createClip({ name: "good", channels: [turn()] });
  playClip(world, eid, good);
  assertThrows(() => crossFadeTo(world, eid, bad, 0.5), ClipError);
  assertEquals(getPlayback(world, eid).next, undefined);
});

Deno.test("the frame delta is checked at the call, and the fade weight stays in [0, 1]", () => {
  const { world, entities } = createScene("scalar", 1);
  const [eid] = entities;
  const animate = createAnimationPipeline();
  playClip(world, eid, createClip({ name: "a", channels: [turn()] }));
  for (const delta of [undefined, -1, -1e-9, NaN, Infinity, "0.1"]) {
    const e = assertThrows(() => animate(world, delta as number), RangeError);
    assert(e.message.startsWith("animate: deltaSeconds"), e.message);
  }
  crossFadeTo(world, eid, createClip({ name: "b", channels: [turn({ joint: 2 })] }), 0.02);
  for (const delta of [0, 1e-6, 0.015, 0.015, 5]) {
    animate(world, delta);
    const { fade } = getPlayback(world, eid);
    assert(fade >= 0 && fade <= 1, `fade ${fade}`);
  }
  assertEquals(getPlayback(world, eid).clip.name, "b");
});

Deno.test("a clip over the baking budget is a ClipBudgetError naming clip, skeleton and estimate", () => {
  const { world, entities, core } = createScene("scalar", 1, { joints: 30 });
  const [eid] = entities;
  // 300 half turns keep their 300 keys (about 5 KB): over a 2 KB budget.
  setClipBudget(core, 2 * 1024);
  const times = Float32Array.from({ length: 300 }, (_, k) => k);
  const values = new Float32Array(300 * 4);
  for (let k = 0; k < 300; k++) values.set(k % 2 ? [0, 0, 1, 0] : [0, 0, 0, 1], k * 4);
  const flips = createClip({ name: "flips", channels: [turn({ times, values })] });
  const allocated = core.allocatedBytes;
  const e = assertThrows(() => playClip(world, eid, flips), ClipBudgetError);
  assertInstanceOf(e, RangeError);
  assertEquals([e.clip, e.jointCount], ["flips", 30]);
  assert(e.estimate > 2 * 1024, `estimate ${e.estimate}`);
  assert(e.message.includes(`${e.estimate} bytes`) && e.message.includes("skeleton of 30 joints"));
  assertEquals(core.allocatedBytes, allocated);
  assertEquals(clipBytes(core), 0);
});

Deno.test("a compact clip counts its exact bytes against the budget, before allocating", () => {
  const { world, entities, core, skeleton } = createScene("scalar", 1, { joints: 30 });
  const [eid] = entities;
  const shared = () =>
    createClip({
      name: "shared",
      channels: Array.from({ length: 30 }, (_, joint) => ({
        joint,
        path: "translation" as const,
        interpolation: "LINEAR" as const,
        times: Float32Array.from({ length: 200 }, (_, k) => k / 10),
        values: Float32Array.from({ length: 600 }, (_, i) => (i * 7919 + joint * 31) % 13),
      })),
    });
  const clip = shared();
  playClip(world, eid, clip);
  const bytes = compactClip(clip, skeleton).bytes;
  assert(bytes > 30 * 200 * 4, `${bytes} bytes hold every key time`);
  assertEquals(clipBytes(core), bytes);
  removeClipPlayer(world, eid);
  disposeClip(clip);
  assertEquals(clipBytes(core), 0);
  setClipBudget(core, bytes - 1);
  const allocated = core.allocatedBytes;
  const e = assertThrows(() => playClip(world, eid, shared()), ClipBudgetError);
  assertEquals([e.estimate, e.exceeds, e.available], [bytes, false, bytes - 1]);
  assertEquals(core.allocatedBytes, allocated);
  setClipBudget(core, bytes);
  playClip(world, eid, shared());
  assertEquals(clipBytes(core), bytes);
});
