/**
 * Retargeting's refusals: each bad map, skeleton, option or clip throws a
 * `RetargetError` naming the argument (and the joint, where one is at
 * fault), before anything is built; what a hostile clip or skeleton would
 * make the build allocate is checked against `maxValues` first.
 */

import { assert, assertEquals, assertThrows } from "@std/assert";
import { type Clip, ClipError, createClip, type SkeletonDefinition } from "../mod.ts";
import { retargetClip, RetargetError, type RetargetOptions } from "../retarget.ts";
import { PoseField, poseFloats, poseIndex } from "../kernels.ts";
import { random } from "./_scene.ts";
import { randomSkeleton } from "./_compact.ts";

/** A chain of `n` joints named `prefix + j`, each 1 above its parent (the root 1 above the ground). */
function chain(n: number, prefix = "", names?: string[]): SkeletonDefinition {
  const restPose = new Float32Array(poseFloats(n));
  for (let j = 0; j < n; j++) {
    restPose[poseIndex(j, PoseField.TY)] = 1;
    restPose[poseIndex(j, PoseField.QW)] = 1;
    for (const f of [PoseField.SX, PoseField.SY, PoseField.SZ]) restPose[poseIndex(j, f)] = 1;
  }
  return {
    names: names ?? Array.from({ length: n }, (_, j) => `${prefix}j${j}`),
    parents: Int16Array.from({ length: n }, (_, j) => j - 1),
    restPose,
    inverseBind: new Float32Array(n * 12),
  };
}

/** A clip turning joint `joint` about +y over 1 s. */
function turning(joint = 1): Clip {
  const s = Math.SQRT1_2;
  return createClip({
    name: "turn",
    channels: [{
      joint,
      path: "rotation",
      interpolation: "LINEAR",
      times: Float32Array.of(0, 1),
      values: Float32Array.of(0, 0, 0, 1, 0, s, 0, s),
    }],
  });
}

/** Asserts `retargetClip(clip, options)` throws a RetargetError on `argument` (and `joint`). */
function refuses(clip: Clip, options: RetargetOptions, argument: string, joint?: string) {
  const error = assertThrows(() => retargetClip(clip, options), RetargetError);
  assertEquals(error.argument, argument, error.message);
  if (joint !== undefined) assertEquals(error.joint, joint, error.message);
  assert(error.message.startsWith(argument), error.message);
}

const source = chain(3), target = chain(3, "rig:");

Deno.test("retarget: maps by name, then without the prefix; a table overrides both", () => {
  const moved = retargetClip(turning(1), { source, target });
  assertEquals(moved.channels.filter((c) => c.path === "rotation").map((c) => c.joint), [0, 1, 2]);
  // j1 unmapped by the table: no channel, its rest pose.
  const unmapped = retargetClip(turning(1), { source, target, jointMap: { "rig:j1": null } });
  assertEquals(unmapped.channels.filter((c) => c.path === "rotation").map((c) => c.joint), [0, 2]);
  // rig:j2 driven by j1 instead, under a rig:j1 at rest.
  const swapped = retargetClip(turning(1), {
    source,
    target,
    jointMap: { "rig:j1": null, "rig:j2": "j1" },
  });
  const j2 = swapped.channels.find((c) => c.joint === 2 && c.path === "rotation")!;
  assert(Math.abs(j2.values[j2.values.length - 3]) > 0.7, "rig:j2 turns as j1 does");
});

Deno.test("retarget: bad joint maps, hips and overrides name the option and joint", () => {
  const clip = turning();
  refuses(clip, { source, target, jointMap: { "rig:nope": "j1" } }, "jointMap", "rig:nope");
  refuses(clip, { source, target, jointMap: { "rig:j1": "nope" } }, "jointMap", "rig:j1");
  const twins = chain(3, "", ["a", "twin", "twin"]);
  refuses(clip, { source: twins, target, jointMap: { "rig:j1": "twin" } }, "jointMap", "rig:j1");
  refuses(clip, { source, target: chain(3, "", ["x", "y", "z"]) }, "jointMap");
  refuses(clip, { source, target, jointMap: 5 as never }, "jointMap");
  refuses(clip, { source, target, hips: "rig:nope" }, "hips", "rig:nope");
  refuses(clip, { source, target, jointMap: { "rig:j0": null }, hips: "rig:j0" }, "hips", "rig:j0");
  refuses(clip, { source, target, overrides: { "rig:nope": {} } }, "overrides", "rig:nope");
  refuses(
    clip,
    { source, target, overrides: { "rig:j1": { rotation: "x" as never } } },
    "overrides",
    "rig:j1",
  );
  refuses(
    clip,
    { source, target, overrides: { "rig:j1": { translation: "x" as never } } },
    "overrides",
    "rig:j1",
  );
  refuses(
    clip,
    { source, target, overrides: { "rig:j1": { offset: [0, 0, 0, 0] } } },
    "overrides",
    "rig:j1",
  );
  refuses(
    clip,
    { source, target, overrides: { "rig:j1": { offset: [NaN, 0, 0, 1] } } },
    "overrides",
    "rig:j1",
  );
  refuses(
    clip,
    {
      source,
      target,
      jointMap: { "rig:j2": null },
      overrides: { "rig:j2": { rotation: "local" } },
    },
    "overrides",
    "rig:j2",
  );
  refuses(clip, { source, target, facing: { source: [0, 1, 0] } }, "facing.source");
  refuses(clip, { source, target, facing: { target: [NaN, 0, 1] } }, "facing.target");
  refuses(clip, { source, target, rootScale: 0 }, "rootScale");
  refuses(clip, { source, target, rootScale: Infinity }, "rootScale");
  refuses(clip, { source, target, maxValues: -1 }, "maxValues");
  refuses(clip, null as never, "options");
});

Deno.test("retarget: skeletons that are not one, and clips of another skeleton, are refused", () => {
  const clip = turning();
  const bad = (change: (s: SkeletonDefinition) => SkeletonDefinition) => change(chain(3));
  refuses(
    clip,
    { source: bad((s) => ({ ...s, parents: Int16Array.of(-1, 2, 1) })), target },
    "source",
  );
  refuses(clip, { source, target: bad((s) => ({ ...s, names: ["a"] })) }, "target");
  refuses(
    clip,
    { source, target: bad((s) => ({ ...s, restPose: new Float32Array(3) })) },
    "target",
  );
  refuses(clip, { source, target: bad((s) => ({ ...s, parents: new Int16Array(0) })) }, "target");
  const infinite = chain(3);
  infinite.restPose[poseIndex(2, PoseField.TX)] = Infinity;
  refuses(clip, { source: infinite, target }, "source", "j2");
  const flat = chain(3);
  flat.restPose[poseIndex(1, PoseField.QW)] = 0;
  refuses(clip, { source, target: { ...flat, names: target.names } }, "target", "rig:j1");
  // The clip animates joint 5: it was made for another skeleton.
  refuses(turning(5), { source, target }, "clip");
  // A clip that does not validate throws its ClipError.
  assertThrows(() => retargetClip({ ...clip, duration: NaN }, { source, target }), ClipError);
});

Deno.test("retarget: results beyond the clip limits name the joint", () => {
  // A root scale that throws the hips past 1e18.
  const far = createClip({
    name: "far",
    channels: [{
      joint: 0,
      path: "translation",
      interpolation: "LINEAR",
      times: Float32Array.of(0, 1),
      values: Float32Array.of(0, 1, 0, 1e17, 1, 0),
    }],
  });
  refuses(far, { source, target, rootScale: 100 }, "clip", "rig:j0");
});

Deno.test("retarget: what a hostile clip or skeleton would allocate is refused before it is", () => {
  // 2,000 joints all mapped × 20,000 key times: 160 million numbers.
  const big = randomSkeleton(2000, random(1));
  const times = Float32Array.from({ length: 20_000 }, (_, k) => k / 30);
  const values = new Float32Array(times.length * 4);
  for (let k = 0; k < times.length; k++) values[k * 4 + 3] = 1;
  const clip = createClip({
    name: "long",
    channels: [{ joint: 0, path: "rotation", interpolation: "LINEAR", times, values }],
  });
  const before = Deno.memoryUsage().rss;
  refuses(clip, { source: big, target: big }, "clip");
  assert(Deno.memoryUsage().rss - before < 200 * 2 ** 20, "the refusal allocated");
  refuses(clip, { source: big, target: big, maxValues: 1000 }, "clip");
  // 10,000 channels keyed once each at its own time: 10,000 poses of 10,000 channels to sample.
  const many = randomSkeleton(10_000, random(2));
  const wide = createClip({
    name: "wide",
    channels: Array.from({ length: 10_000 }, (_, j) => ({
      joint: j,
      path: "translation" as const,
      interpolation: "LINEAR" as const,
      times: Float32Array.of(j / 1000),
      values: new Float32Array(3),
    })),
  });
  refuses(wide, { source: many, target }, "clip");
  // Within a raised limit it builds.
  const small = retargetClip(clip, { source: chain(3), target, maxValues: 10_000_000 });
  assertEquals(small.channels[0].times.length, 20_000);
});
