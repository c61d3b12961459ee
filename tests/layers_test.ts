import "../scalar.ts";
import { assertAlmostEquals, assertEquals, assertLess, assertThrows } from "@std/assert";
import { addEntity, removeComponent, removeEntity, resetWorld } from "bitecs";
import {
  addCharacter,
  type Clip,
  ComponentError,
  crossFadeTo,
  disposeAnimation,
  getPose,
  playClip,
  removeClipPlayer,
  sampleClipsSystem,
} from "../mod.ts";
import {
  addLayer,
  addLocomotionLayer,
  getLayers,
  jointMask,
  removeLayer,
  setBlendThreshold,
  setLayerMask,
  setLayerTime,
  setLayerWeight,
  setLocomotionParameter,
} from "../layers.ts";
import { enableRootMotion, getCrossedMarkers, getRootMotion, setClipMarkers } from "../clips.ts";
import { PoseField, poseIndex } from "../kernels.ts";
import { blendPoses } from "../simd/scalar/mod.ts";
import { coreMemory } from "../simd/memory/_instance.ts";
import { stateOf } from "../components/_lifecycle.ts";
import { BUILDS, createScene, maxDifference } from "./_scene.ts";

/** Joint `joint` turns about z from 0 to `to` over one second, and moves along x by `dx`. */
function turn(name: string, to: number, joint = 1, dx = 4, duration = 1): Clip {
  const s = Math.sin(to / 2), c = Math.cos(to / 2);
  return {
    name,
    animation: 0,
    start: 0,
    duration,
    channels: [
      {
        joint,
        path: "rotation",
        interpolation: "LINEAR",
        times: Float32Array.from([0, duration]),
        values: Float32Array.from([0, 0, 0, 1, 0, 0, s, c]),
        node: joint,
      },
      {
        joint: joint + 1,
        path: "translation",
        interpolation: "LINEAR",
        times: Float32Array.from([0, duration]),
        values: Float32Array.from([0, 0, 0, dx, 0, 0]),
        node: joint + 1,
      },
    ],
  };
}

const field = (pose: Float32Array, joint: number, f: PoseField) => pose[poseIndex(joint, f)];

for (const build of BUILDS) {
  Deno.test(`layers (${build}): blend layers blend by weight share, per joint`, () => {
    const { world, entities, skeleton } = createScene(build, 1);
    const [eid] = entities;
    const a = turn("a", Math.PI / 2), b = turn("b", -Math.PI / 2, 1, -4);
    playClip(world, eid, a, { time: 0.5, wrap: "clamp" });
    sampleClipsSystem(world, 0);
    const poseA = getPose(world, eid).slice();
    playClip(world, eid, b, { time: 0.5, wrap: "clamp" });
    sampleClipsSystem(world, 0);
    const poseB = getPose(world, eid).slice();
    playClip(world, eid, a, { time: 0.5, wrap: "clamp" });
    assertEquals(
      addLayer(world, eid, b, { time: 0.5, wrap: "clamp", weight: 0.6, mode: "blend" }),
      1,
    );
    setLayerWeight(world, eid, 0, 0.2);
    sampleClipsSystem(world, 0);
    const expected = new Float32Array(poseA.length);
    blendPoses(poseA, poseB, expected, skeleton.jointCount, 0.6 / 0.8);
    assertLess(maxDifference(getPose(world, eid), expected), 2e-6);
    // A mask keeps layer 1 off joint 2: joint 2 is layer 0's alone, joint 1 still blends.
    const mask = new Float32Array(skeleton.jointCount).fill(1);
    mask[2] = 0;
    setLayerMask(world, eid, 1, mask);
    sampleClipsSystem(world, 0);
    const pose = getPose(world, eid);
    assertAlmostEquals(field(pose, 2, PoseField.TX), field(poseA, 2, PoseField.TX), 1e-6);
    assertAlmostEquals(field(pose, 1, PoseField.QZ), field(expected, 1, PoseField.QZ), 2e-6);
    // Below the threshold the rest pose fills in.
    setLayerWeight(world, eid, 0, 0);
    setLayerWeight(world, eid, 1, 0.25);
    setBlendThreshold(world, eid, 1);
    sampleClipsSystem(world, 0);
    blendPoses(skeleton.restPose, poseB, expected, skeleton.jointCount, 0.25);
    assertAlmostEquals(
      getPose(world, eid)[poseIndex(1, PoseField.QZ)],
      expected[poseIndex(1, PoseField.QZ)],
      2e-6,
    );
  });

  Deno.test(`layers (${build}): an additive layer adds its clip's change from its first frame`, () => {
    const { world, entities } = createScene(build, 1);
    const [eid] = entities;
    playClip(world, eid, turn("base", Math.PI / 4), { time: 1, wrap: "clamp" });
    addLayer(world, eid, turn("add", Math.PI / 4), { mode: "additive", time: 1, wrap: "clamp" });
    sampleClipsSystem(world, 0);
    const pose = getPose(world, eid);
    // 45° + 45° about z; x moves 4 + 4.
    assertAlmostEquals(field(pose, 1, PoseField.QZ), Math.SQRT1_2, 1e-6);
    assertAlmostEquals(field(pose, 2, PoseField.TX), 8, 1e-5);
    setLayerWeight(world, eid, 1, 0.5);
    sampleClipsSystem(world, 0);
    assertAlmostEquals(field(getPose(world, eid), 2, PoseField.TX), 6, 1e-5);
    // nlerp from the identity at 0.5 is exact: 45° + 22.5°.
    assertAlmostEquals(
      field(getPose(world, eid), 1, PoseField.QZ),
      Math.sin(3 * Math.PI / 16),
      1e-6,
    );
  });

  Deno.test(`layers (${build}): weights fade over time; the locomotion blend keeps phase`, () => {
    const { world, entities } = createScene(build, 1);
    const [eid] = entities;
    playClip(world, eid, turn("base", 0));
    const layer = addLayer(world, eid, turn("up", 1), { weight: 0 });
    setLayerWeight(world, eid, layer, 1, 2);
    sampleClipsSystem(world, 0.5);
    assertAlmostEquals(getLayers(world, eid)[layer].weight, 0.25, 1e-12);
    sampleClipsSystem(world, 10);
    assertEquals(getLayers(world, eid)[layer].weight, 1);
    removeLayer(world, eid, layer);
    // Walk (1 s cycle) and run (0.5 s cycle) at parameter 1.5 of [1, 2]: a 0.75 s cycle.
    const walk = turn("walk", 1, 1, 4, 1), run = turn("run", 1, 1, 8, 0.5);
    const loco = addLocomotionLayer(world, eid, [{ clip: walk, at: 1 }, { clip: run, at: 2 }], {
      parameter: 1.5,
    });
    setLayerWeight(world, eid, 0, 0);
    sampleClipsSystem(world, 0.375);
    assertAlmostEquals(getLayers(world, eid)[loco].time, 0.5, 1e-12);
    // Both at half their cycle: x = (2 + 4) / 2.
    assertAlmostEquals(field(getPose(world, eid), 2, PoseField.TX), 3, 1e-5);
    setLocomotionParameter(world, eid, loco, 2);
    sampleClipsSystem(world, 0.125);
    assertAlmostEquals(getLayers(world, eid)[loco].time, 0.75, 1e-12);
    assertAlmostEquals(field(getPose(world, eid), 2, PoseField.TX), 6, 1e-5);
  });
}

Deno.test("layers: bad input is a typed error naming entity and argument, and writes nothing", () => {
  const { world, entities, skeleton } = createScene("scalar", 1);
  const [eid] = entities;
  const clip = turn("a", 1);
  assertThrows(() => addLayer(world, eid, clip), ComponentError, "has no ClipPlayer");
  playClip(world, eid, clip);
  addLayer(world, eid, clip);
  sampleClipsSystem(world, 0.1);
  const before = getPose(world, eid).slice();
  const layers = getLayers(world, eid);
  assertThrows(
    () => setLayerWeight(world, eid, 5, 1),
    RangeError,
    `entity ${eid}: setLayerWeight: layer: no layer 5`,
  );
  assertThrows(
    () => setLayerWeight(world, eid, 1, NaN),
    RangeError,
    "weight: expected a number in [0, 1], got NaN",
  );
  assertThrows(() => setLayerWeight(world, eid, 1, 1, -1), RangeError, "fadeSeconds");
  assertThrows(
    () => setLayerMask(world, eid, 1, new Float32Array(3)),
    RangeError,
    `entity ${eid}: setLayerMask: mask: expected ${skeleton.jointCount} weights`,
  );
  assertThrows(() => setLayerMask(world, eid, 1, [1, 1, NaN, 1, 1, 1]), RangeError, "mask[2]");
  assertThrows(() => addLayer(world, eid, clip, { weight: 2 }), RangeError, "addLayer: weight");
  assertThrows(() => addLayer(world, eid, clip, { mode: "x" as "additive" }), RangeError, "mode");
  assertThrows(
    () => addLayer(world, eid, clip, { mode: "additive", reference: new Float32Array(2) }),
    RangeError,
    "reference",
  );
  assertThrows(() => removeLayer(world, eid, 0), RangeError, "layer 0 is the ClipPlayer's");
  assertThrows(() => setBlendThreshold(world, eid, 0), RangeError, "threshold");
  assertThrows(() => jointMask(skeleton, { subtree: "nope" }), RangeError, 'no joint "nope"');
  assertEquals(getLayers(world, eid), layers);
  assertEquals(getPose(world, eid), before);
});

Deno.test("layers: a refused layer call on an entity without layers makes no layer stack", () => {
  const { world, entities: [eid], core } = createScene("scalar", 1);
  const clip = turn("a", 1);
  playClip(world, eid, clip);
  const unplayable = { ...clip, channels: [{ ...clip.channels[0], joint: 99 }] };
  const memory = coreMemory(core), resources = stateOf(world, "test").resources;
  const refusals: [string, () => unknown][] = [
    ["addLayer (a clip for another skeleton)", () => addLayer(world, eid, unplayable)],
    [
      "addLocomotionLayer (its second clip for another skeleton)",
      () => addLocomotionLayer(world, eid, [{ clip, at: 0 }, { clip: unplayable, at: 1 }]),
    ],
    ["setLayerWeight (layer 0, bad weight)", () => setLayerWeight(world, eid, 0, 2)],
    ["setLayerWeight (layer 3)", () => setLayerWeight(world, eid, 3, 1)],
    ["setLayerMask (layer 0, bad mask)", () => setLayerMask(world, eid, 0, [NaN])],
    ["setLayerTime (layer 0)", () => setLayerTime(world, eid, 0, 1)],
    ["setLocomotionParameter (layer 0)", () => setLocomotionParameter(world, eid, 0, 1)],
    ["removeLayer (layer 0)", () => removeLayer(world, eid, 0)],
  ];
  for (const [name, refused] of refusals) {
    const allocated = memory.allocatedBytes;
    assertThrows(refused, Error, undefined, name);
    assertEquals(memory.allocatedBytes, allocated, `${name}: core bytes`);
    // While no entity has a stack, the sampling system reads no player's layers.
    assertEquals(resources.layerStacks, 0, `${name}: layer stacks`);
    assertEquals(getLayers(world, eid).length, 1, `${name}: layers`);
  }
  // Accepted, the same calls make the stack.
  setLayerWeight(world, eid, 0, 0.5);
  assertEquals(resources.layerStacks, 1);
});

Deno.test("layers: removing the ClipPlayer (any way) frees every layer; playClip and crossFadeTo keep working", () => {
  const { world, entities, core, components, skeleton } = createScene("simd", 1);
  const [eid] = entities;
  const memory = coreMemory(core);
  const clip = turn("a", 1), other = turn("b", -1);
  playClip(world, eid, clip);
  let baseline = 0;
  for (let round = 0; round < 20; round++) {
    // After the first round the systems' job tables have their size.
    if (round === 1) baseline = memory.allocatedBytes;
    addLayer(world, eid, other, { mask: jointMask(skeleton, { subtree: 1 }) });
    addLayer(world, eid, other, { mode: "additive" });
    crossFadeTo(world, eid, other, 0.2);
    sampleClipsSystem(world, 0.1);
    assertEquals(getLayers(world, eid).length, 3);
    if (round % 2) removeClipPlayer(world, eid);
    else removeComponent(world, eid, components.ClipPlayer);
    playClip(world, eid, clip);
    sampleClipsSystem(world, 0.1);
    assertEquals(getLayers(world, eid).length, 1);
  }
  assertEquals(memory.allocatedBytes, baseline);
});

Deno.test("layers: an additive layer relative to another clip time or a given pose", () => {
  const { world, entities, skeleton } = createScene("relaxed-simd", 1);
  const [eid] = entities;
  const base = turn("base", Math.PI / 4), add = turn("add", Math.PI / 4);
  playClip(world, eid, base, { time: 1, wrap: "clamp" });
  // Relative to its own last frame, the clip at its last frame adds nothing.
  addLayer(world, eid, add, { mode: "additive", time: 1, wrap: "clamp", reference: 1 });
  sampleClipsSystem(world, 0);
  assertAlmostEquals(field(getPose(world, eid), 1, PoseField.QZ), Math.sin(Math.PI / 8), 1e-6);
  assertAlmostEquals(field(getPose(world, eid), 2, PoseField.TX), 4, 1e-5);
  removeLayer(world, eid, 1);
  // Relative to the rest pose given as a pose: the same as the first frame here.
  addLayer(world, eid, add, {
    mode: "additive",
    time: 1,
    wrap: "clamp",
    reference: skeleton.restPose,
  });
  sampleClipsSystem(world, 0);
  assertAlmostEquals(field(getPose(world, eid), 1, PoseField.QZ), Math.SQRT1_2, 1e-6);
});

Deno.test("layers: removeEntity, resetWorld and disposeAnimation release every layer", () => {
  const { world, entities, core, skeleton, skin } = createScene("simd", 2);
  const memory = coreMemory(core);
  const clip = turn("a", 1), other = turn("b", 2);
  const layered = (eid: number) => {
    playClip(world, eid, clip);
    addLayer(world, eid, clip, { mode: "additive" });
    addLocomotionLayer(world, eid, [{ clip, at: 0 }, { clip: other, at: 1 }]);
  };
  entities.forEach(layered);
  sampleClipsSystem(world, 0.1);
  const baseline = memory.allocatedBytes;
  for (let round = 0; round < 10; round++) {
    removeEntity(world, entities[0]);
    entities[0] = addEntity(world);
    addCharacter(world, entities[0], skeleton, skin);
    layered(entities[0]);
    sampleClipsSystem(world, 0.1);
    assertEquals(memory.allocatedBytes, baseline);
  }
  resetWorld(world);
  sampleClipsSystem(world, 0.1);
  disposeAnimation(world);
  // What is left is the assets' memory.
  assertLess(memory.allocatedBytes, baseline);
});

Deno.test("locomotion: root motion is the blend of the cycles' motion; the heavier cycle's markers fire", () => {
  const { world, entities } = createScene("simd", 1);
  const [eid] = entities;
  // Joint 2 moves along x: 4 per 1 s cycle (walk), 8 per 0.5 s cycle (run).
  const walk = turn("walk", 0, 1, 4, 1), run = turn("run", 0, 1, 8, 0.5);
  setClipMarkers(walk, [{ name: "walk-step", time: 0.5 }]);
  setClipMarkers(run, [{ name: "run-step", time: 0.25 }]);
  playClip(world, eid, turn("still", 0));
  setLayerWeight(world, eid, 0, 0);
  const loco = addLocomotionLayer(world, eid, [{ clip: walk, at: 1 }, { clip: run, at: 2 }], {
    parameter: 1.25,
  });
  enableRootMotion(world, eid, { joint: 2 });
  // Cycle 0.875 s: 0.4375 s is half a cycle, 2 (walk) and 4 (run) along x, blended 3:1.
  sampleClipsSystem(world, 0.4375);
  assertAlmostEquals(getRootMotion(world, eid).dx, 0.75 * 2 + 0.25 * 4, 1e-5);
  // Reaching the marker's time crosses it.
  assertEquals(getCrossedMarkers(world, eid).map((h) => h.name), ["walk-step"]);
  sampleClipsSystem(world, 0.01);
  assertEquals(getCrossedMarkers(world, eid).map((h) => h.name), []);
  // Across the loop: a whole cycle further moves by a whole cycle's motion.
  setLocomotionParameter(world, eid, loco, 2);
  sampleClipsSystem(world, 0.5);
  assertAlmostEquals(getRootMotion(world, eid).dx, 8, 1e-4);
  assertEquals(getCrossedMarkers(world, eid).map((h) => h.name), ["run-step"]);
  // The motion is out of the pose.
  assertAlmostEquals(field(getPose(world, eid), 2, PoseField.TX), 0, 1e-6);
});

Deno.test("root motion: an override layer takes its weight's share of the root's motion from the layers below", () => {
  const { world, entities } = createScene("simd", 1);
  const [eid] = entities;
  // Joint 2 moves along x: 4 per second (base), 8 per second (override), 2 per second (blend).
  const slow = turn("slow", 0, 1, 4),
    fast = turn("fast", 0, 1, 8),
    slower = turn("slower", 0, 1, 2);
  playClip(world, eid, slow, { wrap: "clamp" });
  addLayer(world, eid, fast, { weight: 0.25, wrap: "clamp" });
  enableRootMotion(world, eid, { joint: 2 });
  sampleClipsSystem(world, 0.5);
  assertAlmostEquals(getRootMotion(world, eid).dx, 0.75 * 2 + 0.25 * 4, 1e-5);
  // A blend layer above it in the stack still blends below it: the base is
  // (2 + 1) / 2 per half second, the override takes a quarter.
  addLayer(world, eid, slower, { mode: "blend", wrap: "clamp", time: 0.5 });
  sampleClipsSystem(world, 0.25);
  assertAlmostEquals(getRootMotion(world, eid).dx, 0.75 * (1 + 0.5) / 2 + 0.25 * 2, 1e-5);
});

Deno.test("locomotion: a locomotion layer in override mode replaces the base by its weight", () => {
  const { world, entities } = createScene("relaxed-simd", 1);
  const [eid] = entities;
  const walk = turn("walk", 0, 1, 4, 1);
  playClip(world, eid, turn("still", 0, 1, 0));
  const points = [{ clip: walk, at: 0 }];
  assertThrows(
    () => addLocomotionLayer(world, eid, points, { mode: "additive" as "blend" }),
    RangeError,
    `entity ${eid}: addLocomotionLayer: mode`,
  );
  const loco = addLocomotionLayer(world, eid, points, { mode: "override", weight: 0.5 });
  assertEquals(getLayers(world, eid).map((l) => l.mode), ["blend", "override"]);
  // Half a cycle: the walk is at x = 2, the base at 0; halfway between (a blend layer: 2 / 3).
  sampleClipsSystem(world, 0.5);
  assertAlmostEquals(field(getPose(world, eid), 2, PoseField.TX), 1, 1e-5);
  removeLayer(world, eid, loco);
  addLocomotionLayer(world, eid, points, { weight: 0.5 });
  sampleClipsSystem(world, 0.5);
  assertAlmostEquals(field(getPose(world, eid), 2, PoseField.TX), 2 / 3, 1e-5);
});
