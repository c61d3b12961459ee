/**
 * The build's channel cursor (`animation/_channel_cursor.ts`) gives
 * `sampleChannel`'s values bit for bit, whatever the order of the times it
 * is asked (forward, seeks, backward; at keys, between them, outside
 * them), on random channels of every path and interpolation and on the
 * rotation intervals where slerp takes its other branches (equal keys,
 * nearly equal ones, keys in opposite hemispheres).
 */
import fc from "fast-check";
import { assert } from "@std/assert";
import { type ClipChannel, sampleChannel } from "../animation/clip.ts";
import { ChannelCursor } from "../animation/_channel_cursor.ts";
import { fcParams } from "./_arbitrary.ts";
import { random } from "./_scene.ts";
import { randomClip, timeSequence } from "./_compact.ts";

/** Asserts that a cursor over `channel` and `sampleChannel` agree bit for bit at `times`, in order. */
function assertSameValues(channel: ClipChannel, times: number[], what: string): void {
  const cursor = new ChannelCursor(channel);
  const n = channel.path === "rotation" ? 4 : 3;
  const expected = new Float64Array(4), actual = new Float64Array(4);
  for (const time of times) {
    sampleChannel(channel, time, expected);
    cursor.at(time, actual);
    for (let c = 0; c < n; c++) {
      assert(
        Object.is(actual[c], expected[c]),
        `${what}: ${channel.interpolation} ${channel.path} at ${time}: component ${c} is ${
          actual[c]
        }, sampleChannel gives ${expected[c]}`,
      );
    }
  }
}

/** The channel's key times, the times halfway between them, then `sequence`. */
function timesOf(channel: ClipChannel, sequence: number[]): number[] {
  const keys = [...channel.times];
  return [...keys, ...keys.slice(1).map((t, k) => (t + keys[k]) / 2), ...sequence];
}

Deno.test("channel cursor: sampleChannel's values bit for bit on random channels and time sequences", () => {
  fc.assert(
    fc.property(fc.nat(), (seed) => {
      const next = random(seed + 1);
      const clip = randomClip(3, next);
      for (const channel of clip.channels) {
        const sequence = timeSequence(next, channel.times[channel.times.length - 1] + 0.1);
        assertSameValues(channel, timesOf(channel, sequence), `seed ${seed}`);
      }
    }),
    fcParams(40),
  );
});

Deno.test("channel cursor: slerp's other branches (equal keys, nearly equal, opposite hemispheres)", () => {
  const turn = (angle: number) => [0, Math.sin(angle / 2), 0, Math.cos(angle / 2)];
  const keys = [
    turn(0),
    turn(0), // equal keys: the value is the key
    turn(0.01), // dot above 0.9995: lerp and normalize
    turn(1.2),
    turn(1.2).map((v) => -v), // the same rotation, other hemisphere
    turn(-2.5), // a wide arc the shorter way
    turn(0.3).map((v) => -v),
  ];
  const channel: ClipChannel = {
    joint: 0,
    path: "rotation",
    interpolation: "LINEAR",
    times: Float32Array.from(keys, (_, k) => k * 0.25),
    values: Float32Array.from(keys.flat()),
    node: 0,
  };
  const next = random(3);
  const sequence = timeSequence(next, 1.6);
  assertSameValues(channel, timesOf(channel, sequence), "branches");
  // Many samples inside one interval, then the next: the interval's terms are reused, then replaced.
  const dense = Array.from({ length: 200 }, (_, i) => (i * 1.5) / 200);
  assertSameValues(channel, [...dense, ...dense.reverse()], "dense");
});
