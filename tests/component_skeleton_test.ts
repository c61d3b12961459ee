import "../scalar.ts";
import { assertEquals, assertInstanceOf, assertThrows } from "@std/assert";
import { addEntity, createWorld, hasComponent } from "bitecs";
import {
  addJointMat,
  addJointQuat,
  addSkeleton,
  addSkin,
  ComponentError,
  createAnimation,
  removeSkeleton,
  SkeletonAsset,
  SkinAsset,
} from "../mod.ts";
import { Core } from "../kernels.ts";
import { createCylinder } from "../procedural/cylinder.ts";

const definition = () => createCylinder({ joints: 5, segments: 3, rings: 3 }).skeleton;

Deno.test("SkeletonAsset copies its definition and exposes copies", () => {
  const def = definition();
  const skeleton = new SkeletonAsset(def, Core.create("scalar"));
  assertEquals(skeleton.jointCount, 5);
  assertEquals(skeleton.parentIndices, def.parents);
  assertEquals(skeleton.inverseBind, def.inverseBind);
  assertEquals(skeleton.restPose, def.restPose);
  assertEquals(skeleton.jointIndex("joint3"), 3);
  def.parents[1] = 3;
  skeleton.parentIndices[2] = 4;
  assertEquals(skeleton.parentIndices[1], 0);
  assertEquals(skeleton.parentIndices[2], 1);
});

Deno.test("SkeletonAsset rejects bad parents, names, poses and inverse binds", () => {
  const core = Core.create("scalar");
  const bad = (patch: Partial<ReturnType<typeof definition>>, pattern: RegExp) => {
    const error = assertThrows(
      () => new SkeletonAsset({ ...definition(), ...patch }, core),
      RangeError,
    );
    if (!pattern.test(error.message)) {
      throw new Error(`"${error.message}" does not match ${pattern}`);
    }
  };
  bad({ parents: Int16Array.from([-1, 0, 3, 1, 2]) }, /parents\[2\].*before their children/);
  bad({ parents: Int16Array.from([-1, 0, 2, 1, 2]) }, /parents\[2\]/); // a joint its own parent: a cycle
  bad({ parents: Int16Array.from([-1, 0, -7, 1, 2]) }, /parents\[2\]: .* got -7/);
  bad({ names: ["a"] }, /names: expected 5 names/);
  const restPose = definition().restPose.slice();
  restPose[3 * 4 + 2] = NaN; // joint 2 (lane 2), field 3 (qx)
  bad({ restPose }, /restPose: joint 2 qx is NaN/);
  const inverseBind = definition().inverseBind.slice();
  inverseBind[12 * 3 + 7] = Infinity;
  bad({ inverseBind }, /inverseBind\[43\] \(element 3, component 7\) is Infinity/);
  bad({ inverseBind: new Float32Array(12) }, /inverseBind: expected 60 floats/);
  bad({ parents: new Int16Array(0) }, /at least one joint/);
});

Deno.test("addSkeleton validates the entity and the skeleton", () => {
  const core = Core.create("scalar");
  const world = createWorld();
  const { Skeleton } = createAnimation(world, { core });
  const skeleton = new SkeletonAsset(definition(), core);
  const eid = addEntity(world);
  addSkeleton(world, eid, skeleton);
  assertEquals(hasComponent(world, eid, Skeleton), true);
  assertEquals(Skeleton.asset[eid], skeleton);
  assertEquals(Skeleton.jointCount[eid], 5);
  assertThrows(
    () => addSkeleton(world, eid, skeleton),
    ComponentError,
    `entity ${eid}: Skeleton: the entity already has`,
  );
  assertThrows(
    () => addSkeleton(world, 999, skeleton),
    ComponentError,
    "entity 999: Skeleton: the entity does not exist",
  );
  const other = new SkeletonAsset(definition(), Core.create("scalar"));
  const second = addEntity(world);
  assertThrows(() => addSkeleton(world, second, other), ComponentError, "another core");
  assertThrows(
    () => addSkeleton(createWorld(), 0, skeleton),
    TypeError,
    "createAnimation(world) first",
  );
});

Deno.test("removeSkeleton takes the components that need it along, and refuses twice", () => {
  const core = Core.create("scalar");
  const world = createWorld();
  const { JointQuat, JointMat, Skin, Skeleton } = createAnimation(world, { core });
  const cylinder = createCylinder({ joints: 5, segments: 3, rings: 3 });
  const skeleton = new SkeletonAsset(cylinder.skeleton, core);
  const skin = new SkinAsset(skeleton, cylinder.skin);
  const eid = addEntity(world);
  addSkeleton(world, eid, skeleton);
  addJointQuat(world, eid);
  addJointMat(world, eid);
  addSkin(world, eid, skin);
  const allocated = core.allocatedBytes;
  removeSkeleton(world, eid);
  for (const component of [Skeleton, JointQuat, JointMat, Skin]) {
    assertEquals(hasComponent(world, eid, component), false);
  }
  assertEquals(Skeleton.asset[eid], undefined);
  assertEquals(core.allocatedBytes < allocated, true);
  const error = assertThrows(() => removeSkeleton(world, eid), ComponentError, "removed twice");
  assertInstanceOf(error, TypeError);
  assertEquals([error.entity, error.component], [eid, "Skeleton"]);
});
