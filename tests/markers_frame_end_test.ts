/**
 * A frame that ends exactly on a marker reports it in that frame (the
 * crossing interval is closed at its end: `(from, to]` forwards,
 * `[to, from)` backwards), and the next frame, which starts on it, does
 * not report it again. The random frames of `markers_test.ts` never end
 * exactly on a marker; these do, by construction: dyadic marker times,
 * deltas and start times, so that `from + delta * speed` is the marker's
 * playback time exactly.
 */

import "../scalar.ts";
import fc from "fast-check";
import { assertEquals } from "@std/assert";
import { type Clip, playClip, sampleClipsSystem } from "../mod.ts";
import { getCrossedMarkers, setClipMarkers } from "../clips.ts";
import { createScene } from "./_scene.ts";

const DURATION = 1;
const MARKERS = [
  { name: "a", time: 0.25 },
  { name: "b", time: 0.5 },
  { name: "c", time: 0.75 },
];

function walk(): Clip {
  return {
    name: "walk",
    animation: 0,
    start: 0,
    duration: DURATION,
    channels: [{
      joint: 1,
      path: "translation",
      interpolation: "LINEAR",
      times: Float32Array.of(0, DURATION),
      values: Float32Array.of(0, 0, 0, 1, 0, 0),
      node: 1,
    }],
  };
}

Deno.test("a frame ending exactly on a marker reports it once, in that frame", () => {
  const { world, entities: [eid] } = createScene("scalar", 1);
  const clip = walk();
  setClipMarkers(clip, MARKERS);
  fc.assert(
    fc.property(
      fc.integer({ min: 0, max: MARKERS.length - 1 }),
      fc.integer({ min: 0, max: 5 }),
      fc.integer({ min: 1, max: 255 }),
      fc.constantFrom(1, -1),
      fc.constantFrom("loop" as const, "clamp" as const),
      (marker, cycle, steps, speed, wrap) => {
        const { name, time } = MARKERS[marker];
        // A clamped clip has one cycle: its marker times are its playback times.
        const at = (wrap === "clamp" ? 0 : cycle) * DURATION + time;
        const delta = steps / 256, from = at - delta * speed;
        assertEquals(from + delta * speed, at, "the construction is exact");
        playClip(world, eid, clip, { time: from, speed, wrap });
        sampleClipsSystem(world, delta);
        const ending = getCrossedMarkers(world, eid).map((hit) => hit.name);
        assertEquals(ending.filter((n) => n === name).length, 1, `frame ending on ${name}`);
        sampleClipsSystem(world, delta);
        const next = getCrossedMarkers(world, eid).map((hit) => hit.name);
        assertEquals(next.includes(name), false, `frame starting on ${name}`);
      },
    ),
    { numRuns: 500 },
  );
});
