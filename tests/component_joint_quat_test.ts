import "../scalar.ts";
import { assertEquals, assertThrows } from "@std/assert";
import { addComponent, addEntity, createWorld, hasComponent, removeEntity } from "bitecs";
import {
  addJointQuat,
  addSkeleton,
  ComponentError,
  createAnimation,
  getPose,
  removeJointQuat,
  setJointPose,
  SkeletonAsset,
} from "../mod.ts";
import { Core, PoseField, poseIndex } from "../kernels.ts";
import { createCylinder } from "../procedural/cylinder.ts";

function setup() {
  const core = Core.create("scalar");
  const world = createWorld();
  const components = createAnimation(world, { core });
  const skeleton = new SkeletonAsset(
    createCylinder({ joints: 6, segments: 3, rings: 3 }).skeleton,
    core,
  );
  return { core, world, components, skeleton };
}

Deno.test("addJointQuat starts from the rest pose and needs a Skeleton", () => {
  const { world, skeleton, components } = setup();
  const eid = addEntity(world);
  assertThrows(
    () => addJointQuat(world, eid),
    ComponentError,
    `entity ${eid}: JointQuat: the entity needs a Skeleton`,
  );
  assertEquals(hasComponent(world, eid, components.JointQuat), false);
  addSkeleton(world, eid, skeleton);
  addJointQuat(world, eid);
  assertEquals(getPose(world, eid), skeleton.restPose);
  assertEquals(components.JointQuat.byteOffset[eid] > 0, true);
  assertThrows(() => addJointQuat(world, eid), ComponentError, "already has a JointQuat");
});

Deno.test("setJointPose writes one joint and rejects non-finite values, writing nothing", () => {
  const { world, skeleton } = setup();
  const eid = addEntity(world);
  addSkeleton(world, eid, skeleton);
  addJointQuat(world, eid);
  setJointPose(world, eid, 4, [1, 2, 3], [0, 0.6, 0, 0.8], [2, 2, 2]);
  const pose = getPose(world, eid);
  assertEquals(
    [PoseField.TX, PoseField.QY, PoseField.QW, PoseField.SZ].map((f) => pose[poseIndex(4, f)]),
    [
      1,
      Math.fround(0.6),
      Math.fround(0.8),
      2,
    ],
  );
  const before = getPose(world, eid).slice();
  assertThrows(
    () => setJointPose(world, eid, 2, [0, 0, 0], [0, 0, NaN, 1]),
    RangeError,
    `entity ${eid}: JointQuat joint 2 qz is NaN`,
  );
  assertThrows(
    () => setJointPose(world, eid, 6, [0, 0, 0], [0, 0, 0, 1]),
    RangeError,
    "joint 6 is not in 0..5",
  );
  assertThrows(
    () => setJointPose(world, eid, 1, [0, 0], [0, 0, 0, 1]),
    RangeError,
    "translation: expected 3 values, got 2",
  );
  assertEquals(getPose(world, eid), before);
});

Deno.test("a recycled entity id never sees the previous entity's pose", () => {
  const { world, skeleton } = setup();
  const first = addEntity(world);
  addSkeleton(world, first, skeleton);
  addJointQuat(world, first);
  getPose(world, first).fill(42);
  removeEntity(world, first);
  const second = addEntity(world);
  assertEquals(second, first); // bitecs hands the id out again at once
  assertThrows(() => getPose(world, second), ComponentError, "has no JointQuat");
  addSkeleton(world, second, skeleton);
  addJointQuat(world, second);
  assertEquals(getPose(world, second), skeleton.restPose);
});

Deno.test("removeJointQuat frees the pose and refuses a second removal", () => {
  const { core, world, skeleton } = setup();
  const eid = addEntity(world);
  addSkeleton(world, eid, skeleton);
  const before = core.allocatedBytes;
  addJointQuat(world, eid);
  removeJointQuat(world, eid);
  assertEquals(core.allocatedBytes, before);
  assertThrows(
    () => removeJointQuat(world, eid),
    ComponentError,
    `entity ${eid}: JointQuat: the entity has no JointQuat (removed twice?)`,
  );
});

Deno.test("bitecs' own addComponent of JointQuat allocates it, and is undone without a Skeleton", () => {
  const { world, skeleton, components } = setup();
  const eid = addEntity(world);
  assertThrows(
    () => addComponent(world, eid, components.JointQuat),
    ComponentError,
    `entity ${eid}: JointQuat: the entity needs a Skeleton first`,
  );
  assertEquals(hasComponent(world, eid, components.JointQuat), false);
  addSkeleton(world, eid, skeleton);
  addComponent(world, eid, components.JointQuat);
  assertEquals(hasComponent(world, eid, components.JointQuat), true);
  assertEquals(Array.from(getPose(world, eid)), Array.from(skeleton.restPose));
});
