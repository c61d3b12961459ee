/**
 * Clips the build cannot compact get a `ClipError` naming the clip, the
 * channel and the key, not a bare `TypeError` ("reading 'trackCount'"):
 * scale keys of 1e18 (inside validation's ±1e18) on chained joints, whose
 * product float32 cannot hold, and a clip changed after it was validated.
 * Nothing is kept in the core by the refused call.
 */

import "../scalar.ts";
import { assertEquals, assertInstanceOf, assertThrows } from "@std/assert";
import {
  type Clip,
  ClipError,
  createAnimationPipeline,
  createClip,
  playClip,
  validateClip,
} from "../mod.ts";
import { compactClip } from "../clips.ts";
import { createScene } from "./_scene.ts";

/** Scale keys growing from 1 to `scale` on joints 0..chain-1 (a chain in the cylinder). */
function chainedScales(scale: number, chain: number): Clip {
  // Each key alone is within ±1e18: createClip validates it.
  return createClip({
    name: `scale ${scale} x${chain}`,
    channels: Array.from({ length: chain }, (_, joint) => ({
      joint,
      path: "scale" as const,
      interpolation: "LINEAR" as const,
      times: Float32Array.of(0, 1),
      values: Float32Array.of(1, 1, 1, scale, scale, scale),
      node: joint,
    })),
  });
}

/** `call` throws a ClipError for `clip` naming `channel` and `key`, and keeps no core memory. */
function assertRefused(
  scene: ReturnType<typeof createScene>,
  call: () => unknown,
  clip: Clip,
  channel: number,
  key: number,
): ClipError {
  const before = scene.core.allocatedBytes;
  const error = assertThrows(call, ClipError);
  assertInstanceOf(error, ClipError);
  assertEquals([error.clip, error.channel, error.key], [clip.name, channel, key], error.message);
  assertEquals(scene.core.allocatedBytes, before);
  return error;
}

Deno.test("1e18 scale keys on four chained joints: a ClipError naming the key, not a TypeError", () => {
  for (const [scale, chain] of [[1e18, 4], [1e18, 3], [1e12, 4]]) {
    const scene = createScene("scalar", 1);
    const clip = chainedScales(scale, chain);
    // Joint 1's scale keys are the first whose product with its parent's passes ±1e18.
    const error = assertRefused(
      scene,
      () => playClip(scene.world, scene.entities[0], clip),
      clip,
      1,
      1,
    );
    assertEquals(error.message.includes("beyond ±1e18"), true, error.message);
    assertRefused(scene, () => compactClip(clip, scene.skeleton), clip, 1, 1);
  }
});

Deno.test("a clip changed after validation: a ClipError naming the changed key", () => {
  for (const bad of [NaN, Infinity, 1e30]) {
    const scene = createScene("scalar", 1);
    const clip = chainedScales(2, 2);
    validateClip(clip);
    clip.channels[1].values[4] = bad;
    const error = assertRefused(
      scene,
      () => playClip(scene.world, scene.entities[0], clip),
      clip,
      1,
      1,
    );
    assertEquals(error.message.includes(String(Math.fround(bad))), true, error.message);
  }
});

Deno.test("the refused entity and the world go on: a valid clip plays after a refusal", () => {
  const scene = createScene("scalar", 1);
  const [eid] = scene.entities;
  assertThrows(() => playClip(scene.world, eid, chainedScales(1e18, 4)), ClipError);
  playClip(scene.world, eid, chainedScales(2, 2));
  createAnimationPipeline()(scene.world, 0.5);
});
