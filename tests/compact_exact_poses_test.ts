/**
 * The exact poses a build keeps between its measurements
 * (`ExactPoses` in `animation/_clip_error.ts`) live in stores every build
 * shares: a measurement that reuses them gives the error a fresh
 * measurement gives, and a build whose stores another build claimed since
 * (a clip of the same key times, other values) does not read that build's
 * poses as its own.
 */
import { assert, assertEquals } from "@std/assert";
import { type Clip, createClip, SkeletonAsset } from "../mod.ts";
import { Core } from "../kernels.ts";
import { buildImage } from "../animation/_compact_build.ts";
import { ExactPoses, measureError } from "../animation/_clip_error.ts";
import { geometryOf } from "../animation/_skeleton_geometry.ts";
import { sameBytes } from "../animation/_clip_image.ts";
import { randomSkeleton } from "./_compact.ts";
import { random, randomQuaternion } from "./_scene.ts";

const JOINTS = 6;
const times = Float32Array.from({ length: 9 }, (_, k) => k / 8);

/** A clip of every joint's rotation and translation, LINEAR, keyed at `times`. */
function clipAt(next: () => number, name: string): Clip {
  const channels = [];
  for (let joint = 0; joint < JOINTS; joint++) {
    channels.push({
      joint,
      path: "rotation" as const,
      interpolation: "LINEAR" as const,
      times,
      values: Float32Array.from([...times].flatMap(() => randomQuaternion(next))),
    }, {
      joint,
      path: "translation" as const,
      interpolation: "LINEAR" as const,
      times,
      values: Float32Array.from([...times].flatMap(() => [0, 1, 2].map(() => next() - 0.5))),
    });
  }
  return createClip({ name, channels });
}

Deno.test("exact poses: kept poses are a build's own, and measure as fresh ones do", () => {
  const next = random(17);
  const skeleton = new SkeletonAsset(randomSkeleton(JOINTS, next), Core.create("simd"));
  const geometry = geometryOf(skeleton);
  const virtualDistance = 0.1 * geometry.size;
  const a = clipAt(next, "a"), b = clipAt(next, "b");
  const image = (clip: Clip, share: number) =>
    buildImage(clip, skeleton, geometry, {
      tolerance: share * geometry.size,
      virtualDistance,
      sharedTimeline: false,
    }).image;
  const fine = image(a, 1e-4), coarse = image(a, 3e-2), other = image(b, 1e-4);
  assert(!sameBytes(fine.bytes, coarse.bytes), "two images of clip a");
  const player = { parents: skeleton.parentIndices };
  const exact = (clip: Clip) => new ExactPoses(clip, geometry, virtualDistance, player);
  const fresh = measureError(coarse, exact(a))!;
  assert(fresh > 0);
  // Reused: the coarse image measured after the fine one, by one build.
  const alone = exact(a);
  measureError(fine, alone);
  assertEquals(measureError(coarse, alone), fresh);
  // Interleaved: another build measures clip b at the same times in between.
  const first = exact(a), second = exact(b);
  measureError(fine, first);
  measureError(other, second);
  assertEquals(measureError(coarse, first), fresh);
});
