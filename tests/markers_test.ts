/**
 * Clip markers: every marker fires exactly once per crossing, in order, at
 * frame deltas from 1/240 s to 1 s, forwards and backwards, looping and
 * clamped, counted against the crossings of the unwrapped playback time.
 */
import "../scalar.ts";
import { assertEquals, assertThrows } from "@std/assert";
import { type Clip, playClip, sampleClipsSystem } from "../mod.ts";
import { importGltf } from "../gltf/mod.ts";
import { addLayer } from "../layers.ts";
import { getClipMarkers, getCrossedMarkers, type MarkerHit, setClipMarkers } from "../clips.ts";
import { createScene, random } from "./_scene.ts";
import { readDocument, writeGlb } from "./_gltf_rig.ts";

function clip(name: string, duration: number): Clip {
  return {
    name,
    animation: 0,
    start: 0,
    duration,
    channels: [{
      joint: 1,
      path: "translation",
      interpolation: "LINEAR",
      times: Float32Array.of(0, duration),
      values: Float32Array.of(0, 0, 0, 1, 0, 0),
      node: 1,
    }],
  };
}

/** Times k * d + m crossed from `from` to `to`, in crossing order (the specification, in doubles). */
function expectedCrossings(
  markers: readonly { name: string; time: number }[],
  d: number,
  from: number,
  to: number,
): string[] {
  const hits: [number, string][] = [];
  const [lo, hi] = from < to ? [from, to] : [to, from];
  for (const { name, time } of markers) {
    const m = time === d ? 0 : time;
    for (let k = Math.floor((lo - m) / d) - 1; k * d + m <= hi + d; k++) {
      const at = k * d + m;
      if (from < to ? at > from && at <= to : at < from && at >= to) hits.push([at, name]);
    }
  }
  hits.sort((a, b) => from < to ? a[0] - b[0] : b[0] - a[0]);
  return hits.map(([, name]) => name);
}

const MARKERS = [
  { name: "start", time: 0 },
  { name: "step-left", time: 0.25 },
  { name: "step-right", time: 0.8 },
  { name: "end", time: 1.1 },
];

for (const delta of [1 / 240, 1 / 60, 1 / 30, 0.1, 0.37, 1]) {
  for (const speed of [1, -1, 2.5, -0.75]) {
    Deno.test(`markers fire once per crossing, in order: delta ${delta.toFixed(4)} s, speed ${speed}`, () => {
      const { world, entities } = createScene("simd", 1);
      const [eid] = entities;
      const walk = clip("walk", 1.1);
      setClipMarkers(walk, MARKERS);
      const start = random(Math.round(delta * 1000 + speed * 10))() * 3;
      playClip(world, eid, walk, { time: start, speed });
      const got: string[] = [];
      let time = start;
      const frames = Math.ceil(6 / delta);
      for (let f = 0; f < frames; f++) {
        sampleClipsSystem(world, delta);
        for (const hit of getCrossedMarkers(world, eid)) got.push(hit.name);
        time += delta * speed;
      }
      // One long step covers the same ground: the same sequence.
      const expected = expectedCrossings(MARKERS, 1.1, start, time);
      assertEquals(got, expected);
      // Counted another way: crossings of m + k d between the two ends.
      const [lo, hi] = start < time ? [start, time] : [time, start];
      for (const { name, time: m } of MARKERS) {
        const crossings = Math.floor((hi - m % 1.1) / 1.1) - Math.floor((lo - m % 1.1) / 1.1);
        assertEquals(got.filter((n) => n === name).length, crossings, name);
      }
    });
  }
}

Deno.test("markers of a clamped clip fire once until it turns back; layers report theirs", () => {
  const { world, entities } = createScene("scalar", 1);
  const [eid] = entities;
  const once = clip("once", 1);
  setClipMarkers(once, [{ name: "hit", time: 0.5 }, { name: "end", time: 1 }]);
  playClip(world, eid, once, { wrap: "clamp" });
  const names = () => getCrossedMarkers(world, eid).map((h: MarkerHit) => `${h.layer}:${h.name}`);
  sampleClipsSystem(world, 0.4);
  assertEquals(names(), []);
  sampleClipsSystem(world, 5);
  assertEquals(names(), ["0:hit", "0:end"]);
  sampleClipsSystem(world, 5);
  assertEquals(names(), []);
  const other = clip("other", 2);
  setClipMarkers(other, [{ name: "beat", time: 1 }]);
  addLayer(world, eid, other, { time: 0.9 });
  sampleClipsSystem(world, 0.2);
  assertEquals(names(), ["1:beat"]);
  assertEquals(getClipMarkers(other).map((m) => m.name), ["beat"]);
  assertThrows(
    () => setClipMarkers(other, [{ name: "x", time: 3 }]),
    RangeError,
    "markers[0].time: expected a time in [0, 2], got 3",
  );
  assertThrows(
    () => setClipMarkers(other, [{ name: 1 as unknown as string, time: 1 }]),
    RangeError,
    "markers[0].name",
  );
});

Deno.test("markers: a huge step over a tiny loop reports a bounded number of hits and does not hang", () => {
  const { world, entities } = createScene("scalar", 1);
  const [eid] = entities;
  const tiny = clip("tiny", 1e-3);
  setClipMarkers(tiny, [{ name: "tick", time: 0 }]);
  playClip(world, eid, tiny, { time: 1e15 });
  sampleClipsSystem(world, 1e6);
  const hits = getCrossedMarkers(world, eid).length;
  assertEquals(hits <= 256, true);
});

Deno.test("markers from a glTF animation's extras.markers; malformed ones are warnings", async () => {
  const document = await readDocument(Deno.readFileSync("tests/fixtures/gltf/Fox.glb"));
  const [survey, walk] = document.getRoot().listAnimations();
  survey.setExtras({ markers: [{ name: "look", time: 1 }, { name: "bad", time: -1 }, 7] });
  walk.setExtras({ markers: "nope" });
  const model = await importGltf(await writeGlb(document));
  const clips = model.skeletons[0].clips;
  assertEquals(getClipMarkers(clips[0]), [{ name: "look", time: 1 }]);
  assertEquals(getClipMarkers(clips[1]), []);
  const warnings = model.warnings.filter((w) => w.includes("/extras/markers"));
  assertEquals(warnings, [
    "/animations/0/extras/markers/1: expected { name: string, time: 0 to 3.4166667461395264 } (and 1 more markers): ignored",
    "/animations/1/extras/markers: not an array of { name, time }: ignored",
  ]);
});
