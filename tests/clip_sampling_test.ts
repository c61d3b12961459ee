/**
 * Clip sampling: every clip of every shared asset against three.js'
 * AnimationMixer (skinned vertices, normals and joint transforms) at times
 * before, inside and after the clip; synthetic STEP, LINEAR and
 * CUBICSPLINE clips against three.js and against the formulas; time
 * wrapping and pose blending.
 */

import { assert, assertAlmostEquals, assertEquals, assertGreater, assertLess } from "@std/assert";
import { quat } from "gl-matrix";
import * as THREE from "three";
import { importGltf, parseGltf } from "../gltf/import.ts";
import {
  type Clip,
  type ClipChannel,
  sampleChannel,
  sampleClip,
  wrapTime,
} from "../animation/clip.ts";
import { PoseField, poseFloats, poseIndex } from "../simd/memory/layout.ts";
import {
  assetUrl,
  listAssets,
  loadThree,
  poseThree,
  readAsset,
  testOnModels,
} from "./_three_gltf.ts";
import { compareModel, comparePoses, marrowPalette, marrowSkin } from "./_gltf_compare.ts";
import { syntheticRig, writeGlb } from "./_gltf_rig.ts";

/** Position tolerance, relative to the bounding-box diagonal. */
const RELATIVE_TOLERANCE = 1e-4;
/** Tolerance on unit normals and tangents. */
const DIRECTION_TOLERANCE = 1e-4;

/** Times to sample a clip at: before, at and after its ends, and inside. */
function sampleTimes(clip: Clip): number[] {
  const { start, duration } = clip;
  const times = [-0.5, start, duration, duration + 0.5];
  if (start > 0) times.push(start / 2);
  for (const f of [0.13, 0.5, 0.77]) times.push(start + f * (duration - start));
  return times;
}

for (const file of listAssets()) {
  testOnModels([file], `${file}: every clip matches three.js`, async () => {
    const model = await importGltf(assetUrl(file));
    const three = await loadThree(readAsset(file));
    const clips = model.skeletons[0].clips;
    assertEquals(
      three.gltf.animations.map((a: THREE.AnimationClip) => a.name),
      // GLTFLoader names unnamed animations; Marrow keeps the file's name.
      clips.map((c, i) => c.name || `animation_${i}`),
    );
    // Marrow's clip range is three.js' clip duration.
    three.gltf.animations.forEach((a: THREE.AnimationClip, i: number) =>
      assertAlmostEquals(clips[i].duration, a.duration, 1e-6)
    );
    let worst = 0, worstNormal = 0, worstAt = "", moved = 0;
    let poses = 0;
    for (let c = 0; c < clips.length; c++) {
      for (const time of sampleTimes(clips[c])) {
        poseThree(three, c, time);
        const r = compareModel(model, three, c, time);
        const relative = r.maxPosition / r.bboxDiagonal;
        const where = `clip ${c} ("${clips[c].name}") t=${time}: ${r.worst}`;
        assertLess(relative, RELATIVE_TOLERANCE, where);
        assertLess(r.maxNormal, DIRECTION_TOLERANCE, where);
        const p = comparePoses(model, three, c, time, r.bboxDiagonal);
        assertLess(p.translation, 1e-5, where);
        assertLess(p.rotation, 1e-5, where);
        assertLess(p.scale, 1e-5, where);
        if (relative > worst) worst = relative, worstAt = where;
        worstNormal = Math.max(worstNormal, r.maxNormal);
        poses++;
        moved = Math.max(moved, displacement(model, c, time) / r.bboxDiagonal);
      }
    }
    // The comparison must not be vacuous: the clips move the mesh.
    assertGreater(moved, 0.01);
    console.log(
      `  ${file}: ${clips.length} clips, ${poses} poses, max error ` +
        `${worst.toExponential(2)} x bbox (${worstAt}), normals ` +
        `${worstNormal.toExponential(2)}`,
    );
  });
}

/** Largest vertex movement of a pose from the rest pose. */
function displacement(
  model: Awaited<ReturnType<typeof importGltf>>,
  clip: number,
  time: number,
): number {
  let max = 0;
  for (const s of model.skeletons) {
    const rest = marrowPalette(s, null, 0).palette;
    const posed = marrowPalette(s, clip, time).palette;
    for (const p of s.primitives) {
      const a = marrowSkin(p.skin, rest).positions;
      const b = marrowSkin(p.skin, posed).positions;
      for (let i = 0; i < a.length; i++) {
        max = Math.max(max, Math.abs(a[i] - b[i]));
      }
    }
  }
  return max;
}

for (const interpolation of ["STEP", "LINEAR", "CUBICSPLINE"] as const) {
  Deno.test(`synthetic ${interpolation} clip matches three.js`, async () => {
    const bytes = await writeGlb(
      syntheticRig({ interpolation, shareSkin: true, tangents: true }),
    );
    const model = await parseGltf(bytes);
    const three = await loadThree(bytes);
    const clip = model.skeletons[0].clips[0];
    assertEquals(clip.start, 0.25);
    assertEquals(clip.duration, 2);
    assert(clip.channels.every((c) => c.interpolation === interpolation));
    // Keys, around keys, between keys, and outside.
    const times = [-1, 0, 0.25, 0.2500001, 0.5, 0.75, 0.7499, 0.9, 1.1, 1.6];
    times.push(1.99, 2, 2.5);
    for (const time of times) {
      poseThree(three, 0, time);
      const r = compareModel(model, three, 0, time);
      assertLess(r.maxPosition / r.bboxDiagonal, RELATIVE_TOLERANCE);
      assertLess(r.maxNormal, DIRECTION_TOLERANCE);
      assertLess(r.maxTangent, DIRECTION_TOLERANCE);
      const p = comparePoses(model, three, 0, time, r.bboxDiagonal);
      assertLess(p.translation, 1e-6, `t=${time}`);
      assertLess(p.rotation, 1e-6, `t=${time}`);
      assertLess(p.scale, 1e-6, `t=${time}`);
    }
  });
}

/** A channel of the synthetic rig's clip. */
async function rigChannel(
  interpolation: "STEP" | "LINEAR" | "CUBICSPLINE",
  joint: string,
  path: ClipChannel["path"],
): Promise<ClipChannel> {
  const model = await parseGltf(
    await writeGlb(syntheticRig({ interpolation })),
  );
  const s = model.skeletons[0];
  const j = s.skeleton.names.indexOf(joint);
  const channel = s.clips[0].channels.find((c) => c.joint === j && c.path === path);
  assert(channel, `${joint} ${path}`);
  return channel;
}

function sample(channel: ClipChannel, time: number): number[] {
  const out = [0, 0, 0, 0];
  sampleChannel(channel, time, out);
  return channel.path === "rotation" ? out : out.slice(0, 3);
}

function assertClose(a: number[], b: number[], tolerance: number): void {
  assertEquals(a.length, b.length);
  a.forEach((x, i) => assertAlmostEquals(x, b[i], tolerance, `[${a}] vs [${b}]`));
}

Deno.test("STEP holds each key until the next, clamps outside", async () => {
  const ch = await rigChannel("STEP", "arm", "translation");
  const key = (i: number) => Array.from(ch.values.subarray(i * 3, i * 3 + 3));
  assertEquals(sample(ch, -3), key(0));
  assertEquals(sample(ch, 0.25), key(0));
  assertEquals(sample(ch, 0.7499), key(0));
  assertEquals(sample(ch, 0.75), key(1));
  assertEquals(sample(ch, 1.99), key(2));
  assertEquals(sample(ch, 2), key(3));
  assertEquals(sample(ch, 50), key(3));
});

Deno.test("LINEAR: lerp for vectors, slerp (as gl-matrix) for rotations", async () => {
  const ch = await rigChannel("LINEAR", "arm", "translation");
  const key = (i: number) => Array.from(ch.values.subarray(i * 3, i * 3 + 3));
  const u = (0.9 - 0.75) / (1.1 - 0.75);
  assertClose(
    sample(ch, 0.9),
    key(1).map((a, i) => a + (key(2)[i] - a) * u),
    1e-6,
  );
  assertEquals(sample(ch, 0.75), key(1));
  for (const joint of ["spine", "helper", "Armature", "head"]) {
    const rot = await rigChannel("LINEAR", joint, "rotation");
    for (let k = 0; k + 1 < rot.times.length; k++) {
      const a = rot.values.subarray(k * 4, k * 4 + 4);
      const b = rot.values.subarray(k * 4 + 4, k * 4 + 8);
      for (const f of [0, 0.1, 0.5, 0.9]) {
        const t = rot.times[k] + f * (rot.times[k + 1] - rot.times[k]);
        const expected = quat.slerp(quat.create(), a, b, f);
        const got = sample(rot, t);
        // Both take the shortest arc; gl-matrix lerps only below 1e-6.
        const sign = quat.dot(expected, got) < 0 ? -1 : 1;
        assertClose(got, Array.from(expected, (x) => x * sign), 2e-6);
      }
    }
  }
});

Deno.test("CUBICSPLINE: glTF Hermite spline, rotations normalized", async () => {
  for (const path of ["translation", "rotation"] as const) {
    const ch = await rigChannel(
      "CUBICSPLINE",
      path === "rotation" ? "spine" : "arm",
      path,
    );
    const n = path === "rotation" ? 4 : 3;
    // Each key is (in-tangent, value, out-tangent).
    const part = (k: number, which: 0 | 1 | 2) =>
      Array.from(
        ch.values.subarray((k * 3 + which) * n, (k * 3 + which + 1) * n),
      );
    const normalized = (v: number[]) => {
      const len = Math.hypot(...v);
      return n === 4 ? v.map((x) => x / len) : v;
    };
    for (let k = 0; k < ch.times.length; k++) {
      assertClose(sample(ch, ch.times[k]), part(k, 1), 1e-6);
    }
    assertClose(sample(ch, -1), part(0, 1), 0);
    assertClose(sample(ch, 9), part(ch.times.length - 1, 1), 0);
    for (let k = 0; k + 1 < ch.times.length; k++) {
      const t0 = ch.times[k], t1 = ch.times[k + 1], dt = t1 - t0;
      for (const s of [0.2, 0.5, 0.8]) {
        const p0 = part(k, 1), m0 = part(k, 2);
        const p1 = part(k + 1, 1), m1 = part(k + 1, 0);
        const expected = p0.map((_, i) =>
          (2 * s ** 3 - 3 * s ** 2 + 1) * p0[i] +
          (s ** 3 - 2 * s ** 2 + s) * dt * m0[i] +
          (-2 * s ** 3 + 3 * s ** 2) * p1[i] +
          (s ** 3 - s ** 2) * dt * m1[i]
        );
        assertClose(sample(ch, t0 + s * dt), normalized(expected), 1e-5);
      }
    }
  }
});

Deno.test("sampleClip writes only animated fields", async () => {
  const model = await parseGltf(await writeGlb(syntheticRig()));
  const s = model.skeletons[0];
  const n = s.skeleton.parents.length;
  const pose = new Float32Array(poseFloats(n)).fill(42);
  sampleClip(s.clips[0], 1, pose);
  const animated = new Set<string>();
  for (const c of s.clips[0].channels) {
    const fields = c.path === "translation"
      ? [PoseField.TX, PoseField.TY, PoseField.TZ]
      : c.path === "rotation"
      ? [PoseField.QX, PoseField.QY, PoseField.QZ, PoseField.QW]
      : [PoseField.SX, PoseField.SY, PoseField.SZ];
    for (const f of fields) animated.add(`${c.joint}/${f}`);
  }
  for (let j = 0; j < n; j++) {
    for (let f = 0; f < 10; f++) {
      const v = pose[poseIndex(j, f as PoseField)];
      if (animated.has(`${j}/${f}`)) assert(v !== 42, `joint ${j} field ${f}`);
      else assertEquals(v, 42);
    }
  }
  // Padding lanes are never touched.
  for (let j = n; j < Math.ceil(n / 4) * 4; j++) {
    assertEquals(pose[poseIndex(j, PoseField.QW)], 42);
  }
});

Deno.test("morph-target weights channels are no joint channels but set the duration", async () => {
  const bytes = await writeGlb(syntheticRig({ morph: true }));
  const model = await parseGltf(bytes);
  const clip = model.skeletons[0].clips[0];
  assertEquals(clip.duration, 3);
  assertEquals(clip.start, 0);
  assertEquals(clip.channels.length, 6);
  assertEquals(clip.morphChannels?.map((c) => c.targetCount), [1]);
  const three = await loadThree(bytes);
  assertEquals(three.gltf.animations[0].duration, 3);
  poseThree(three, 0, 2.5);
  const r = compareModel(model, three, 0, 2.5);
  assertLess(r.maxPosition / r.bboxDiagonal, RELATIVE_TOLERANCE);
});

Deno.test("wrapTime loops and clamps as three.js actions do", () => {
  assertEquals(wrapTime(-1, 2, "clamp"), 0);
  assertEquals(wrapTime(1.5, 2, "clamp"), 1.5);
  assertEquals(wrapTime(7, 2, "clamp"), 2);
  assertEquals(wrapTime(5, 2, "loop"), 1);
  assertEquals(wrapTime(-0.5, 2, "loop"), 1.5);
  assertEquals(wrapTime(4, 2, "loop"), 0);
  assertEquals(wrapTime(3, 0, "loop"), 0);
  assertEquals(wrapTime(3, 0, "clamp"), 0);
  const clip = new THREE.AnimationClip("c", 2.5, [
    new THREE.VectorKeyframeTrack(".position", [0, 2.5], [0, 0, 0, 1, 1, 1]),
  ]);
  const mixer = new THREE.AnimationMixer(new THREE.Object3D());
  for (
    const [mode, loop] of [["loop", THREE.LoopRepeat], [
      "clamp",
      THREE.LoopOnce,
    ]] as const
  ) {
    const action = mixer.clipAction(clip).setLoop(loop, Infinity);
    action.clampWhenFinished = true;
    for (const time of [0.3, 2.4, 3.1, 7.77, 12.6]) {
      action.reset().play();
      mixer.setTime(time);
      assertAlmostEquals(
        wrapTime(time, 2.5, mode),
        action.time,
        1e-9,
        `${mode} ${time}`,
      );
    }
    action.stop();
  }
});

Deno.test("skinned positions of a sampled synthetic clip move smoothly", async () => {
  // Guards against sampling at the wrong key: LINEAR vertices at nearby
  // times stay close, while STEP vertices jump at a key.
  const model = await parseGltf(await writeGlb(syntheticRig()));
  const s = model.skeletons[0];
  const at = (t: number) =>
    marrowSkin(s.primitives[0].skin, marrowPalette(s, 0, t).palette).positions;
  const a = at(0.9), b = at(0.9001);
  let max = 0;
  for (let i = 0; i < a.length; i++) max = Math.max(max, Math.abs(a[i] - b[i]));
  assertLess(max, 1e-2);
  assertGreater(max, 0);
});
