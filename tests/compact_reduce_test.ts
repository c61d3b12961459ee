/**
 * The key reduction of LINEAR vector channels (`animation/_reduce.ts`),
 * checked at their candidates only (between two, the error is linear):
 * kept keys interpolated as the sampler does stay within the tolerance of
 * the exact curve at every time, not only at the candidates.
 */
import { assert, assertLessOrEqual } from "@std/assert";
import { createClip } from "../mod.ts";
import { sampleChannel } from "../animation/clip.ts";
import { reduceChannel } from "../animation/_reduce.ts";
import { keepKeys, plainKeysAtLeast } from "../animation/_greedy_keys.ts";
import { BuildWork } from "../animation/_build_work.ts";
import { TRACK_RAW } from "../simd/wasm/assembly/abi.ts";
import { random } from "./_scene.ts";

/** Largest distance, at `samples` times, between the reduced track (float keys, lerped) and the channel. */
function worstError(seed: number, tolerance: number) {
  const next = random(seed), keys = 40;
  const times = Float32Array.from({ length: keys }, (_, k) => k * 0.5);
  // A zigzag (straight runs, a knee every 8 keys) with noise within the
  // tolerance: the runs keep few keys.
  const values = Float32Array.from({ length: keys * 3 }, (_, i) => {
    const k = Math.floor(i / 3), straight = [k * 0.1, Math.abs((k % 16) - 8) * 0.05, 0][i % 3];
    return straight + (next() - 0.5) * 0.2 * tolerance;
  });
  const channel = createClip({
    name: "vector",
    channels: [{ joint: 0, path: "translation", interpolation: "LINEAR", times, values }],
  }).channels[0];
  const reduced = reduceChannel(channel, tolerance);
  assert("keys" in reduced && reduced.keys.format === TRACK_RAW, "float keys at this tolerance");
  const kept = reduced.keys.times;
  const floats = new Float32Array(reduced.keys.bytes.slice().buffer);
  const exact = new Float64Array(3);
  let worst = 0, k = 0;
  for (let s = 0; s <= 4000; s++) {
    const t = times[0] + ((times[keys - 1] - times[0]) * s) / 4000;
    while (k + 2 < kept.length && t >= kept[k + 1]) k++;
    const u = (t - kept[k]) / (kept[k + 1] - kept[k]);
    sampleChannel(channel, t, exact);
    let d = 0;
    for (let c = 0; c < 3; c++) {
      const lerp = floats[k * 3 + c] + (floats[k * 3 + 3 + c] - floats[k * 3 + c]) * u;
      d += (lerp - exact[c]) ** 2;
    }
    worst = Math.max(worst, Math.sqrt(d));
  }
  return worst;
}

Deno.test("LINEAR vector reduction: kept keys stay within the tolerance between candidates", () => {
  for (let seed = 1; seed <= 10; seed++) {
    const tolerance = 5e-5;
    // Float32 keys and times: a few roundings of values about 1.
    assertLessOrEqual(worstError(seed, tolerance), tolerance + 1e-6, `seed ${seed}`);
  }
});

Deno.test("rotation reduction: plain nlerp keeps at least the count that skips its pass", () => {
  let wide = 0;
  for (let seed = 1; seed <= 30; seed++) {
    const next = random(seed), keys = 3 + Math.floor(next() * 8);
    // Turns of up to a radian a key about an axis that drifts.
    const values = new Float32Array(keys * 4);
    let angle = 0;
    const axis = [next() - 0.5, next() - 0.5, next() - 0.5];
    for (let k = 0; k < keys; k++) {
      angle += next() * 0.5;
      axis[k % 3] += (next() - 0.5) * 0.3;
      const l = Math.hypot(...axis), s = Math.sin(angle) / l;
      values.set([axis[0] * s, axis[1] * s, axis[2] * s, Math.cos(angle)], k * 4);
    }
    const times = Float32Array.from({ length: keys }, (_, k) => k);
    const channel = createClip({
      name: "turn",
      channels: [{ joint: 0, path: "rotation", interpolation: "LINEAR", times, values }],
    }).channels[0];
    // The plain greedy pass on 64 candidates a key interval, float keys.
    const parts = 64, m = (keys - 1) * parts + 1;
    const candidates = Float64Array.from({ length: m }, (_, i) => i / parts);
    const exact = new Float64Array(m * 4), halfway = new Float64Array((m - 1) * 4);
    const value = new Float64Array(4);
    for (let i = 0; i < m; i++) {
      sampleChannel(channel, candidates[i], value);
      exact.set(value, i * 4);
      if (i + 1 < m) {
        sampleChannel(channel, (candidates[i] + candidates[i + 1]) / 2, value);
        halfway.set(value, i * 4);
      }
    }
    const tolerance = 10 ** -(3 + next() * 3);
    const work = new BuildWork(Infinity);
    const kept = keepKeys(
      candidates,
      exact,
      halfway,
      new Float32Array(exact),
      4,
      tolerance,
      work,
      false,
      Infinity,
    )!;
    const bound = plainKeysAtLeast(channel, tolerance);
    if (bound > 2) wide++;
    assertLessOrEqual(bound, kept.length, `seed ${seed}`);
  }
  assert(wide >= 10, `${wide} channels of keys inside their intervals`);
});

Deno.test("LINEAR vector reduction: the kept keys are sampleChannel's values there, signed zeros too", () => {
  const next = random(7);
  let kept = 0;
  for (let trial = 0; trial < 200; trial++) {
    const keys = 2 + Math.floor(next() * 6);
    const times = Float32Array.from({ length: keys }, (_, k) => k * 0.25 + next() * 0.1);
    // Signed zeros beside other values: sampleChannel lerps a key's value
    // with its next key's at weight 0, and -0 + 0 is 0.
    const values = Float32Array.from(
      { length: keys * 3 },
      () => [0, -0, next() - 0.5][Math.floor(next() * 3)],
    );
    const channel = createClip({
      name: "zeros",
      channels: [{ joint: 0, path: "translation", interpolation: "LINEAR", times, values }],
    }).channels[0];
    // At tolerance 0 the keys mostly stay floats, every key that bends the curve kept.
    const reduced = reduceChannel(channel, 0);
    if (!("keys" in reduced) || reduced.keys.format !== TRACK_RAW) continue;
    const floats = new Float32Array(reduced.keys.bytes.slice().buffer), exact = new Float64Array(3);
    reduced.keys.times.forEach((t, k) => {
      sampleChannel(channel, t, exact);
      for (let c = 0; c < 3; c++) {
        assert(Object.is(floats[k * 3 + c], Math.fround(exact[c])), `trial ${trial}, key ${k}`);
      }
      kept++;
    });
  }
  assert(kept > 400, `${kept} keys checked`);
});
