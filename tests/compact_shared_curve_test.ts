/**
 * A shared timeline's curve checks (`sharedBlocks` in
 * `animation/_shared_blocks.ts`): a rotation is marked for the sampler's
 * slerp correction exactly when plain nlerp between the timeline's keys
 * strays more than its limit from its exact curve, and an interval is
 * halved when even the corrected nlerp does, against strays measured here
 * by sampling the exact curve (`sampleChannel`) where the checks look.
 */
import { assert, assertEquals } from "@std/assert";
import type { ClipChannel } from "../animation/clip.ts";
import { sampleChannel } from "../animation/clip.ts";
import { sharedBlocks } from "../animation/_shared_blocks.ts";
import type { KeyTrack, ReducedChannel } from "../animation/_reduce.ts";
import { slerpTerms, slerpWeight } from "../simd/scalar/sample.ts";

/** Where between two keys the checks look. */
const CHECKS = [0.125, 0.25, 0.375, 0.625, 0.75, 0.875];

/** A rotation about y by `angle` radians from key to key. */
function turning(angle: number): ClipChannel {
  const q = (a: number) => [0, Math.sin(a / 2), 0, Math.cos(a / 2)];
  return {
    joint: 0,
    path: "rotation",
    interpolation: "LINEAR",
    times: Float32Array.of(0, 1),
    values: Float32Array.from([...q(0.2), ...q(0.2 + angle)]),
    node: 0,
  };
}

/** How far nlerp (corrected or not) between the channel's keys strays from its exact curve, sampled. */
function sampledStray(channel: ClipChannel, corrected: boolean): number {
  const a = new Float64Array(4), b = new Float64Array(4), x = new Float64Array(4);
  sampleChannel(channel, 0, a);
  sampleChannel(channel, 1, b);
  let worst = 0;
  for (const u of CHECKS) {
    sampleChannel(channel, u, x);
    const w = corrected ? slerpWeight(slerpTerms(Math.fround(u)), a, b) : u;
    const q = [0, 1, 2, 3].map((c) => a[c] + (b[c] - a[c]) * w);
    const length = Math.hypot(...q);
    const d = Math.hypot(...q.map((v, c) => v / length - x[c]));
    worst = Math.max(worst, d);
  }
  return worst;
}

/** The channel's shared block at `limit`: its times and whether it is corrected. */
function shared(channel: ClipChannel, limit: number): { keys: number; slerp: boolean } {
  const reduced: ReducedChannel[] = [{ joint: 0, path: 1, keys: {} as KeyTrack }];
  const laid = sharedBlocks([channel], [limit], 1, 1 << 20, reduced, () => new Float32Array(4));
  assert(laid && laid.blocks.length === 1);
  return { keys: laid.blocks[0].times.length, slerp: laid.blocks[0].slerp === true };
}

Deno.test("shared timeline: nlerp corrected where plain nlerp strays, halved where corrected nlerp does", () => {
  for (const angle of [0.3, 1, 2]) {
    const channel = turning(angle);
    const plain = sampledStray(channel, false), corrected = sampledStray(channel, true);
    assert(corrected < plain / 4, `angle ${angle}: the correction helps`);
    const what = (limit: number) => `angle ${angle}, limit ${limit}`;
    // Plain nlerp within the limit: no correction, no halving.
    assertEquals(shared(channel, plain * 1.05), { keys: 2, slerp: false }, what(plain * 1.05));
    // Only corrected nlerp within it: corrected, not halved.
    const between = Math.sqrt(plain * Math.max(corrected, plain * 1e-6));
    if (corrected < between * 0.95) {
      assertEquals(shared(channel, between), { keys: 2, slerp: true }, what(between));
    }
    // Neither: corrected and halved.
    const tight = shared(channel, corrected * 0.5);
    assert(tight.slerp && tight.keys > 2, `${what(corrected * 0.5)}: ${JSON.stringify(tight)}`);
  }
});
