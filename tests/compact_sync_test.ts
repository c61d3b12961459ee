/**
 * Synchronous blocks of compact clips (`animation/_sync_blocks.ts`): every
 * SIMD build samples them exactly as the scalar reference, on clips whose
 * channels share key times (blocks where they cost no more bytes) and on
 * any clip with blocks forced everywhere; the build lays a group path out
 * as a block holding the group's held lanes too.
 */
import "../scalar.ts";
import fc from "fast-check";
import { assert, assertEquals } from "@std/assert";
import { createClip, SkeletonAsset } from "../mod.ts";
import { compactClip } from "../clips.ts";
import { Core } from "../kernels.ts";
import { coreMemory } from "../simd/memory/_instance.ts";
import { syncPolicy } from "../animation/_sync_blocks.ts";
import { sharedPolicy } from "../animation/_shared_blocks.ts";
import { SYNC_BYTES, SYNC_MASK_SHIFT } from "../simd/wasm/assembly/abi.ts";
import { assertCovering } from "./_arbitrary.ts";
import { random, randomQuaternion } from "./_scene.ts";
import { assertSimdMatchesScalar, randomClip, randomSkeleton, timeSequence } from "./_compact.ts";
import { compactClipInternals } from "../animation/_asset_internals.ts";

/** The lane masks of the sync blocks of `clip`'s compact form for `skeleton`. */
function blockMasks(compact: ReturnType<typeof compactClip>, core: Core): number[] {
  const u32 = coreMemory(core).views().u32;
  const at = compactClipInternals(compact).byteOffset >> 2;
  const count = u32[at + 4],
    records = (compactClipInternals(compact).byteOffset + u32[at + 5]) >> 2;
  return Array.from(
    { length: count },
    (_, b) => (u32[records + (b * SYNC_BYTES) / 4 + 3] >>> SYNC_MASK_SHIFT) & 15,
  );
}

/** Runs `fn` with blocks built wherever a group path has two keyed lanes (`force`). */
function withPolicy<T>(force: boolean, fn: () => T): T {
  const saved = { ...syncPolicy };
  if (force) syncPolicy.byteFactor = syncPolicy.clipFactor = Infinity;
  try {
    return fn();
  } finally {
    Object.assign(syncPolicy, saved);
  }
}

const VARIANTS = [["shared key times", true, false, 1], ["forced", false, true, 10]] as const;
for (const [name, shared, force, least] of VARIANTS) {
  Deno.test(`compact sampling: sync blocks (${name}): every SIMD build equals the scalar reference`, () => {
    let blocks = 0;
    assertCovering(
      fc.property(fc.integer({ min: 2, max: 11 }), fc.nat(), (joints, seed) => {
        const next = random(seed + 1);
        const definition = randomSkeleton(joints, next);
        const clip = randomClip(joints, next, shared);
        const times = timeSequence(next, clip.duration);
        withPolicy(force, () => {
          const core = Core.create("scalar");
          blocks += blockMasks(compactClip(clip, new SkeletonAsset(definition, core)), core).length;
          assertSimdMatchesScalar(definition, clip, times);
        });
      }),
      15,
      () =>
        blocks < least
          ? `only ${blocks} sync blocks were built: the test would not exercise them`
          : undefined,
    );
  });
}

Deno.test("compact clips: rotations keyed at shared times become one block per group, with the held lanes", () => {
  const next = random(3);
  const joints = 10;
  const definition = randomSkeleton(joints, next);
  const times = Float32Array.from({ length: 12 }, (_, k) => k / 10);
  // Joints other than 5 zigzag about an axis of their own (every key kept, at
  // the same times); joint 5 holds its rest pose. Lanes 10 and 11 are no joints.
  const channels = [0, 1, 2, 3, 4, 6, 7, 8, 9].map((joint) => {
    const axis = randomQuaternion(next).slice(0, 3), n = Math.hypot(...axis);
    const values = [...times].flatMap((_, k) => {
      const half = (0.01 + 0.001 * joint) * (k % 2);
      return [...axis.map((v) => (v / n) * Math.sin(half)), Math.cos(half)];
    });
    return {
      joint,
      path: "rotation" as const,
      interpolation: "LINEAR" as const,
      times,
      values: Float32Array.from(values),
    };
  });
  const core = Core.create("scalar");
  const compact = compactClip(
    createClip({ name: "turns", channels }),
    new SkeletonAsset(definition, core),
  );
  // Group 1's block takes in joint 5 (held); group 2's only its two joints.
  assertEquals(blockMasks(compact, core).sort((a, b) => a - b), [3, 15, 15]);
  assert(compact.maxError <= compact.tolerance);
});

/** Timeline entries of `clip`'s compact form (blocks refilled in runs of shared key times). */
function timelineLength(compact: ReturnType<typeof compactClip>, core: Core): number {
  return coreMemory(core).views().u32[(compactClipInternals(compact).byteOffset >> 2) + 6];
}

Deno.test("compact sampling: blocks keyed at the same times refill together (timelines): every SIMD build equals the scalar reference", () => {
  let entries = 0;
  assertCovering(
    fc.property(fc.integer({ min: 5, max: 20 }), fc.nat(), (joints, seed) => {
      const next = random(seed + 1);
      const definition = randomSkeleton(joints, next);
      const times = Float32Array.from({ length: 3 + Math.floor(next() * 10) }, (_, k) => k * 0.1);
      // Random keys (every one kept) at shared times, on most joints'
      // rotations and some translations: runs of full and partial blocks
      // of both kinds, with lanes of their own beside them. Rotations
      // turn by little (bisected tracks never join blocks).
      const channels = [];
      for (let joint = 0; joint < joints; joint++) {
        for (const path of ["rotation", "translation"] as const) {
          if (next() < (path === "rotation" ? 0.15 : 0.6)) continue;
          const own = next() < 0.1;
          const keys = own ? Float32Array.from(times, (t) => t + 0.05) : times;
          const values = [...keys].flatMap(() => {
            if (path === "translation") return [0, 1, 2].map(() => next() * 2 - 1);
            const axis = randomQuaternion(next).slice(0, 3), n = Math.hypot(...axis);
            const half = 0.02 * next();
            return [...axis.map((v) => (v / n) * Math.sin(half)), Math.cos(half)];
          });
          channels.push({
            joint,
            path,
            interpolation: "LINEAR" as const,
            times: keys,
            values: Float32Array.from(values),
          });
        }
      }
      const clip = createClip({ name: "timelines", channels });
      // Clips like these qualify for the shared layout, which has no timelines.
      const saved = sharedPolicy.fileFactor;
      sharedPolicy.fileFactor = 0;
      try {
        const core = Core.create("scalar");
        entries += timelineLength(compactClip(clip, new SkeletonAsset(definition, core)), core);
        // Forward, seeks, reversed, past both ends, and a loop's wraps.
        const sequence = [...timeSequence(next, clip.duration)];
        for (let t = 0; t < 3 * clip.duration; t += 0.016) sequence.push(t % clip.duration);
        assertSimdMatchesScalar(definition, clip, sequence);
      } finally {
        sharedPolicy.fileFactor = saved;
      }
    }),
    15,
    () =>
      entries < 30
        ? `only ${entries} timeline entries were built: the test would not exercise them`
        : undefined,
  );
});
