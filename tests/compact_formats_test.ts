/**
 * Key formats and sharing of compact clips (`animation/_reduce.ts`,
 * `animation/_clip_image.ts`): a rotation whose 20-bit smallest-three
 * fields would leave its tolerance keeps wide ones (12 bytes a key, about
 * f32 precision) rather than floats, and lanes with such tracks keyed at
 * shared times still form (wide) synchronous blocks; tracks whose values
 * are equal byte for byte share one copy. All sample as the scalar
 * reference does, and as exactly as their format promises.
 */
import "../scalar.ts";
import { assert, assertEquals, assertLessOrEqual } from "@std/assert";
import { type Clip, createClip, SkeletonAsset } from "../mod.ts";
import { compactClip } from "../clips.ts";
import { Core } from "../kernels.ts";
import { coreMemory } from "../simd/memory/_instance.ts";
import {
  SYNC_BYTES,
  SYNC_MASK_SHIFT,
  TRACK_BYTES,
  TRACK_SMALLEST_THREE_WIDE,
} from "../simd/wasm/assembly/abi.ts";
import { random, randomQuaternion } from "./_scene.ts";
import {
  assertSimdMatchesScalar,
  randomSkeleton,
  sampleOnCore,
  SIMD_BUILDS,
  timeSequence,
} from "./_compact.ts";
import { compactClipInternals } from "../animation/_asset_internals.ts";

/** Per track record of `compact` (built in `core`): its flags and values offset. */
function trackRecords(compact: ReturnType<typeof compactClip>, core: Core) {
  const u32 = coreMemory(core).views().u32;
  const at = compactClipInternals(compact).byteOffset >> 2;
  const count = u32[at + 1],
    records = (compactClipInternals(compact).byteOffset + u32[at + 3]) >> 2;
  return Array.from({ length: count }, (_, i) => ({
    flags: u32[records + (i * TRACK_BYTES) / 4 + 3],
    values: u32[records + (i * TRACK_BYTES) / 4 + 1],
  }));
}

/** Rotation channels on joints `joints`, keyed at `times`, from `values(joint, k)`. */
function rotationClip(
  joints: number[],
  times: Float32Array,
  values: (joint: number, k: number) => number[],
): Clip {
  return createClip({
    name: "rotations",
    channels: joints.map((joint) => ({
      joint,
      path: "rotation" as const,
      interpolation: "LINEAR" as const,
      times,
      values: Float32Array.from([...times].flatMap((_, k) => values(joint, k))),
    })),
  });
}

Deno.test("compact clips: rotations too fine for 20-bit fields keep wide smallest-three keys, exact at their keys", () => {
  const next = random(11);
  const definition = randomSkeleton(6, next);
  const times = Float32Array.from({ length: 9 }, (_, k) => k * 0.25);
  const keys = new Map<string, number[]>();
  const clip = rotationClip([0, 1, 2, 3, 4, 5], times, (joint, k) => {
    const q = randomQuaternion(next);
    keys.set(`${joint},${k}`, q);
    return q;
  });
  // A tolerance at which 20-bit fields (errors up to 7e-7) leave most of these tracks' budget.
  const options = { tolerance: 3e-6 };
  const core = Core.create("scalar");
  const compact = compactClip(clip, new SkeletonAsset(definition, core), options);
  assertEquals(compact.keyCount, 6 * times.length);
  const records = trackRecords(compact, core);
  const lanes = new Int16Array(
    coreMemory(core).views().u8.slice(
      compactClipInternals(compact).byteOffset +
        coreMemory(core).views().u32[(compactClipInternals(compact).byteOffset >> 2) + 2],
    ).buffer,
    0,
    compact.groupCount * 12,
  );
  // Joints whose rotation track keeps wide keys.
  const wide = [0, 1, 2, 3, 4, 5].filter((j) =>
    (records[lanes[((j >> 2) * 3 + 1) * 4 + (j & 3)]].flags & 15) === TRACK_SMALLEST_THREE_WIDE
  );
  assert(wide.length >= 3, `only joints ${wide} keep wide keys`);
  for (const build of ["scalar", ...SIMD_BUILDS] as const) {
    const poses = sampleOnCore(build, definition, clip, [...times], options);
    poses.forEach((pose, k) => {
      for (const joint of wide) {
        const q = keys.get(`${joint},${k}`)!;
        const lane = (joint >> 2) * 40 + (joint & 3) + 12;
        // Same hemisphere as the key (the build may negate a key to follow its neighbour).
        const sign = Math.sign(q.reduce((dot, c, i) => dot + c * pose[lane + i * 4], 0));
        for (let c = 0; c < 4; c++) {
          assertLessOrEqual(
            Math.abs(sign * pose[lane + c * 4] - q[c]),
            3e-7,
            `${build}: joint ${joint} key ${k} component ${c}`,
          );
        }
      }
    });
  }
  assertSimdMatchesScalar(definition, clip, timeSequence(next, 2), options);
});

Deno.test("compact clips: tracks with equal values share one copy of them", () => {
  const next = random(12);
  const definition = randomSkeleton(8, next);
  const times = Float32Array.from({ length: 16 }, (_, k) => k * 0.1);
  const shared = [...times].map(() => randomQuaternion(next));
  const own = [...times].map(() => [0, 1, 2, 3, 4, 5, 6, 7].map(() => randomQuaternion(next)));
  // Joints 1, 3, 5 and 6 turn alike; the others each on their own.
  const alike = new Set([1, 3, 5, 6]);
  const joints = [0, 1, 2, 3, 4, 5, 6, 7];
  const clip = rotationClip(joints, times, (j, k) => (alike.has(j) ? shared[k] : own[k][j]));
  const apart = rotationClip(joints, times, (j, k) => own[k][j]);
  const core = Core.create("scalar");
  const skeleton = new SkeletonAsset(definition, core);
  // Twice the default tolerance: at the default, the first attempt's half
  // share leaves some joints' random turns too little room for 8-byte keys
  // (a joint's lever sets its share), and equal channels of joints with
  // different levers would take different formats.
  const tolerance = 2 * compactClip(rotationClip([0], times, () => shared[0]), skeleton).tolerance;
  const [together, separate] = [clip, apart].map((c) => compactClip(c, skeleton, { tolerance }));
  const records = trackRecords(together, core);
  assertEquals(records.length, 8);
  const offsets = joints.map((j) => records[j].values);
  assertEquals(new Set([1, 3, 5, 6].map((j) => offsets[j])).size, 1);
  assertEquals(new Set(offsets).size, 5);
  // Three of the four alike tracks store nothing of their own.
  const keyBytes = (separate.bytes - together.bytes) / 3;
  assert(keyBytes >= 16 * 8, `the shared tracks saved ${keyBytes} bytes each`);
  const sampleTimes = timeSequence(next, 1.5);
  const poses = sampleOnCore("scalar", definition, clip, sampleTimes, { tolerance });
  for (const pose of poses) {
    const lane = (j: number, c: number) => pose[(j >> 2) * 40 + (j & 3) + 12 + c * 4];
    for (const j of [3, 5, 6]) {
      for (let c = 0; c < 4; c++) assertEquals(lane(j, c), lane(1, c));
    }
  }
  assertSimdMatchesScalar(definition, clip, sampleTimes, { tolerance });
});

Deno.test("compact clips: rotations with wide keys at shared times form wide blocks, exact at their keys", () => {
  const next = random(21);
  const definition = randomSkeleton(8, next);
  const times = Float32Array.from({ length: 12 }, (_, k) => k * 0.1);
  // Slow turns (no bisection), every joint keyed at the same times.
  const axes = [0, 1, 2, 3, 4, 5, 6, 7].map(() => {
    const axis = [next() - 0.5, next() - 0.5, next() - 0.5], n = Math.hypot(...axis);
    return axis.map((v) => v / n);
  });
  const key = (joint: number, k: number) => {
    const half = 0.004 * k + 0.002 * Math.sin(k * 0.7 + joint);
    return [...axes[joint].map((v) => v * Math.sin(half)), Math.cos(half)];
  };
  const clip = rotationClip([0, 1, 2, 3, 4, 5, 6, 7], times, key);
  const options = { tolerance: 3e-6 };
  const core = Core.create("scalar");
  const compact = compactClip(clip, new SkeletonAsset(definition, core), options);
  const u32 = coreMemory(core).views().u32, at = compactClipInternals(compact).byteOffset >> 2;
  const records = (compactClipInternals(compact).byteOffset + u32[at + 5]) >> 2;
  const flags = Array.from(
    { length: u32[at + 4] },
    (_, b) => u32[records + (b * SYNC_BYTES) / 4 + 3],
  );
  // Two full blocks of wide keys, no lane of its own.
  assertEquals(u32[at + 1], 0);
  assertEquals(flags.map((f) => [f & 15, (f >>> SYNC_MASK_SHIFT) & 15]), [
    [TRACK_SMALLEST_THREE_WIDE, 15],
    [TRACK_SMALLEST_THREE_WIDE, 15],
  ]);
  // Lanes whose own track kept 20-bit keys keep their error (up to 6.7e-7) in a wide block.
  for (const build of ["scalar", ...SIMD_BUILDS] as const) {
    sampleOnCore(build, definition, clip, [...times], options).forEach((pose, k) => {
      for (let joint = 0; joint < 8; joint++) {
        const q = key(joint, k), lane = (joint >> 2) * 40 + (joint & 3) + 12;
        for (let c = 0; c < 4; c++) {
          assertLessOrEqual(
            Math.abs(pose[lane + c * 4] - q[c]),
            8e-7,
            `${build}: joint ${joint} key ${k}`,
          );
        }
      }
    });
  }
  assertSimdMatchesScalar(definition, clip, timeSequence(next, 1.2), options);
});
