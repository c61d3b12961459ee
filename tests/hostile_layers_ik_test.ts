// Hostile use of the layer and IK APIs (and of them after their skeleton or the animation is
// gone): each attack ends in a typed error naming what was wrong (nothing written) or in
// correct output.

import { assert, assertEquals, assertThrows } from "@std/assert";
import { removeEntity } from "bitecs";
import {
  addCharacter,
  type Clip,
  createAnimationPipeline,
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
  enableRootMotion,
  getCrossedMarkers,
  MAX_HITS_PER_PLAYBACK,
  setClipMarkers,
} from "../clips.ts";
import { createCylinder } from "../procedural/cylinder.ts";
import { createScene, finite, wander } from "./_scene.ts";

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
