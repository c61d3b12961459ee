/**
 * A compact clip's build is bounded in work as in bytes: the issue's
 * hostile inputs (a long chain below a short clip, a short clip on a very
 * long chain, a million keys on one joint, 200,000 keys on each of 11
 * joints) either build within their work limit or are refused with a
 * `ClipWorkError` before anything is allocated. Work is counted
 * (`buildCounters` in `animation/_build_work.ts`), never timed: every step
 * of the build counts its work before it runs, so a count within the limit
 * bounds the time.
 */
import "../scalar.ts";
import { assert, assertEquals, assertInstanceOf, assertLessOrEqual } from "@std/assert";
import { type Clip, createClip, SkeletonAsset } from "../mod.ts";
import { clipBytes, ClipWorkError, compactClip } from "../clips.ts";
import { Core } from "../kernels.ts";
import { PoseField, poseFloats, poseIndex } from "../simd/memory/layout.ts";
import { buildCounters, WORK_FLOOR, WORK_PER_BYTE } from "../animation/_build_work.ts";
import { EXACT_REACH_STEPS, skeletonGeometry } from "../animation/_skeleton_geometry.ts";

/** A chain of `joints` joints, each 1 cm above its parent. */
function chain(joints: number, core: Core): SkeletonAsset {
  const restPose = new Float32Array(poseFloats(joints));
  for (let j = 0; j < joints; j++) {
    restPose[poseIndex(j, PoseField.QW)] = 1;
    for (const f of [PoseField.SX, PoseField.SY, PoseField.SZ]) restPose[poseIndex(j, f)] = 1;
    if (j > 0) restPose[poseIndex(j, PoseField.TY)] = 0.01;
  }
  const parents = Int16Array.from({ length: joints }, (_, j) => j - 1);
  // Inverse binds do not matter to a clip's build: identity.
  const inverseBind = new Float32Array(joints * 12);
  for (let j = 0; j < joints; j++) inverseBind.set([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0], j * 12);
  const names = Array.from({ length: joints }, (_, j) => `j${j}`);
  return new SkeletonAsset({ names, parents, restPose, inverseBind }, core);
}

/** Rotations about x turning by `step` radians per key plus seeded noise, at 30 keys a second. */
function turning(name: string, joints: number[], keys: number, step: number, seed = 1): Clip {
  let state = seed;
  const noise = () => ((state = (Math.imul(state, 1103515245) + 12345) >>> 0) / 2 ** 32 - 0.5);
  return createClip({
    name,
    channels: joints.map((joint) => {
      const values = new Float32Array(keys * 4);
      for (let k = 0; k < keys; k++) {
        const angle = k * step + noise() * 0.02;
        values[k * 4] = Math.sin(angle / 2);
        values[k * 4 + 3] = Math.cos(angle / 2);
      }
      return {
        joint,
        path: "rotation" as const,
        interpolation: "LINEAR" as const,
        times: Float32Array.from({ length: keys }, (_, k) => k / 30),
        values,
      };
    }),
  });
}

function keyBytes(clip: Clip): number {
  return clip.channels.reduce((n, c) => n + c.times.byteLength + c.values.byteLength, 0);
}

/**
 * Builds `clip` for `skeleton`: it completes within its work limit, or
 * throws a `ClipWorkError` having spent at most that and allocated
 * nothing. Returns which.
 */
function buildWithin(clip: Clip, skeleton: SkeletonAsset): "built" | "refused" {
  const limit = WORK_FLOOR + WORK_PER_BYTE * keyBytes(clip);
  const work = buildCounters.work, builds = buildCounters.builds;
  const bytes = clipBytes(skeleton.core);
  try {
    const compact = compactClip(clip, skeleton);
    assertEquals(buildCounters.builds, builds + 1);
    assert(compact.bytes > 0);
    return "built";
  } catch (error) {
    assertInstanceOf(error, ClipWorkError);
    assertEquals(error.limit, limit);
    assertEquals(error.clip, clip.name);
    assertEquals(clipBytes(skeleton.core), bytes, "a refused build allocates nothing");
    return "refused";
  } finally {
    assertLessOrEqual(buildCounters.work - work, limit, `${clip.name}: work past its limit`);
  }
}

Deno.test("compact build: an 8,000-joint chain below a 10-key root animation stays within its work", () => {
  const core = Core.create("scalar");
  const outcome = buildWithin(turning("root", [0], 10, 0.3), chain(8000, core));
  assertEquals(outcome, "refused");
});

Deno.test("compact build: a 2 KB clip on a 16,000-joint chain stays within its work", () => {
  const core = Core.create("scalar");
  const clip = turning("mid", [8000], 100, 0.05);
  assertEquals(keyBytes(clip), 2000);
  assertEquals(buildWithin(clip, chain(16000, core)), "refused");
});

Deno.test("compact build: a million keys on one joint stay within their work", () => {
  const core = Core.create("scalar");
  buildWithin(turning("million", [1], 1_000_000, 0.01), chain(2, core));
});

Deno.test("compact build: 200,000 keys on each of 11 joints stay within their work", () => {
  const core = Core.create("scalar");
  const joints = Array.from({ length: 11 }, (_, j) => j);
  buildWithin(turning("eleven", joints, 200_000, 0.01), chain(11, core));
});

Deno.test("compact build: a skeleton's reach is computed in work linear in its joints", () => {
  // A 30,000-joint chain: exact reaches would walk 450 million ancestors.
  const joints = 30000;
  const parents = Int16Array.from({ length: joints }, (_, j) => j - 1);
  const core = Core.create("scalar");
  const skeleton = chain(joints, core);
  const geometry = skeletonGeometry(parents, skeleton.restPose);
  // The subtree box bounds the reach from above: the chain's root reaches its tip.
  assert(geometry.reach[0] >= (joints - 1) * 0.01 * (1 - 1e-4));
  assert(geometry.reach[joints - 1] === 0);
  assertLessOrEqual(geometry.reachSteps, EXACT_REACH_STEPS);
});
