/**
 * What the sample clips system caches between frames gives what it would
 * compute afresh: each sampler's loop base (the clip time written into the
 * sampling row is `wrapTime`'s, bit for bit, through loops, seeks, speeds
 * of either sign, clips of any duration and replays on recycled samplers),
 * and each sampler's "has markers" answer (markers set on a clip already
 * playing, or on the clip a recycled sampler is given, fire).
 *
 * @module
 */
import { assertEquals } from "@std/assert";
import { addEntity, createWorld } from "bitecs";
import { addCharacter, createAnimation, crossFadeTo, playClip, SkeletonAsset } from "../mod.ts";
import { sampleClipsSystem } from "../mod.ts";
import { getCrossedMarkers, setClipMarkers, wrapTime } from "../clips.ts";
import { Core } from "../kernels.ts";
import { createCylinder, waveClip } from "../procedural/cylinder.ts";
import { stateOf } from "../components/_lifecycle.ts";
import { JOB_WORDS, SAMPLE_TIME } from "../simd/abi.ts";

function scene() {
  const core = Core.create("relaxed-simd");
  const world = createWorld();
  createAnimation(world, { core });
  const cylinder = createCylinder({ joints: 3, segments: 2, rings: 2, influences: 1 });
  const skeleton = new SkeletonAsset(cylinder.skeleton, core);
  const eid = addEntity(world);
  addCharacter(world, eid, skeleton);
  return { world, eid, state: stateOf(world, "test") };
}

/** A deterministic generator of numbers in [0, 1). */
function generator(seed: number) {
  return () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32);
}

Deno.test("sampled clip times are wrapTime's, bit for bit, through loops, seeks and replays", () => {
  const { world, eid, state } = scene();
  const random = generator(7);
  const clips = [1, 0.7, 1 / 3, Math.fround(0.7), 2.5e-3, 1e-7, 37.1].map((duration) =>
    waveClip(3, { duration, keys: 4 })
  );
  let clip = clips[0];
  playClip(world, eid, clip);
  const c = state.components.ClipPlayer;
  const f32 = new Float32Array(1), word = new Uint32Array(f32.buffer);
  let checked = 0;
  for (let i = 0; i < 20_000; i++) {
    const pick = random();
    if (pick < 0.002) {
      clip = clips[Math.floor(random() * clips.length)];
      playClip(world, eid, clip, { time: random() < 0.5 ? 0 : (random() - 0.2) * 50 });
    } else if (pick < 0.003) c.time[eid] = (random() - 0.3) * 10 ** Math.floor(random() * 11);
    // A power-of-two count of loops is exact where the next count may not be.
    else if (pick < 0.012) {
      c.time[eid] = 2 ** (20 + Math.floor(random() * 20)) * clip.duration + random();
    } else if (pick < 0.014) c.speed[eid] = random() < 0.2 ? -random() * 3 : random() * 3;
    const delta = random() < 0.02 ? random() * 5 : 1 / 60;
    sampleClipsSystem(world, delta);
    const row = state.jobs("sampleClips").readBack(JOB_WORDS);
    f32[0] = wrapTime(c.time[eid], clip.duration, "loop");
    if (row[SAMPLE_TIME] !== word[0]) {
      throw new Error(
        `frame ${i}: time ${c.time[eid]} of a clip of ${clip.duration} s sampled at bits ` +
          `${row[SAMPLE_TIME]}, wrapTime's are ${word[0]}`,
      );
    }
    checked++;
  }
  assertEquals(checked, 20_000);
});

Deno.test("markers set on a clip already playing, or on a recycled sampler's next clip, fire", () => {
  const { world, eid } = scene();
  const walk = waveClip(3, { duration: 1 }), run = waveClip(3, { duration: 0.5 });
  playClip(world, eid, walk);
  const names = () => getCrossedMarkers(world, eid).map((hit) => hit.name);
  const frames = (n: number) => {
    const seen: string[] = [];
    for (let i = 0; i < n; i++) sampleClipsSystem(world, 0.1), seen.push(...names());
    return seen;
  };
  assertEquals(frames(12), []);
  setClipMarkers(walk, [{ name: "step", time: 0.55 }]);
  assertEquals(frames(10), ["step"]);
  // The fade recycles no sampler yet; replaying walk then run does (their samplers swap).
  crossFadeTo(world, eid, run, 0.05);
  frames(3);
  playClip(world, eid, walk);
  crossFadeTo(world, eid, run, 0.05);
  frames(3);
  assertEquals(frames(10), []);
  setClipMarkers(run, [{ name: "run", time: 0.25 }]);
  assertEquals(frames(5), ["run"]);
});

Deno.test("a recycled sampler answers for its new clip's markers, not its last clip's", () => {
  const { world, eid } = scene();
  const plain = [waveClip(3, { duration: 1 }), waveClip(3, { duration: 1 })];
  const marked = waveClip(3, { duration: 1 });
  setClipMarkers(marked, [{ name: "mark", time: 0.45 }]);
  const seen = () => {
    const names: string[] = [];
    for (let i = 0; i < 10; i++) {
      sampleClipsSystem(world, 0.1);
      names.push(...getCrossedMarkers(world, eid).map((hit) => hit.name));
    }
    return names;
  };
  // A play takes the sampler the play before last let go: the markers' version stays.
  for (let round = 0; round < 3; round++) {
    for (const clip of plain) playClip(world, eid, clip), assertEquals(seen(), []);
    playClip(world, eid, marked);
    assertEquals(seen(), ["mark"]);
  }
});
