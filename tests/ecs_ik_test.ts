/**
 * The IK component and system in a bitecs world: chains validated against
 * the skeleton (typed errors naming entity, chain and field; nothing
 * changed on error), state dropped with the Skeleton, JointMat, the entity
 * or a world reset, bitecs' own `addComponent` refused, the system only on
 * entities with IK (or those given), IK not accumulating over frames, and
 * its place in the standard pipeline.
 */

import "../scalar.ts";
import { assert, assertEquals, assertNotEquals, assertThrows } from "@std/assert";
import {
  addComponent,
  addEntity,
  createWorld,
  hasComponent,
  removeComponent,
  removeEntity,
  resetWorld,
} from "bitecs";
import {
  addCharacter,
  ComponentError,
  createAnimation,
  createAnimationPipeline,
  disposeAnimation,
  getModelMatrices,
  ikSystem,
  matToQuatSystem,
  quatToMatSystem,
  removeJointMat,
  setJointPose,
  SkeletonAsset,
  type SkeletonDefinition,
  SkinAsset,
  transformSkeletonSystem,
} from "../mod.ts";
import {
  addAimIK,
  addTwoBoneIK,
  getIKReached,
  IKError,
  removeIK,
  setIKTarget,
  updateIKChain,
} from "../ik.ts";
import { createCylinder } from "../procedural/cylinder.ts";
import { BUILDS, coreFor, type Vec3 } from "./_arbitrary.ts";
import { poseFloats } from "../simd/memory/layout.ts";
import { norm, position, sub } from "./_ik.ts";

/** A world of `count` four-joint cylinders bent at joint 2, in `build`'s core. */
function scene(build: (typeof BUILDS)[number], count = 2) {
  const core = coreFor(build);
  const cylinder = createCylinder({ joints: 4, rings: 4, segments: 4, height: 3 });
  const skeleton = new SkeletonAsset(cylinder.skeleton, core);
  const skin = new SkinAsset(skeleton, cylinder.skin);
  const world = createWorld();
  const components = createAnimation(world, { core });
  const entities = Array.from({ length: count }, () => {
    const eid = addEntity(world);
    addCharacter(world, eid, skeleton, skin);
    setJointPose(world, eid, 2, [0, 1, 0], [0, 0, Math.sin(0.3), Math.cos(0.3)]);
    return eid;
  });
  return { world, components, skeleton, skin, entities, animate: createAnimationPipeline() };
}

function assertIKError(fn: () => unknown, entity: number, chain: number, field: string): void {
  const error = assertThrows(fn, IKError);
  assertEquals([error.entity, error.chain, error.field], [entity, chain, field]);
}

Deno.test("IK chains are validated against the skeleton, with typed errors", () => {
  const { world, entities: [eid], animate } = scene("scalar");
  assertIKError(() => addTwoBoneIK(world, eid, { start: 0, mid: 1, end: 9 }), eid, 0, "end");
  assertIKError(() => addTwoBoneIK(world, eid, { start: 2, mid: 1, end: 3 }), eid, 0, "start");
  assertIKError(() => addTwoBoneIK(world, eid, { start: 0, mid: 2, end: 2 }), eid, 0, "mid");
  assertIKError(() => addTwoBoneIK(world, eid, { start: 0, mid: "nope", end: 3 }), eid, 0, "mid");
  assertIKError(() => addTwoBoneIK(world, eid, { start: -1, mid: 1, end: 3 }), eid, 0, "start");
  assertIKError(
    () => addTwoBoneIK(world, eid, { start: 0, mid: 1, end: 3, target: [NaN, 0, 0] }),
    eid,
    0,
    "target",
  );
  assertIKError(
    () => addTwoBoneIK(world, eid, { start: 0, mid: 1, end: 3, midAxis: [0, 0, 0] }),
    eid,
    0,
    "midAxis",
  );
  assertIKError(
    () => addAimIK(world, eid, { joint: 1, forward: [1, 2] as never }),
    eid,
    0,
    "forward",
  );
  // Nothing was added by the refused calls.
  assert(!hasComponent(world, eid, createAnimation(world).IK));

  const chain = addTwoBoneIK(world, eid, { start: 0, mid: 1, end: 3, target: [1, 1, 0] });
  assertEquals(chain, 0);
  assertEquals(createAnimation(world).IK.chainCount[eid], 1);
  assertIKError(() => setIKTarget(world, eid, chain, [0, Infinity, 0]), eid, 0, "target");
  assertIKError(
    () => updateIKChain(world, eid, chain, { weight: 0, soften: NaN }),
    eid,
    0,
    "soften",
  );
  assertThrows(() => setIKTarget(world, eid, 5, [0, 0, 0]), ComponentError, "chain 5");
  assertIKError(
    () => updateIKChain(world, eid, chain, { forward: [1, 0, 0] } as never),
    eid,
    0,
    "forward",
  );
  assertIKError(() => addAimIK(world, eid, { joint: 1, sofetn: 1 } as never), eid, 1, "sofetn");
  // The refused update changed nothing: weight is still 1, the target [1, 1, 0].
  animate(world, 0);
  assert(getIKReached(world, eid, chain));
  const end = position(getModelMatrices(world, eid), 3);
  assert(norm(sub(end, [1, 1, 0])) < 1e-5);
});

Deno.test("IK needs Skeleton and JointMat; removing them, the entity or the world drops it", () => {
  const { world, components, entities: [a, b] } = scene("scalar");
  const bare = addEntity(world);
  assertThrows(() => addTwoBoneIK(world, bare, { start: 0, mid: 1, end: 2 }), ComponentError);
  assertThrows(() => addComponent(world, a, components.IK), ComponentError, "addTwoBoneIK");
  assert(!hasComponent(world, a, components.IK));

  addTwoBoneIK(world, a, { start: 0, mid: 1, end: 3, target: [1, 1, 0] });
  removeJointMat(world, a);
  assert(!hasComponent(world, a, components.IK));
  assertThrows(() => setIKTarget(world, a, 0, [0, 0, 0]), ComponentError, "no IK");
  assertEquals(components.IK.chainCount[a], 0);

  addTwoBoneIK(world, b, { start: 0, mid: 1, end: 3, target: [1, 1, 0] });
  removeComponent(world, b, components.Skeleton);
  assert(!hasComponent(world, b, components.IK));

  const { world: w2, components: c2, entities: [e1, e2] } = scene("scalar");
  addAimIK(w2, e1, { joint: 1, target: [0, 0, 5] });
  removeEntity(w2, e1);
  addTwoBoneIK(w2, e2, { start: 0, mid: 1, end: 3, target: [1, 1, 0] });
  removeIK(w2, e2);
  assertThrows(() => removeIK(w2, e2), ComponentError, "removed twice");
  addTwoBoneIK(w2, e2, { start: 0, mid: 1, end: 3, target: [1, 1, 0] });
  resetWorld(w2);
  const fresh = addEntity(w2);
  assertThrows(() => setIKTarget(w2, fresh, 0, [0, 0, 0]), ComponentError);
  assert(!hasComponent(w2, fresh, c2.IK));
  ikSystem(w2);
});

Deno.test("ikSystem runs on entities with IK, or those given; IK never accumulates", () => {
  for (const build of BUILDS) {
    const { world, entities: [a, b, c], animate } = scene(build, 3);
    animate(world, 0);
    const rest = getModelMatrices(world, a).slice();
    for (const eid of [a, b]) {
      addTwoBoneIK(world, eid, { start: 1, mid: 2, end: 3, target: [1, 1.5, 0], weight: 0.5 });
    }
    animate(world, 0, [b, c]);
    assertEquals(getModelMatrices(world, a), rest, `${build}: a is not in the list`);
    assertEquals(getModelMatrices(world, c), rest, `${build}: c has no IK`);
    const once = getModelMatrices(world, b).slice();
    assertNotEquals(once, rest);
    animate(world, 0);
    assertEquals(getModelMatrices(world, b), once, `${build}: a second frame is the same`);
    assertEquals(getModelMatrices(world, a), once, `${build}: a as b`);
    assert(!getIKReached(world, a, 0), "weight 0.5 does not reach");
  }
  assertEquals(
    createAnimationPipeline().systems.map((s) => s.name).slice(2, 5),
    ["transformSkeleton", "ik", "multiplyInverseBind"],
  );
});

Deno.test("aim IK and two-bone IK chains run in the order they were added", () => {
  const { world, entities: [eid], animate } = scene("scalar", 1);
  addAimIK(world, eid, { joint: 1, forward: [0, 1, 0], target: [2, 1, 0] });
  const leg = addTwoBoneIK(world, eid, { start: 1, mid: 2, end: 3, target: [1.5, 0.5, 0] });
  animate(world, 0);
  const end = position(getModelMatrices(world, eid), 3);
  assert(norm(sub(end, [1.5, 0.5, 0])) < 1e-5, "the chain after the aim reaches");
  assert(getIKReached(world, eid, leg));
});

Deno.test("matToQuatSystem after ikSystem gives the corrected local pose", () => {
  const { world, entities: [eid] } = scene("scalar", 1);
  addTwoBoneIK(world, eid, { start: 1, mid: 2, end: 3, target: [1.2, 1, 0.5] });
  quatToMatSystem(world);
  transformSkeletonSystem(world);
  ikSystem(world);
  const corrected = getModelMatrices(world, eid).slice();
  matToQuatSystem(world);
  removeIK(world, eid);
  quatToMatSystem(world);
  transformSkeletonSystem(world);
  const again = getModelMatrices(world, eid);
  for (let i = 0; i < again.length; i++) assert(Math.abs(again[i] - corrected[i]) < 1e-5);
  assert(norm(sub(position(again, 3), [1.2, 1, 0.5])) < 1e-5);
});

/** A straight three-bone limb: joint 1 at the origin, 2 and 3 each `bone` further, in its frame. */
function straightLimb(bone: Vec3): SkeletonDefinition {
  const restPose = new Float32Array(poseFloats(4));
  [[0, 0, 0], [0, 0, 0], bone, bone].forEach((t, j) => {
    for (let c = 0; c < 3; c++) restPose[j + c * 4] = t[c];
    restPose[j + 6 * 4] = 1;
    for (let c = 7; c < 10; c++) restPose[j + c * 4] = 1;
  });
  const inverseBind = new Float32Array(4 * 12);
  for (let j = 0; j < 4; j++) inverseBind.set([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0], j * 12);
  return {
    names: ["root", "hip", "knee", "foot"],
    parents: Int16Array.of(-1, 0, 1, 2),
    restPose,
    inverseBind,
  };
}

Deno.test("default two-bone IK reaches from a straight limb whatever its rest axis", () => {
  // Straight at rest, the default axis is (0, 0, 1): along the bones, then
  // at an angle to them; the solve bends about a perpendicular instead.
  for (const bone of [[0, 0, 1], [0, 0.6, 0.8]] as Vec3[]) {
    for (const build of BUILDS) {
      const skeleton = new SkeletonAsset(straightLimb(bone), coreFor(build));
      const world = createWorld();
      createAnimation(world, { core: skeleton.core });
      const eid = addEntity(world);
      addCharacter(world, eid, skeleton);
      const leg = addTwoBoneIK(world, eid, { start: 1, mid: 2, end: 3 });
      const animate = createAnimationPipeline();
      for (
        const [target, poleVector] of [
          [[0.3, 0.5, 1.2], [1, 0, 0]],
          [[-1, 0.2, -0.4], [0, 0, 0]],
          [[0.1, -1.3, 0.2], [0, 0, -1]],
        ] as [Vec3, Vec3][]
      ) {
        updateIKChain(world, eid, leg, { target, poleVector });
        animate(world, 0);
        const end = position(getModelMatrices(world, eid), 3);
        assert(norm(sub(end, target)) <= 1e-5 * 2, `${build} ${bone} ${target}: ${end}`);
        assert(getIKReached(world, eid, leg));
      }
      disposeAnimation(world);
      skeleton.dispose();
    }
  }
});

Deno.test("updateIKChain's midAxis null returns a chain to the default bend, bit for bit", () => {
  const { world, entities: [plain, reset], animate } = scene("scalar");
  const target: Vec3 = [0.8, 1.6, 0.4];
  addTwoBoneIK(world, plain, { start: 0, mid: 1, end: 3, target });
  const chain = addTwoBoneIK(world, reset, {
    start: 0,
    mid: 1,
    end: 3,
    target,
    midAxis: [1, 0, 0],
  });
  animate(world, 0);
  // The given axis solves otherwise, so the reset below has something to undo.
  assertNotEquals([...getModelMatrices(world, reset)], [...getModelMatrices(world, plain)]);
  updateIKChain(world, reset, chain, { midAxis: null });
  animate(world, 0);
  assertEquals([...getModelMatrices(world, reset)], [...getModelMatrices(world, plain)]);
  // A straight limb bends about the rest pose's axis, which the reset restores too.
  for (const eid of [plain, reset]) setJointPose(world, eid, 2, [0, 1, 0], [0, 0, 0, 1]);
  animate(world, 0);
  assertEquals([...getModelMatrices(world, reset)], [...getModelMatrices(world, plain)]);
});
