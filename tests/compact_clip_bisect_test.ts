/**
 * Bisected rotation tracks (`TRACK_BISECT`): a rotation turning by large
 * angles between keys keeps only its keys, and every build samples it
 * within the tolerance of slerp, where plain nlerp between the keys would
 * be off by a tenth of a radian.
 */
import "../scalar.ts";
import fc from "fast-check";
import { assert, assertEquals, assertLessOrEqual } from "@std/assert";
import { createClip, SkeletonAsset, type SkeletonDefinition } from "../mod.ts";
import { compactClip } from "../clips.ts";
import { Core } from "../kernels.ts";
import { reduceChannel } from "../animation/_reduce.ts";
import { exactPose, poseDistance } from "../animation/_clip_error.ts";
import { isBuildSupported } from "../simd/wasm/_core.ts";
import { poseFloats } from "../simd/memory/layout.ts";
import { fcParams } from "./_arbitrary.ts";
import { random, randomQuaternion } from "./_scene.ts";
import { sampleOnCore } from "./_compact.ts";

const BUILDS = (["scalar", "simd", "relaxed-simd"] as const).filter(isBuildSupported);

/** Two joints one unit apart, the second animated. */
const definition: SkeletonDefinition = (() => {
  const restPose = new Float32Array(poseFloats(2));
  for (let j = 0; j < 2; j++) {
    restPose[(3 + 3) * 4 + j] = 1;
    for (let c = 0; c < 3; c++) restPose[(7 + c) * 4 + j] = 1;
  }
  restPose[0 * 4 + 1] = 1;
  return {
    names: ["root", "tip"],
    parents: Int16Array.of(-1, 0),
    restPose,
    inverseBind: new Float32Array(24).map((_, i) => (i % 12) % 5 === 0 ? 1 : 0),
  };
})();

/** A rotation channel on joint 1 whose neighbouring keys turn by 90° to 170°. */
function wideTurns(next: () => number, keys: number) {
  const values = new Float32Array(keys * 4);
  let q = randomQuaternion(next);
  for (let k = 0; k < keys; k++) {
    values.set(q, k * 4);
    // The next key: q turned by 90°..170° about a random axis.
    const angle = (Math.PI / 2 + next() * (Math.PI * 0.94 - Math.PI / 2)) / 2;
    const axis = [next() - 0.5, next() - 0.5, next() - 0.5];
    const l = Math.hypot(...axis);
    const [x, y, z] = axis.map((c) => (c / l) * Math.sin(angle)), w = Math.cos(angle);
    q = [
      w * q[0] + x * q[3] + y * q[2] - z * q[1],
      w * q[1] - x * q[2] + y * q[3] + z * q[0],
      w * q[2] + x * q[1] - y * q[0] + z * q[3],
      w * q[3] - x * q[0] - y * q[1] - z * q[2],
    ];
  }
  const times = Float32Array.from({ length: keys }, (_, k) => k * (0.1 + next() * 0.01));
  return createClip({
    name: "wide",
    channels: [{ joint: 1, path: "rotation", interpolation: "LINEAR", times, values }],
  });
}

Deno.test("bisected tracks: wide turns keep only their keys and follow slerp on every build", () => {
  fc.assert(
    fc.property(fc.nat(), fc.integer({ min: 2, max: 9 }), (seed, keys) => {
      const next = random(seed + 1);
      const clip = wideTurns(next, keys);
      const times = [
        ...Array.from({ length: 120 }, (_, i) => (i / 119) * clip.duration),
        ...Array.from({ length: 60 }, () => next() * clip.duration),
      ];
      const rest = new SkeletonAsset(definition, Core.create("scalar")).restPose;
      for (const build of BUILDS) {
        const compact = compactClip(clip, new SkeletonAsset(definition, Core.create(build)));
        const poses = sampleOnCore(build, definition, clip, times);
        assertEquals(compact.keyCount, keys, `${build}: the file's keys, no subdivision`);
        assertLessOrEqual(compact.maxError, compact.tolerance);
        poses.forEach((pose, i) => {
          const error = poseDistance(
            pose,
            exactPose(clip, rest, times[i]),
            definition.parents as Int16Array,
            compact.virtualDistance,
          );
          // Twice the budget: the build measures at two times of each piece, not here.
          assertLessOrEqual(error, 2 * compact.tolerance + 1e-6, `${build} t=${times[i]}`);
        });
      }
    }),
    fcParams(20),
  );
});

Deno.test("bisected tracks: the reduction bisects only where it saves keys", () => {
  const next = random(3);
  const wide = wideTurns(next, 6).channels[0];
  assert(
    "keys" in reduceChannel(wide, 1e-5) &&
      (reduceChannel(wide, 1e-5) as { keys: { bisect: boolean } }).keys.bisect,
  );
  // Small turns between keys: plain nlerp needs no more keys than bisection.
  const values = new Float32Array(24);
  for (let k = 0; k < 6; k++) {
    const a = k * 0.01;
    values.set([Math.sin(a), 0, 0, Math.cos(a)], k * 4);
  }
  const narrow = reduceChannel(
    createClip({
      name: "narrow",
      channels: [{
        joint: 0,
        path: "rotation",
        interpolation: "LINEAR",
        times: Float32Array.of(0, 1, 2, 3, 4, 5.5),
        values,
      }],
    }).channels[0],
    1e-7,
  );
  assert("keys" in narrow && !narrow.keys.bisect);
});

Deno.test("bisected tracks: half turns late in a clip keep their keys, and the clip follows slerp", () => {
  // Float32 times past 100 s are 8 µs apart: at a candidate between two
  // keys the played time is off by up to half that, a few millionths of a
  // half turn, about the share of the tolerance. Keys are kept at the
  // channel's keys, not every other candidate.
  const keys = 40;
  const times = Float32Array.from({ length: keys }, (_, k) => 100 + k);
  const values = new Float32Array(keys * 4);
  for (let k = 0; k < keys; k++) values.set(k % 2 ? [0, 0, 1, 0] : [0, 0, 0, 1], k * 4);
  const clip = createClip({
    name: "half turns",
    channels: [{ joint: 1, path: "rotation", interpolation: "LINEAR", times, values }],
  });
  const reduced = reduceChannel(clip.channels[0], 1e-6);
  assert("keys" in reduced && reduced.keys.bisect);
  assertEquals([...reduced.keys.times], [...times]);
  const compact = compactClip(clip, new SkeletonAsset(definition, Core.create("scalar")));
  assertEquals(compact.keyCount, keys);
  assertLessOrEqual(compact.maxError, compact.tolerance);
  const next = random(5);
  const sampled = Array.from({ length: 200 }, () => 100 + next() * (keys - 1));
  const rest = new SkeletonAsset(definition, Core.create("scalar")).restPose;
  sampleOnCore("scalar", definition, clip, sampled).forEach((pose, i) => {
    const error = poseDistance(
      pose,
      exactPose(clip, rest, sampled[i]),
      definition.parents as Int16Array,
      compact.virtualDistance,
    );
    assertLessOrEqual(error, 2 * compact.tolerance + 1e-6, `t=${sampled[i]}`);
  });
});
