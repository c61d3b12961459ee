/**
 * Retargeting random clips (every interpolation, channels keyed at their
 * own times, scales left out: the target keeps its rest scales) from
 * random skeletons onto their variants (`tests/_retarget.ts`), against the
 * exact oracle: each joint of the variant where the original's is, scaled
 * and turned.
 *
 * - Clips of `LINEAR` and `STEP` channels agree at every time, a step's
 *   jump included (the float32 time just before each step is keyed).
 * - Clips with `CUBICSPLINE` channels agree at the retargeted clip's keys
 *   (the source's key times and seven points in each interval); a smooth
 *   one (keys 0.1 to 0.3 s and up to 0.3 rad apart, Catmull-Rom tangents)
 *   within 0.1 % of the size between them too.
 * - `STEP` alone stays `STEP`.
 */

import { assert, assertEquals } from "@std/assert";
import { type Clip, createClip, type SkeletonDefinition } from "../mod.ts";
import { retargetClip, type RetargetJointOverride } from "../retarget.ts";
import { random, randomQuaternion } from "./_scene.ts";
import { randomClip, randomSkeleton } from "./_compact.ts";
import {
  jointPositions,
  largestDistance,
  rotated,
  skeletonSize,
  variant,
  yaw,
} from "./_retarget.ts";

const SCALE = 0.8, ANGLE = -2.1;

/** `clip` without its scale channels, and with every channel of `interpolation` if given. */
function withoutScales(clip: Clip, only?: "STEP"): Clip {
  const channels = clip.channels.filter((c) =>
    c.path !== "scale" && (only === undefined || c.interpolation === only)
  );
  return createClip({ name: clip.name, channels, duration: clip.duration });
}

/** The retargeted clip of `clip` on the variant, every joint's translation offsets kept. */
function onVariant(skeleton: SkeletonDefinition, other: SkeletonDefinition, clip: Clip): Clip {
  const overrides: Record<string, RetargetJointOverride> = {};
  for (const name of other.names.slice(1)) overrides[name] = { translation: "offset" };
  return retargetClip(clip, {
    source: skeleton,
    target: other,
    hips: other.names[0],
    rootScale: SCALE,
    overrides,
    facing: {
      source: [1, 0, 0],
      target: rotated(yaw(ANGLE), [1, 0, 0]) as [number, number, number],
    },
  });
}

/** The largest distance from the oracle at `times`, relative to the variant's size. */
function error(
  skeleton: SkeletonDefinition,
  other: SkeletonDefinition,
  clip: Clip,
  moved: Clip,
  times: number[],
) {
  const size = skeletonSize(other);
  let worst = 0, at = 0;
  for (const time of times) {
    const original = jointPositions(skeleton, clip, time);
    const expected = new Float64Array(original.length);
    for (let j = 0; j < original.length; j += 3) {
      const p = rotated(yaw(ANGLE), [original[j], original[j + 1], original[j + 2]]);
      for (let c = 0; c < 3; c++) expected[j + c] = p[c] * SCALE;
    }
    const d = largestDistance(jointPositions(other, moved, time), expected).worst / size;
    if (d > worst) worst = d, at = time;
  }
  return { worst, at };
}

Deno.test("retarget: random LINEAR and STEP clips onto random variants agree at every time", () => {
  const next = random(101);
  for (let i = 0; i < 40; i++) {
    const skeleton = randomSkeleton(2 + Math.floor(next() * 14), next);
    const other = variant(skeleton, SCALE, ANGLE, next);
    const full = randomClip(skeleton.parents.length, next);
    const clip = withoutScales(
      createClip({
        name: "",
        channels: full.channels.filter((c) => c.interpolation !== "CUBICSPLINE"),
      }),
    );
    if (clip.channels.length === 0) continue;
    const moved = onVariant(skeleton, other, clip);
    const times = Array.from({ length: 40 }, () => next() * (clip.duration + 0.2) - 0.1);
    // Just before and at every key: a STEP channel's jump.
    for (const channel of clip.channels) {
      for (const t of channel.times) times.push(t, Math.fround(t) - 1e-6 * Math.max(1, t));
    }
    const { worst, at } = error(skeleton, other, clip, moved, times);
    assert(worst <= 1e-5, `case ${i} at ${at}: ${worst} of the size off`);
  }
});

/**
 * A smooth CUBICSPLINE clip on `n` joints, as exporters write one: keys
 * 0.1 to 0.3 s apart, each rotation at most 0.3 rad from the one before,
 * tangents from the neighbouring keys (Catmull-Rom).
 */
function smoothCubicClip(n: number, next: () => number): Clip {
  const channels = [];
  for (let j = 0; j < n; j++) {
    for (const path of ["rotation", "translation"] as const) {
      const count = 2 + Math.floor(next() * 6), size = path === "rotation" ? 4 : 3;
      const times = new Float32Array(count);
      const keys = new Float64Array(count * size);
      let q = randomQuaternion(next);
      for (let k = 0; k < count; k++) {
        times[k] = k === 0 ? next() * 0.2 : times[k - 1] + 0.1 + next() * 0.2;
        if (path === "translation") {
          for (let c = 0; c < 3; c++) {
            keys[k * 3 + c] = (k ? keys[(k - 1) * 3 + c] : 0) + (next() - 0.5) * 0.1;
          }
          continue;
        }
        const axis = randomQuaternion(next), angle = next() * 0.3, sin = Math.sin(angle / 2);
        const length = Math.hypot(axis[0], axis[1], axis[2]);
        q = multiplied(q, [
          axis[0] / length * sin,
          axis[1] / length * sin,
          axis[2] / length * sin,
          Math.cos(angle / 2),
        ]);
        keys.set(q, k * 4);
      }
      const values = new Float32Array(count * size * 3);
      for (let k = 0; k < count; k++) {
        const a = Math.max(0, k - 1), b = Math.min(count - 1, k + 1);
        for (let c = 0; c < size; c++) {
          const tangent = b > a
            ? (keys[b * size + c] - keys[a * size + c]) / (times[b] - times[a])
            : 0;
          values[k * 3 * size + c] = values[k * 3 * size + 2 * size + c] = tangent;
          values[k * 3 * size + size + c] = keys[k * size + c];
        }
      }
      channels.push({ joint: j, path, interpolation: "CUBICSPLINE" as const, times, values });
    }
  }
  return createClip({ name: "smooth", channels });
}

function multiplied(a: number[], b: number[]): number[] {
  return [
    a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1],
    a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0],
    a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3],
    a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2],
  ];
}

Deno.test("retarget: random CUBICSPLINE clips agree at their keys, and between them within 0.1 % of the size when smooth", () => {
  const next = random(202);
  for (let i = 0; i < 30; i++) {
    const skeleton = randomSkeleton(2 + Math.floor(next() * 10), next);
    const random = withoutScales(randomClip(skeleton.parents.length, next));
    const other = variant(skeleton, SCALE, ANGLE, next);
    // Random tangents: exact at the retargeted clip's keys only.
    const moved = onVariant(skeleton, other, random);
    if (moved.channels.length === 0) continue;
    const atKeys = error(skeleton, other, random, moved, [...moved.channels[0].times]);
    assert(atKeys.worst <= 1e-5, `case ${i} at key ${atKeys.at}: ${atKeys.worst} off`);
    // Smooth curves: close between the keys too.
    const smooth = smoothCubicClip(skeleton.parents.length, next);
    const between = Array.from({ length: 40 }, () => next() * smooth.duration);
    const { worst, at } = error(
      skeleton,
      other,
      smooth,
      onVariant(skeleton, other, smooth),
      between,
    );
    assert(worst <= 1e-3, `case ${i} at ${at}: ${worst} of the size off`);
  }
});

Deno.test("retarget: a clip of STEP channels alone stays STEP", () => {
  const next = random(303);
  const skeleton = randomSkeleton(6, next);
  let clip: Clip;
  do clip = withoutScales(randomClip(6, next), "STEP"); while (clip.channels.length === 0);
  const other = variant(skeleton, SCALE, ANGLE, next);
  const moved = onVariant(skeleton, other, clip);
  for (const channel of moved.channels) assertEquals(channel.interpolation, "STEP");
  const times = clip.channels.flatMap((c) => [...c.times]);
  assert(error(skeleton, other, clip, moved, times).worst <= 1e-5);
});
