// Hostile use of the layer, IK, compact clip and worker pool APIs: each attack ends in a
// typed error naming what was wrong (nothing written) or in correct output.
import { assert, assertEquals, assertRejects, assertThrows } from "@std/assert";
import { removeEntity } from "bitecs";
import {
  addCharacter,
  type Clip,
  ClipError,
  createAnimationPipeline,
  createClip,
  crossFadeTo,
  disposeAnimation,
  getPlayback,
  getPose,
  playClip,
  removeSkeleton,
  sampleClipsSystem,
  SkeletonAsset,
} from "../mod.ts";
import {
  addLayer,
  addLocomotionLayer,
  getLayers,
  jointMask,
  removeLayer,
  setLayerWeight,
} from "../layers.ts";
import { addAimIK, addTwoBoneIK, IKError, setIKTarget, updateIKChain } from "../ik.ts";
import {
  compactClip,
  disposeClip,
  enableRootMotion,
  getCrossedMarkers,
  MAX_HITS_PER_PLAYBACK,
  setClipMarkers,
} from "../clips.ts";
import { createWorkerPool } from "../kernels.ts";
import { createCylinder } from "../procedural/cylinder.ts";
import { createScene, wander } from "./_scene.ts";

const finite = (pose: ArrayLike<number>) => Array.from(pose).every(Number.isFinite);

Deno.test("hostile: compactClip of a clip animating a joint the skeleton does not have is a typed error", () => {
  const { skeleton } = createScene("simd", 0);
  const clip = createClip({
    name: "far",
    channels: [{
      joint: skeleton.jointCount + 1,
      path: "translation",
      interpolation: "LINEAR",
      times: Float32Array.of(0, 1),
      values: Float32Array.of(0, 0, 0, 1, 1, 1),
    }],
  });
  const error = assertThrows(() => compactClip(clip, skeleton), ClipError);
  assert(/"far" channel 0.*joint/.test(error.message), error.message);
  const far = createClip({
    name: "farther",
    channels: [{
      joint: 1000,
      path: "rotation",
      interpolation: "STEP",
      times: Float32Array.of(0),
      values: Float32Array.of(0, 0, 0, 1),
    }],
  });
  const error2 = assertThrows(() => compactClip(far, skeleton), ClipError);
  assert(/channel 0.*joint 1000/.test(error2.message), error2.message);
});

Deno.test("hostile: compactClip of an unvalidated clip object is a ClipError", () => {
  const { skeleton } = createScene("simd", 0);
  const clip = {
    name: "raw",
    animation: 0,
    start: 0,
    duration: 1,
    channels: [{
      joint: 1,
      path: "translation",
      interpolation: "LINEAR",
      times: Float32Array.of(1, 0),
      values: Float32Array.of(0, 0, 0, NaN, 1, 1),
      node: 1,
    }],
  } as unknown as Clip;
  assertThrows(() => compactClip(clip, skeleton), ClipError);
});

Deno.test("hostile: compactClip on a disposed skeleton is a typed error", () => {
  const core = createScene("simd", 0).core;
  const skeleton = new SkeletonAsset(createCylinder({ joints: 4 }).skeleton, core);
  skeleton[Symbol.dispose]();
  assertThrows(() => compactClip(wander("w", 1), skeleton), TypeError);
});

Deno.test("hostile: compactClip tolerances of 0, -1, NaN, Infinity", () => {
  const { skeleton } = createScene("simd", 0);
  for (const tolerance of [-1, NaN, Infinity, -Infinity]) {
    assertThrows(() => compactClip(wander("t", 2), skeleton, { tolerance }), RangeError);
    assertThrows(
      () => compactClip(wander("v", 2), skeleton, { virtualDistance: tolerance }),
      RangeError,
    );
  }
  const exact = compactClip(wander("zero", 3), skeleton, { tolerance: 0 });
  assert(exact.maxError >= 0);
});

Deno.test("hostile: extreme hand-made clips: beyond 1e18 refused, denormals and 1e18 leave the neighbour alone", () => {
  const { world, entities: [eid, other] } = createScene("simd", 2);
  const channel = (values: Float32Array) => ({
    joint: 1,
    path: "translation" as const,
    interpolation: "LINEAR" as const,
    times: Float32Array.of(0, 1e-7, 2e-7, 1),
    values,
  });
  const error = assertThrows(
    () => createClip({ name: "huge", channels: [channel(new Float32Array(12).fill(1e38))] }),
    ClipError,
  );
  assert(/channel 0 key 0/.test(error.message), error.message);
  const big = createClip({
    name: "big",
    channels: [
      channel(Float32Array.of(0, 0, 0, 1e18, -1e18, 1e-40, 1e-45, 0, 0, 1e18, 1e18, 1e18)),
    ],
  });
  playClip(world, other, wander("n", 4));
  sampleClipsSystem(world, 0);
  const neighbour = getPose(world, other).slice();
  playClip(world, eid, big, { time: 0.5 });
  for (const time of [0, 1e-7, 1.5e-7, 0.5, 1]) {
    playClip(world, eid, big, { time, wrap: "clamp" });
    sampleClipsSystem(world, 0);
    assertEquals(getPose(world, other), neighbour);
    assert(finite(getPose(world, eid)), `time ${time}`);
  }
});

Deno.test("hostile: layers with masks of another skeleton, bad weights and removeLayer mid-fade", () => {
  const { world, entities: [eid], skeleton } = createScene("simd", 1);
  const bigger = new SkeletonAsset(createCylinder({ joints: 9 }).skeleton, skeleton.core);
  playClip(world, eid, wander("base", 5));
  assertThrows(
    () => addLayer(world, eid, wander("l", 6), { mask: jointMask(bigger, {}) }),
    RangeError,
  );
  for (const weight of [NaN, -1, 2, Infinity]) {
    assertThrows(() => addLayer(world, eid, wander("l", 6), { weight }), RangeError);
  }
  assertEquals(getLayers(world, eid).length, 1);
  const layer = addLayer(world, eid, wander("l", 7));
  setLayerWeight(world, eid, layer, 0, 0.5);
  sampleClipsSystem(world, 0.1);
  removeLayer(world, eid, layer);
  sampleClipsSystem(world, 0.1);
  assert(finite(getPose(world, eid)));
  assertThrows(() => setLayerWeight(world, eid, layer, 1), RangeError);
});

Deno.test("hostile: a skeleton replaced by a bigger one drops layers and IK chains with it", () => {
  const { world, entities: [eid], skeleton } = createScene("simd", 1);
  const bigger = new SkeletonAsset(createCylinder({ joints: 12 }).skeleton, skeleton.core);
  playClip(world, eid, wander("base", 8));
  addLayer(world, eid, wander("l", 9, 2));
  addLocomotionLayer(world, eid, [{ clip: wander("a", 10), at: 0 }, {
    clip: wander("b", 11),
    at: 0,
  }]);
  addAimIK(world, eid, { joint: 3, target: [1, 1, 1] });
  enableRootMotion(world, eid, { joint: 1 });
  removeSkeleton(world, eid);
  addCharacter(world, eid, bigger);
  assertThrows(() => getLayers(world, eid));
  assertThrows(() => setIKTarget(world, eid, 0, [0, 0, 0]));
  playClip(world, eid, wander("after", 12, 10));
  const chain = addTwoBoneIK(world, eid, { start: 8, mid: 9, end: 10, target: [0, 5, 0] });
  assertEquals(chain, 0);
  createAnimationPipeline()(world, 1 / 60);
  assert(finite(getPose(world, eid)));
});

Deno.test("hostile: IK settings with throwing and changing getters change nothing", () => {
  const { world, entities: [eid] } = createScene("simd", 1);
  let calls = 0;
  const sly = {
    joint: 2,
    get target() {
      return calls++ === 0 ? [1, 2, 3] : [NaN, 0, 0];
    },
  };
  // Each setting is read once more after the check; the checked copy is what is stored.
  assertThrows(() => addAimIK(world, eid, sly as never), IKError, "target");
  assertThrows(() => setIKTarget(world, eid, 0, [0, 0, 0]), Error, "no IK");
  const chain = addAimIK(world, eid, { joint: 2, target: [1, 2, 3] });
  const thrower = {
    get weight(): number {
      throw new Error("boom");
    },
  };
  assertThrows(() => updateIKChain(world, eid, chain, thrower), Error, "boom");
  const target: [number, number, number] = [1, 1, 1];
  setIKTarget(world, eid, chain, target);
  target[0] = NaN;
  createAnimationPipeline()(world, 1 / 60);
  assert(finite(getPose(world, eid)));
  assertThrows(() => addAimIK(world, eid, { joint: "nope" }), IKError);
  assertThrows(() => addAimIK(world, eid, { joint: 99 }), IKError);
  playClip(world, eid, wander("r", 2));
  assertThrows(() => enableRootMotion(world, eid, { joint: "nope" }), RangeError, "nope");
  assertThrows(() => enableRootMotion(world, eid, { joint: 1e9 }), RangeError);
  removeEntity(world, eid);
});

Deno.test("hostile: markers on a zero-duration clip, locomotion on one clip or duplicate points", () => {
  const { world, entities: [eid] } = createScene("simd", 1);
  const still = createClip({
    name: "still",
    channels: [{
      joint: 1,
      path: "translation",
      interpolation: "STEP",
      times: Float32Array.of(0),
      values: Float32Array.of(0, 1, 0),
    }],
  });
  setClipMarkers(still, [{ name: "a", time: 0 }]);
  assertThrows(() => setClipMarkers(still, [{ name: "b", time: 1e-9 }]), RangeError);
  playClip(world, eid, still, { speed: 1e30 });
  addLocomotionLayer(world, eid, [{ clip: still, at: 1 }]);
  addLocomotionLayer(world, eid, [{ clip: still, at: 1 }, { clip: wander("w", 3), at: 1 }]);
  for (let i = 0; i < 3; i++) sampleClipsSystem(world, 1e30);
  assert(finite(getPose(world, eid)));
  disposeClip(still);
  sampleClipsSystem(world, 1 / 60);
  assert(finite(getPose(world, eid)));
});

Deno.test("hostile: worker pool options and a closed pool", async () => {
  for (const workers of [0, -1, 1e9, NaN, 1.5]) {
    await assertRejects(() => createWorkerPool({ workers }), RangeError);
  }
  const pool = await createWorkerPool({ workers: 2 });
  const a = createScene("simd", 2, undefined, undefined, pool.core);
  const b = createScene("simd", 2, undefined, undefined, pool.core);
  const animate = createAnimationPipeline({ pool });
  const plain = createAnimationPipeline();
  playClip(a.world, a.entities[0], wander("p", 1));
  playClip(b.world, b.entities[0], wander("p", 1));
  animate(a.world, 0.1);
  pool.close();
  animate(b.world, 0.1);
  plain(a.world, 0.1);
  assert(finite(getPose(a.world, a.entities[0])));
  pool[Symbol.dispose]();
});

Deno.test("hostile: layer times and fades driven to overflow keep every pose finite", () => {
  const { world, entities: [eid, other] } = createScene("simd", 2);
  playClip(world, other, wander("n", 4));
  const wanderClips: Record<number, Clip> = {
    5: wander("base", 5),
    6: wander("l", 6, 2),
    7: wander("a", 7),
    8: wander("b", 8),
  };
  playClip(world, eid, wanderClips[5], { speed: 1e30 });
  const layer = addLayer(world, eid, wanderClips[6], { speed: 1e30 });
  addLocomotionLayer(
    world,
    eid,
    [{ clip: wanderClips[7], at: 0 }, { clip: wanderClips[8], at: 1 }],
    {
      speed: 1e300,
      parameter: 0.5,
    },
  );
  for (const seed of [5, 6, 7, 8]) {
    setClipMarkers(wanderClips[seed], [{ name: "m", time: 0.1 }, { name: "n", time: 1.9 }]);
  }
  setLayerWeight(world, eid, layer, 0.5, 5e-324);
  sampleClipsSystem(world, 0);
  assert(finite(getPose(world, eid)), "a fade over a denormal time");
  sampleClipsSystem(world, 0);
  const neighbour = getPose(world, other).slice();
  for (let i = 0; i < 3; i++) {
    // The player's own time overflows float64: the clip starts over,
    // and the frame goes on for every entity.
    sampleClipsSystem(world, 1e300);
    assert(finite(getPose(world, eid)), `frame ${i}`);
    assert(Number.isFinite(getPlayback(world, eid).time), `frame ${i}: time`);
    assert(getCrossedMarkers(world, eid).length <= 4 * MAX_HITS_PER_PLAYBACK);
  }
  sampleClipsSystem(world, 0);
  assert(finite(getPose(world, eid)));
  assertEquals(getPose(world, other), neighbour);
});

Deno.test("hostile: a locomotion point whose position changes after its check is read once", () => {
  const { world, entities: [eid] } = createScene("simd", 1);
  playClip(world, eid, wander("base", 1));
  let reads = 0;
  const sly = {
    clip: wander("b", 3),
    get at() {
      return reads++ < 2 ? 1 : NaN;
    },
  };
  try {
    addLocomotionLayer(world, eid, [{ clip: wander("a", 2), at: 0 }, sly], { parameter: 0.5 });
  } catch (e) {
    assert(e instanceof RangeError && /points\[1\]\.at/.test(e.message), String(e));
  }
  sampleClipsSystem(world, 1 / 60);
  assert(finite(getPose(world, eid)));
});

Deno.test("hostile: after disposeAnimation every layer, IK and root motion call is a typed error", () => {
  const { world, entities: [eid], core } = createScene("simd", 1);
  const clip = wander("base", 1);
  playClip(world, eid, clip);
  addLayer(world, eid, wander("l", 2, 2), { mode: "additive" });
  addAimIK(world, eid, { joint: 2, target: [0, 1, 0] });
  enableRootMotion(world, eid);
  disposeAnimation(world);
  const calls: (() => unknown)[] = [
    () => addLayer(world, eid, clip),
    () => setLayerWeight(world, eid, 1, 0),
    () => removeLayer(world, eid, 1),
    () => getLayers(world, eid),
    () => setIKTarget(world, eid, 0, [0, 0, 0]),
    () => enableRootMotion(world, eid),
    () => sampleClipsSystem(world, 0),
  ];
  for (const call of calls) assertThrows(call, TypeError);
  // The core is whole: a new world on it animates.
  const again = createScene("simd", 1, undefined, undefined, core);
  playClip(again.world, again.entities[0], clip);
  createAnimationPipeline()(again.world, 1 / 60);
  assert(finite(getPose(again.world, again.entities[0])));
});

Deno.test("hostile: a speed beyond the 32-bit float range is refused, not stored as Infinity; a time is float64", () => {
  const { world, entities: [eid, other] } = createScene("simd", 2);
  playClip(world, other, wander("n", 1));
  for (const bad of [1e300, -1e39]) {
    assertThrows(
      () => playClip(world, eid, wander("s", 2), { speed: bad }),
      RangeError,
      `entity ${eid}`,
    );
    // Times are float64 from the store to the kernel: any finite one plays.
    playClip(world, eid, wander("t", 2), { time: bad });
    assertEquals(getPlayback(world, eid).time, bad);
    assertThrows(
      () => playClip(world, eid, wander("t", 2), { time: Infinity }),
      RangeError,
      "time",
    );
    assertThrows(() => crossFadeTo(world, other, wander("c", 3), 0.5, { speed: bad }), RangeError);
  }
  sampleClipsSystem(world, 1 / 60);
  assert(finite(getPose(world, other)));
  assert(finite(getPose(world, eid)));
});

Deno.test("hostile: IK targets near the float range and denormal keep the pose finite", () => {
  for (const t of [3e38, 1e20, 1e-40]) {
    const { world, entities: [eid] } = createScene("simd", 1);
    playClip(world, eid, wander("w", 1));
    addAimIK(world, eid, { joint: 2, target: [t, t, -t] });
    addTwoBoneIK(world, eid, {
      start: 1,
      mid: 2,
      end: 3,
      target: [t, -t, t],
      poleVector: [t, t, t],
    });
    createAnimationPipeline()(world, 1 / 60);
    assert(finite(getPose(world, eid)), `target ${t}`);
  }
});

Deno.test("hostile: compact clips sample the same after the core grows under them", () => {
  const { world, entities: [eid], core } = createScene("simd", 1);
  const clip = wander("grow", 9);
  playClip(world, eid, clip, { time: 0.3 });
  addLayer(world, eid, wander("l", 10, 2), { time: 0.7, weight: 0.5 });
  sampleClipsSystem(world, 0);
  const before = getPose(world, eid).slice();
  const pages = core.byteLength;
  const big = Array.from(
    { length: 8 },
    () => new SkeletonAsset(createCylinder({ joints: 2000 }).skeleton, core),
  );
  assert(core.byteLength > pages, "the core grew");
  sampleClipsSystem(world, 0);
  assertEquals(getPose(world, eid), before);
  for (const s of big) s[Symbol.dispose]();
});
