import "../scalar.ts";
import { assertEquals, assertThrows } from "@std/assert";
import { addEntity, createWorld, hasComponent, removeEntity } from "bitecs";
import {
  addJointMat,
  addSkeleton,
  addSkin,
  ComponentError,
  createAnimation,
  getModelMatrices,
  getSkinningPalette,
  removeJointMat,
  SkeletonAsset,
  SkinAsset,
} from "../mod.ts";
import { Core } from "../kernels.ts";
import { createCylinder } from "../procedural/cylinder.ts";

const IDENTITY = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0];

function setup() {
  const core = Core.create("scalar");
  const world = createWorld();
  const components = createAnimation(world, { core });
  const cylinder = createCylinder({ joints: 4, segments: 3, rings: 3 });
  const skeleton = new SkeletonAsset(cylinder.skeleton, core);
  return { core, world, components, skeleton, skin: new SkinAsset(skeleton, cylinder.skin) };
}

Deno.test("addJointMat allocates identity model matrices and palette", () => {
  const { world, skeleton, components } = setup();
  const eid = addEntity(world);
  assertThrows(() => addJointMat(world, eid), ComponentError, "needs a Skeleton");
  addSkeleton(world, eid, skeleton);
  addJointMat(world, eid);
  const identities = Array.from({ length: 4 }, () => IDENTITY).flat();
  assertEquals(Array.from(getModelMatrices(world, eid)), identities);
  assertEquals(Array.from(getSkinningPalette(world, eid)), identities);
  const c = components.JointMat;
  assertEquals(c.paletteByteOffset[eid] - c.modelByteOffset[eid], 4 * 48);
  assertThrows(() => addJointMat(world, eid), ComponentError, "already has a JointMat");
});

Deno.test("removeJointMat takes the Skin along and refuses twice", () => {
  const { world, skeleton, skin, components } = setup();
  const eid = addEntity(world);
  addSkeleton(world, eid, skeleton);
  addJointMat(world, eid);
  addSkin(world, eid, skin);
  removeJointMat(world, eid);
  assertEquals(hasComponent(world, eid, components.Skin), false);
  assertEquals(hasComponent(world, eid, components.JointMat), false);
  assertThrows(() => removeJointMat(world, eid), ComponentError, "removed twice");
  assertThrows(() => getModelMatrices(world, eid), ComponentError, "has no JointMat");
});

Deno.test("a recycled entity id gets fresh identity matrices", () => {
  const { world, skeleton } = setup();
  const first = addEntity(world);
  addSkeleton(world, first, skeleton);
  addJointMat(world, first);
  getModelMatrices(world, first).fill(9);
  getSkinningPalette(world, first).fill(9);
  removeEntity(world, first);
  const second = addEntity(world);
  assertEquals(second, first);
  addSkeleton(world, second, skeleton);
  addJointMat(world, second);
  assertEquals(getModelMatrices(world, second).slice(0, 12), Float32Array.from(IDENTITY));
  assertEquals(getSkinningPalette(world, second).slice(0, 12), Float32Array.from(IDENTITY));
});
