/**
 * Shared-timeline compact clips (`sharedBlocks` in
 * `animation/_shared_blocks.ts`, `simd/wasm/assembly/sample_shared.ts`): every
 * SIMD build's one-weight path samples them as the scalar reference's
 * general path does; the layout is what the kernel relies on; and the
 * build takes it only for clips that can share a timeline.
 */
import "../scalar.ts";
import fc from "fast-check";
import { assert, assertEquals, assertLessOrEqual, assertThrows } from "@std/assert";
import { type Clip, createClip, SkeletonAsset } from "../mod.ts";
import { compactClip, type CompactClipOptions } from "../clips.ts";
import { Core } from "../kernels.ts";
import { coreMemory } from "../simd/memory/_instance.ts";
import { sharedBlocks, sharedPolicy } from "../animation/_shared_blocks.ts";
import { reduceChannel } from "../animation/_reduce.ts";
import {
  CLIP_SHARED_GROUPS,
  CLIP_SHARED_KEYS,
  SHARED_CACHE_BYTES,
  SHARED_GROUP_BYTES,
  SHARED_GROUP_FLAGS,
  SHARED_GROUP_VALUES,
  SHARED_SLERP,
  SYNC_BYTES,
  SYNC_MASK_SHIFT,
  SYNC_SPAN_SHIFT,
  TRACK_RAW,
} from "../simd/wasm/assembly/abi.ts";
import { assertCovering } from "./_arbitrary.ts";
import { random, randomQuaternion } from "./_scene.ts";
import {
  assertSimdMatchesScalar,
  bound,
  measuredError,
  randomSkeleton,
  timeSequence,
} from "./_compact.ts";
import { compactClipInternals } from "../animation/_asset_internals.ts";

/** Runs `fn` with the shared layout taken whatever it costs (`always`) or never. */
function withShared<T>(always: boolean, fn: () => T): T {
  const saved = { ...sharedPolicy };
  sharedPolicy.fileFactor = always ? Infinity : 0;
  try {
    return fn();
  } finally {
    Object.assign(sharedPolicy, saved);
  }
}

/**
 * A random LINEAR clip: channels on most joints' paths, keyed at times
 * common to the clip or their own, rotations turning by up to `turn`
 * radians between keys (large turns make the build halve intervals).
 */
function linearClip(joints: number, next: () => number, turn: number): Clip {
  const common = Float32Array.from({ length: 2 + Math.floor(next() * 8) }, (_, k) => k * 0.1);
  const channels = [];
  for (let joint = 0; joint < joints; joint++) {
    for (const path of ["translation", "rotation", "scale"] as const) {
      if (next() < 0.35) continue;
      let times = common;
      if (next() < 0.25) {
        let t = next() * 0.2;
        times = Float32Array.from(
          { length: 1 + Math.floor(next() * 6) },
          () => t += 0.03 + next() * 0.2,
        );
      }
      let q = randomQuaternion(next);
      const values = [...times].flatMap(() => {
        if (path !== "rotation") {
          return [0, 1, 2].map(() => (path === "scale" ? 0.5 : -1) + next() * 2);
        }
        // The next key: q turned about a random axis by up to `turn`.
        const axis = randomQuaternion(next).slice(0, 3), n = Math.hypot(...axis);
        const h = (turn * next()) / 2, s = Math.sin(h) / n;
        const [x, y, z] = axis.map((v) => v * s), w = Math.cos(h);
        q = [
          w * q[0] + x * q[3] + y * q[2] - z * q[1],
          w * q[1] - x * q[2] + y * q[3] + z * q[0],
          w * q[2] + x * q[1] - y * q[0] + z * q[3],
          w * q[3] - x * q[0] - y * q[1] - z * q[2],
        ];
        return q;
      });
      channels.push({
        joint,
        path,
        interpolation: "LINEAR" as const,
        times,
        values: Float32Array.from(values),
      });
    }
  }
  return createClip({ name: "shared", channels });
}

/** How many of a shared clip's rotation blocks interpolate with and without the slerp correction. */
function rotationKinds(compact: ReturnType<typeof compactClip>, core: Core): [number, number] {
  const u32 = coreMemory(core).views().u32, at = compactClipInternals(compact).byteOffset >> 2;
  const records = (compactClipInternals(compact).byteOffset + u32[at + CLIP_SHARED_GROUPS / 4]) >>
    2;
  let slerp = 0, plain = 0;
  for (let g = 0; g < compact.groupCount; g++) {
    const record = records + (g * SHARED_GROUP_BYTES) / 4;
    if (u32[record + (SHARED_GROUP_VALUES + 4) / 4] === 0) continue;
    if (u32[record + SHARED_GROUP_FLAGS / 4] & SHARED_SLERP) slerp++;
    else plain++;
  }
  return [slerp, plain];
}

/** The header's shared key count of `compact` in `core`. */
function sharedKeys(compact: ReturnType<typeof compactClip>, core: Core): number {
  return coreMemory(core).views()
    .u32[(compactClipInternals(compact).byteOffset + CLIP_SHARED_KEYS) >> 2];
}

Deno.test("compact sampling: shared-timeline clips: every SIMD build equals the scalar reference", () => {
  let shared = 0, slerp = 0, plain = 0;
  assertCovering(
    fc.property(
      fc.integer({ min: 1, max: 14 }),
      fc.nat(),
      fc.constantFrom(2.5, 0.3, 0.02),
      (joints, seed, turn) => {
        const next = random(seed + 1);
        const definition = randomSkeleton(joints, next);
        const clip = linearClip(joints, next, turn);
        // Forward, seeks, reversed, past both ends, and a loop's wraps.
        const sequence = timeSequence(next, clip.duration);
        for (let t = 0; t < 3 * clip.duration; t += 0.016) sequence.push(t % clip.duration);
        withShared(true, () => {
          const core = Core.create("scalar");
          const compact = compactClip(clip, new SkeletonAsset(definition, core));
          if (sharedKeys(compact, core) > 0) {
            shared++;
            const [s, p] = rotationKinds(compact, core);
            slerp += s, plain += p;
          }
          assertSimdMatchesScalar(definition, clip, sequence);
        });
      },
    ),
    20,
    () =>
      shared < 10
        ? `only ${shared} clips were built shared: the test would not exercise them`
        : slerp < 10 || plain < 10
        ? `rotation blocks: ${slerp} slerp-corrected, ${plain} plain`
        : undefined,
  );
});

Deno.test("compact clips: a shared clip's keyed paths are four-lane float blocks on one timeline, found through its group records; a playback caches a cursor", () => {
  const next = random(7);
  const definition = randomSkeleton(9, next);
  const clip = linearClip(9, next, 0.3);
  withShared(true, () => {
    const core = Core.create("relaxed-simd");
    const compact = compactClip(clip, new SkeletonAsset(definition, core));
    const u32 = coreMemory(core).views().u32, at = compactClipInternals(compact).byteOffset >> 2;
    const keys = u32[at + CLIP_SHARED_KEYS / 4];
    assert(keys > 0);
    assertEquals(u32[at + 6], 0, "no timeline entries");
    assertEquals(
      compactClipInternals(compact).cacheTemplate.length,
      SHARED_CACHE_BYTES,
      "a playback's cache: its cursor",
    );
    const syncs = (compactClipInternals(compact).byteOffset + u32[at + 5]) >> 2,
      groups = u32[at + CLIP_SHARED_GROUPS / 4];
    const paths = new Set<number>();
    for (let b = 0; b < u32[at + 4]; b++) {
      const record = syncs + (b * SYNC_BYTES) / 4;
      assertEquals(u32[record], u32[syncs], "one timeline");
      assertEquals(u32[record + 2], keys);
      const flags = u32[record + 3];
      assertEquals(
        [flags & 15, (flags >>> SYNC_SPAN_SHIFT) & 7, (flags >>> SYNC_MASK_SHIFT) & 15],
        [TRACK_RAW, 4, 15],
      );
      paths.add(u32[record + 1]);
    }
    // Every keyed path's values through its group record; nothing else.
    const found = [];
    for (let g = 0; g < compact.groupCount; g++) {
      for (let p = 0; p < 3; p++) {
        const record = compactClipInternals(compact).byteOffset + groups + g * SHARED_GROUP_BYTES;
        const values = u32[((record + SHARED_GROUP_VALUES) >> 2) + p];
        const keyed = clip.channels.some((c) =>
          c.joint >> 2 === g && ["translation", "rotation", "scale"][p] === c.path
        );
        if (values !== 0) found.push(values);
        if (!keyed) assertEquals(values, 0, `group ${g} path ${p} holds its values`);
      }
    }
    assertEquals(new Set(found), paths);
  });
});

/** Keys of `values` (n floats each) as CUBICSPLINE keys with zero tangents. */
function cubicValues(values: Float32Array, n: number): Float32Array {
  const out = new Float32Array(values.length * 3);
  for (let k = 0; k < values.length / n; k++) {
    out.set(values.subarray(k * n, k * n + n), k * 3 * n + n);
  }
  return out;
}

Deno.test("compact clips: clips with STEP or CUBICSPLINE keys, over the byte policy, or built with sharedTimeline: false are not shared", () => {
  const next = random(11);
  const definition = randomSkeleton(6, next);
  const linear = linearClip(6, next, 0.3);
  for (const interpolation of ["STEP", "CUBICSPLINE"] as const) {
    const channels = linear.channels.map((c, i) =>
      i > 0 ? c : {
        ...c,
        interpolation,
        values: interpolation === "STEP"
          ? c.values
          : cubicValues(c.values, c.path === "rotation" ? 4 : 3),
      }
    );
    const clip = createClip({ name: interpolation, channels });
    withShared(true, () => {
      const core = Core.create("scalar");
      assertEquals(
        sharedKeys(compactClip(clip, new SkeletonAsset(definition, core)), core),
        0,
        interpolation,
      );
    });
  }
  withShared(false, () => {
    const core = Core.create("scalar");
    assertEquals(sharedKeys(compactClip(linear, new SkeletonAsset(definition, core)), core), 0);
  });
  withShared(true, () => {
    // compactClip builds once per clip and skeleton structure: a core each.
    const build = (options?: CompactClipOptions) => {
      const core = Core.create("scalar");
      return sharedKeys(compactClip(linear, new SkeletonAsset(definition, core), options), core);
    };
    assert(build() > 0);
    assertEquals(build({ sharedTimeline: false }), 0, "sharedTimeline: false");
    assertThrows(
      () => build({ sharedTimeline: 1 as unknown as boolean }),
      TypeError,
      "sharedTimeline: expected a boolean",
    );
  });
});

Deno.test("compact clips: a shared clip's reported maximum error bounds its error at random times (slerp-corrected rotations, keys up to 2.5 rad apart)", () => {
  let shared = 0;
  for (let seed = 1; seed <= 20; seed++) {
    const next = random(seed);
    const joints = 1 + Math.floor(next() * 10);
    const definition = randomSkeleton(joints, next);
    const clip = linearClip(joints, next, seed % 2 ? 2.5 : 0.3);
    withShared(true, () => {
      const core = Core.create("scalar");
      const compact = compactClip(clip, new SkeletonAsset(definition, core));
      if (sharedKeys(compact, core) > 0) shared++;
      const times = Array.from({ length: 300 }, () => next() * clip.duration);
      const measured = measuredError(definition, clip, times, compact.virtualDistance);
      assertLessOrEqual(measured, bound(compact.maxError, definition), `seed ${seed}`);
    });
  }
  assert(shared >= 10, `only ${shared} clips were built shared`);
});

Deno.test("compact clips: a shared timeline's halvings stop at its byte limit (a clip of half turns between keys)", () => {
  // One rotation flipping by about 170 degrees at each of 200 keys: every
  // interval is halved until nlerp (with the correction) follows slerp.
  const times = Float32Array.from({ length: 200 }, (_, k) => k / 30);
  const values = Float32Array.from([...times].flatMap((_, k) => {
    const h = (k * 2.97) / 2;
    return [0, Math.sin(h), 0, Math.cos(h)];
  }));
  const channel = createClip({
    name: "flips",
    channels: [{ joint: 0, path: "rotation", interpolation: "LINEAR", times, values }],
  }).channels[0];
  const reduced = [reduceChannel(channel, 1e-6)];
  const held = () => Float32Array.of(0, 0, 0, 1);
  const keyBytes = 64 + 4;
  const unbounded = sharedBlocks([channel], [1e-6], 2, Infinity, reduced, held)!;
  assert(unbounded.blocks[0].times.length > 4 * times.length, "the clip needs halvings");
  const needed = unbounded.blocks[0].times.length;
  for (const keys of [times.length - 1, times.length + 1, needed - 1]) {
    const bounded = sharedBlocks([channel], [1e-6], 2, keys * keyBytes, reduced, held);
    assert(bounded === undefined, `${needed} keys built within a limit of ${keys}`);
  }
  const atLimit = sharedBlocks([channel], [1e-6], 2, needed * keyBytes, reduced, held);
  assertEquals(atLimit?.blocks[0].times.length, needed);
});
