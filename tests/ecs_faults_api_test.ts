/**
 * The fault model's parts: the orphan cases (a JointMat without JointQuat
 * holds the game's model matrices: transform skeleton and IK leave them,
 * inverse bind and skinning use them, nothing compounds), the blend
 * threshold and weights that would underflow (clamped: no NaN, no drift),
 * and the fault API (records, clearing, the callback after the frame, the
 * retry, the `"throw"` mode, standalone systems).
 */
import { assert, assertEquals, assertInstanceOf, assertLess, assertThrows } from "@std/assert";
import { addEntity, resetWorld } from "bitecs";
import {
  addJointMat,
  addSkeleton,
  addSkin,
  clearFaults,
  createAnimation,
  createAnimationPipeline,
  type Fault,
  getFaults,
  getModelMatrices,
  getPose,
  getSkinnedPositions,
  getSkinningPalette,
  playClip,
  PoseError,
  quatToMatSystem,
  sampleClipsSystem,
  skinSystem,
} from "../mod.ts";
import {
  addLayer,
  getLayers,
  MIN_BLEND_THRESHOLD,
  setBlendThreshold,
  setLayerWeight,
} from "../layers.ts";
import { addAimIK, getIKReached } from "../ik.ts";
import { Core, PoseField, poseIndex } from "../kernels.ts";
import * as ref from "../simd/scalar/mod.ts";
import { BUILDS, createScene, maxDifference, random, randomQuaternion, wander } from "./_scene.ts";

const DT = 1 / 60;

for (const build of BUILDS) {
  Deno.test(`orphans (${build}): a JointMat without JointQuat holds the game's model matrices, never compounded`, () => {
    const scene = createScene(build, 2);
    const { world, skeleton, skin } = scene;
    const n = skeleton.jointCount;
    const eid = addEntity(world);
    addSkeleton(world, eid, skeleton);
    addJointMat(world, eid);
    addSkin(world, eid, skin);
    addAimIK(world, eid, { joint: 2, target: [3, 1, 0] });
    // The game's model matrices: each joint a rotation and a translation.
    const next = random(7), model = new Float32Array(n * 12), rotation = new Float32Array(12);
    for (let j = 0; j < n; j++) {
      const pose = new Float32Array(40);
      const [x, y, z, w] = randomQuaternion(next);
      pose.set([next(), next() * 3, next(), 0, 0, 0, 0, 0, 0, 0, 0, 0, x, 0, 0, 0, y, 0, 0, 0]);
      pose.set([z, 0, 0, 0, w, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0], 20);
      ref.quatToMat(pose, rotation, 1);
      model.set(rotation, j * 12);
    }
    getModelMatrices(world, eid).set(model);
    const expectedPalette = new Float32Array(n * 12);
    ref.multiplyMatrices(model, skeleton.inverseBind, expectedPalette, n);
    const animate = createAnimationPipeline();
    let positions: Float32Array | undefined;
    for (let frame = 0; frame < 40; frame++) {
      animate(world, DT);
      assertEquals(getModelMatrices(world, eid), model, `frame ${frame}: the game's matrices`);
      assertLess(maxDifference(getSkinningPalette(world, eid), expectedPalette), 1e-5);
      assertEquals(getIKReached(world, eid, 0), false, "IK leaves them alone");
      const now = getSkinnedPositions(world, eid).slice();
      assert(now.every(Number.isFinite));
      if (positions) assertEquals(now, positions, `frame ${frame}: the same skin every frame`);
      positions = now;
    }
    assertEquals(getFaults(world), []);
  });

  Deno.test(`blend threshold (${build}): one that would underflow is raised to MIN_BLEND_THRESHOLD: no NaN, no drift`, () => {
    const poses = [0.1, 1e-22, 1e-40, 1e-300].map((threshold) => {
      const { world, entities } = createScene(build, 1, { joints: 8, segments: 4, rings: 4 });
      const [eid] = entities;
      playClip(world, eid, wander("walk", 3, 1), { time: 0.4 });
      addLayer(world, eid, wander("wave", 4, 3), { weight: 0.5 });
      setLayerWeight(world, eid, 0, 0);
      setLayerWeight(world, eid, 1, 1e-40);
      assertEquals(getLayers(world, eid)[1].weight, 0, "a subnormal weight weighs nothing");
      setBlendThreshold(world, eid, threshold);
      sampleClipsSystem(world, DT);
      const pose = getPose(world, eid).slice();
      assert(pose.every(Number.isFinite), `threshold ${threshold}: ${pose}`);
      return pose;
    });
    // Every weight 0: the rest pose fills in, whatever the threshold.
    for (const pose of poses.slice(1)) assertLess(maxDifference(pose, poses[0]), 1e-6);
    const { world, entities: [eid] } = createScene(build, 1);
    playClip(world, eid, wander("walk", 3, 1));
    for (const bad of [0, -1e-40, 1.5, NaN]) {
      assertThrows(() => setBlendThreshold(world, eid, bad), RangeError, "threshold: expected");
    }
    assertEquals(MIN_BLEND_THRESHOLD, 1e-6);
  });

  Deno.test(`fault API (${build}): records, clearing, the callback after the frame, the retry`, () => {
    const faulty = createScene(build, 3), control = createScene(build, 3);
    const seen: Fault[] = [];
    // What the callback sees of the last entity: the frame is over by then.
    const healthy = faulty.entities[2];
    let seenSkin: Float32Array | undefined;
    createAnimation(faulty.world, {
      onFault: (fault) => {
        seen.push(fault);
        seenSkin = getSkinnedPositions(faulty.world, healthy).slice();
      },
    });
    const animate = createAnimationPipeline(), controlAnimate = createAnimationPipeline();
    const frame = () => {
      // The healthy entity moves every frame: a callback run mid-frame would see it behind.
      getPose(faulty.world, healthy)[poseIndex(1, PoseField.TX)] += 0.125;
      getPose(control.world, control.entities[2])[poseIndex(1, PoseField.TX)] += 0.125;
      seenSkin = undefined;
      animate(faulty.world, DT);
      controlAnimate(control.world, DT);
      if (seenSkin) assertEquals(seenSkin, getSkinnedPositions(faulty.world, healthy));
    };
    const victim = faulty.entities[1];
    frame();
    const before = getSkinnedPositions(faulty.world, victim).slice();
    const palette = getSkinningPalette(faulty.world, victim).slice();
    // Each entity its own pose, so that a skin left behind would show.
    for (const [i, eid] of faulty.entities.entries()) {
      getPose(faulty.world, eid)[poseIndex(2, PoseField.TY)] += i;
      getPose(control.world, control.entities[i])[poseIndex(2, PoseField.TY)] += i;
    }
    getPose(faulty.world, victim)[poseIndex(3, PoseField.QX)] = Infinity;
    // Written through the JointMat views too: the quarantine puts the last good values back.
    getSkinningPalette(faulty.world, victim)[7] = NaN;
    getModelMatrices(faulty.world, victim)[3] = -Infinity;
    const model = getModelMatrices(faulty.world, victim).slice();
    model[3] = getModelMatrices(control.world, control.entities[1])[3];
    frame();
    frame();
    assertEquals(seen.length, 1, "one callback per new fault");
    const [fault] = getFaults(faulty.world);
    assertEquals(
      [fault.entity, fault.system, fault.component, fault.field, fault.count],
      [victim, "quatToMatSystem", "JointQuat", "qx", 2],
    );
    assertInstanceOf(fault.error, PoseError);
    assertEquals(fault.error.message, `entity ${victim}: JointQuat joint 3 qx is Infinity`);
    assertEquals(getSkinnedPositions(faulty.world, victim), before, "last good skin");
    assertEquals(getSkinningPalette(faulty.world, victim), palette, "last good palette");
    assertEquals(getModelMatrices(faulty.world, victim), model, "last good model matrices");
    clearFaults(faulty.world, victim + 1);
    assertEquals(getFaults(faulty.world).length, 1, "another entity's clear keeps it");
    clearFaults(faulty.world, victim);
    assertEquals(getFaults(faulty.world), []);
    frame();
    assertEquals(getFaults(faulty.world).length, 1, "found again");
    assertEquals(seen.length, 2);
    // Retried every frame: repaired, it is animated again like the control's.
    getPose(faulty.world, victim).set(getPose(control.world, control.entities[1]));
    clearFaults(faulty.world);
    frame();
    assertEquals(getFaults(faulty.world), []);
    for (const [i, eid] of faulty.entities.entries()) {
      assertEquals(
        getSkinnedPositions(faulty.world, eid),
        getSkinnedPositions(control.world, control.entities[i]),
        `entity ${eid}`,
      );
    }
    assertThrows(
      () => createAnimation(faulty.world, { faults: "ignore" as "throw" }),
      RangeError,
      "options.faults",
    );
  });

  Deno.test(`fault API (${build}): "throw" mode throws the typed error; standalone systems isolate too`, () => {
    // Positions only: the skinSystem's entities.
    const scene = createScene(build, 3, undefined, { normals: false, tangents: false });
    const { world, entities, components } = scene;
    const animate = createAnimationPipeline();
    // Away from the rest pose, whose palette is the identity a JointMat starts with.
    for (const eid of entities) getPose(world, eid)[poseIndex(2, PoseField.QZ)] = 0.5;
    animate(world, DT);
    // A palette written through its view: the standalone skinning system skips it.
    const positions = entities.map((eid) => getSkinnedPositions(world, eid).slice());
    const palette = getSkinningPalette(world, entities[0]).slice();
    getSkinningPalette(world, entities[0])[5] = NaN;
    skinSystem(world);
    assertEquals(getSkinnedPositions(world, entities[0]), positions[0], "not skinned");
    assertEquals(getSkinningPalette(world, entities[0]), palette, "its last good palette back");
    let [fault] = getFaults(world);
    assertEquals([fault.system, fault.component, fault.field], ["skinSystem", "JointMat", "m11"]);
    clearFaults(world);
    // A ClipPlayer time that game code set to NaN: not advanced, the others are.
    for (const eid of entities) playClip(world, eid, wander("walk", 5, 1));
    sampleClipsSystem(world, DT);
    const poses = entities.map((eid) => getPose(world, eid).slice());
    components.ClipPlayer.time[entities[2]] = NaN;
    sampleClipsSystem(world, DT);
    [fault] = getFaults(world);
    assertEquals([fault.entity, fault.system, fault.field], [
      entities[2],
      "sampleClipsSystem",
      "time",
    ]);
    assertEquals(getPose(world, entities[2]), poses[2]);
    assert(maxDifference(getPose(world, entities[0]), poses[0]) > 0, "the others play on");
    components.ClipPlayer.time[entities[2]] = 0;
    // The "throw" mode: the typed errors of before, nothing written.
    createAnimation(world, { faults: "throw" });
    getPose(world, entities[1])[poseIndex(2, PoseField.TY)] = NaN;
    const error = assertThrows(() => quatToMatSystem(world), PoseError);
    assertEquals([error.entity, error.field], [entities[1], "ty"]);
    getPose(world, entities[1])[poseIndex(2, PoseField.TY)] = 0;
    components.ClipPlayer.speed[entities[0]] = Infinity;
    assertThrows(() => animate(world, DT), RangeError, `entity ${entities[0]}: ClipPlayer: speed`);
    assertEquals(getFaults(world).length, 1, "only the isolated one was recorded");
    void Core;
  });

  Deno.test(`fault API (${build}): a world reset forgets the faults of the entities it removed`, () => {
    const { world, entities } = createScene(build, 2);
    getPose(world, entities[0])[poseIndex(1, PoseField.QW)] = NaN;
    createAnimationPipeline()(world, DT);
    assertEquals(getFaults(world).length, 1);
    resetWorld(world);
    assertEquals(getFaults(world), []);
  });
}
