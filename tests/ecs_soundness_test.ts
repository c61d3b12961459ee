/**
 * The attacks of the ECS-layer issue, each replayed: ordinary public calls
 * (Marrow's and bitecs' own) that used to make the core read or write
 * memory the caller does not own. Each must now end in a typed error or a
 * documented consistent state, on every build.
 */
import "../scalar.ts";
import { assert, assertEquals, assertThrows } from "@std/assert";
import {
  addComponent,
  addEntity,
  createWorld,
  deleteWorld,
  hasComponent,
  removeComponent,
  removeEntity,
  resetWorld,
} from "bitecs";
import {
  addCharacter,
  addJointQuat,
  addSkeleton,
  type Clip,
  ComponentError,
  createAnimation,
  createAnimationPipeline,
  disposeAnimation,
  getPose,
  getSkinnedPositions,
  playClip,
  PoseError,
  removeJointQuat,
  removeSkeleton,
  SkeletonAsset,
  SkinAsset,
} from "../mod.ts";
import { Core, PoseField, poseIndex } from "../kernels.ts";
import { createCylinder } from "../procedural/cylinder.ts";
import { BUILDS, createScene } from "./_scene.ts";
import { coreMemory } from "../simd/memory/_instance.ts";
import { skeletonInternals, skinInternals } from "../animation/_asset_internals.ts";

const animate = createAnimationPipeline();

/** A clip turning joint 1 about z. */
function turn(): Clip {
  return {
    name: "turn",
    animation: 0,
    start: 0,
    duration: 1,
    channels: [{
      joint: 1,
      path: "rotation",
      interpolation: "LINEAR",
      times: Float32Array.from([0, 1]),
      values: Float32Array.from([0, 0, 0, 1, 0, 0, Math.SQRT1_2, Math.SQRT1_2]),
      node: 1,
    }],
  };
}

/** Bytes of every allocated block of entities other than `except`, for isolation checks. */
function snapshot(scene: ReturnType<typeof createScene>, except: number): Uint8Array[] {
  const { JointQuat, JointMat, Skin } = scene.components;
  const memory = coreMemory(scene.core).views();
  return scene.entities.filter((e) => e !== except).flatMap((e) =>
    [JointQuat.byteOffset[e], JointMat.modelByteOffset[e], Skin.positionsByteOffset[e]]
      .filter((ptr) => ptr)
      .map((ptr) => memory.u8.slice(ptr, ptr + memory.sizeOf(ptr)!))
  );
}

for (const build of BUILDS) {
  Deno.test(`${build}: playClip, removeJointQuat, frame: the clip player goes with the pose`, () => {
    const scene = createScene(build, 3);
    const [eid] = scene.entities;
    playClip(scene.world, eid, turn());
    removeJointQuat(scene.world, eid);
    assertEquals(hasComponent(scene.world, eid, scene.components.ClipPlayer), false);
    animate(scene.world, 1 / 60);
    const before = snapshot(scene, eid);
    animate(scene.world, 1 / 60);
    assertEquals(snapshot(scene, eid), before);
    const parents = coreMemory(scene.core).views().i16;
    assertEquals(parents[skeletonInternals(scene.skeleton).parentsByteOffset >> 1], -1);
  });

  Deno.test(`${build}: removeSkeleton with a clip playing, then a bigger skeleton and a fade`, () => {
    const scene = createScene(build, 2);
    const [eid, other] = scene.entities;
    playClip(scene.world, eid, turn());
    removeSkeleton(scene.world, eid);
    animate(scene.world, 1 / 60);
    const big = new SkeletonAsset(createCylinder({ joints: 40 }).skeleton, scene.core);
    addSkeleton(scene.world, eid, big);
    addJointQuat(scene.world, eid);
    const neighbour = getPose(scene.world, other).slice();
    playClip(scene.world, eid, turn());
    animate(scene.world, 0.5);
    assertEquals(getPose(scene.world, other).length, neighbour.length);
  });

  Deno.test(`${build}: bitecs removeComponent and removeEntity leave no dangling record`, () => {
    const scene = createScene(build, 3);
    const [a, b, c] = scene.entities;
    const { Skeleton, JointMat, Skin, JointQuat } = scene.components;
    removeComponent(scene.world, a, JointMat);
    assertEquals(hasComponent(scene.world, a, Skin), false);
    assertEquals(Skin.positionsByteOffset[a], 0);
    removeComponent(scene.world, b, Skeleton);
    for (const component of [JointQuat, JointMat, Skin]) {
      assertEquals(hasComponent(scene.world, b, component), false);
    }
    removeEntity(scene.world, c);
    const base = createScene(build, 0);
    animate(scene.world, 1 / 60);
    assertThrows(() => getSkinnedPositions(scene.world, a), ComponentError, "has no Skin");
    assertEquals(base.core.allocatedBytes <= scene.core.allocatedBytes, true);
  });

  Deno.test(`${build}: bitecs' addComponent of a component that needs data is undone`, () => {
    const scene = createScene(build, 1);
    const eid = addEntity(scene.world);
    for (const name of ["Skeleton", "Skin", "ClipPlayer"] as const) {
      assertThrows(
        () => addComponent(scene.world, eid, scene.components[name]),
        ComponentError,
        `entity ${eid}: ${name}:`,
      );
      assertEquals(hasComponent(scene.world, eid, scene.components[name]), false);
    }
  });

  Deno.test(`${build}: resetWorld and deleteWorld release what the world held`, () => {
    const core = Core.create(build);
    const cylinder = createCylinder({ joints: 6 });
    const skeleton = new SkeletonAsset(cylinder.skeleton, core);
    const skin = new SkinAsset(skeleton, cylinder.skin);
    const empty = core.allocatedBytes;
    const world = createWorld();
    createAnimation(world, { core });
    for (let i = 0; i < 10; i++) addCharacter(world, addEntity(world), skeleton, skin);
    animate(world, 0);
    resetWorld(world);
    const eid = addEntity(world);
    // A fresh entity 0 or 1 must not inherit the old entity's data.
    assertThrows(() => getPose(world, eid), ComponentError, "has no JointQuat");
    animate(world, 0);
    assertEquals(core.allocatedBytes, empty);
    addCharacter(world, eid, skeleton, skin);
    animate(world, 0);
    deleteWorld(world);
    assertThrows(() => animate(world, 0), TypeError, "the world was deleted");
    assertEquals(core.allocatedBytes, empty);
  });

  Deno.test(`${build}: store fields the core uses are checked before every use ("throw" fault mode)`, () => {
    const scene = createScene(build, 2);
    createAnimation(scene.world, { faults: "throw" });
    const [eid, other] = scene.entities;
    const { JointMat, Skin, JointQuat, Skeleton } = scene.components;
    animate(scene.world, 0);
    const tamper = [
      [JointMat.modelByteOffset, "JointMat", "modelByteOffset"],
      [JointMat.paletteByteOffset, "JointMat", "paletteByteOffset"],
      [JointQuat.byteOffset, "JointQuat", "byteOffset"],
      [Skin.positionsByteOffset, "Skin", "positionsByteOffset"],
      [Skin.normalsByteOffset, "Skin", "normalsByteOffset"],
      [Skin.vertexCount, "Skin", "vertexCount"],
      [Skeleton.jointCount, "Skeleton", "jointCount"],
    ] as const;
    for (const [field, component, name] of tamper) {
      const saved = field[eid];
      field[eid] = JointMat.modelByteOffset[other];
      const before = coreMemory(scene.core).views().u8.slice();
      assertThrows(
        () => animate(scene.world, 0),
        ComponentError,
        `entity ${eid}: ${component}: ${name}`,
      );
      assertEquals(coreMemory(scene.core).views().u8, before, `${name}: nothing written`);
      field[eid] = saved;
      animate(scene.world, 0);
    }
  });

  Deno.test(`${build}: an overflowing pose is a PoseError, not a NaN palette ("throw" fault mode)`, () => {
    const scene = createScene(build, 2);
    createAnimation(scene.world, { faults: "throw" });
    const [eid] = scene.entities;
    getPose(scene.world, eid)[poseIndex(2, PoseField.SX)] = 1e38;
    getPose(scene.world, eid)[poseIndex(3, PoseField.SX)] = 1e38;
    const error = assertThrows(() => animate(scene.world, 0), PoseError);
    assertEquals([error.entity, error.component], [eid, "JointMat"]);
    assert(error.joint >= 2);
  });
}

Deno.test("rest rotations are normalized; a zero rotation is refused", () => {
  const cylinder = createCylinder({ joints: 3 });
  const restPose = cylinder.skeleton.restPose.slice();
  restPose[poseIndex(1, PoseField.QX)] = 1e20;
  restPose[poseIndex(1, PoseField.QW)] = 0;
  restPose[poseIndex(2, PoseField.QX)] = 2;
  restPose[poseIndex(2, PoseField.QW)] = 0;
  const skeleton = new SkeletonAsset({ ...cylinder.skeleton, restPose }, Core.create("scalar"));
  assertEquals(skeleton.restPose[poseIndex(1, PoseField.QX)], 1);
  assertEquals(skeleton.restPose[poseIndex(2, PoseField.QX)], 1);
  restPose.fill(0, poseIndex(0, PoseField.QX), poseIndex(0, PoseField.QW) + 1);
  assertThrows(
    () => new SkeletonAsset({ ...cylinder.skeleton, restPose }),
    RangeError,
    "restPose: joint 0 rotation has length 0",
  );
});

Deno.test("skin joint indices must be whole numbers in range, whatever the array type", () => {
  const cylinder = createCylinder({ joints: 4, segments: 3, rings: 2 });
  const skeleton = new SkeletonAsset(cylinder.skeleton, Core.create("scalar"));
  for (const joint of [-1, NaN, 1.5, 4]) {
    const makes: ((from: ArrayLike<number>) => ArrayLike<number>)[] = [
      (from) => Int16Array.from(from),
      (from) => Float64Array.from(from),
      (from) => Array.from(from),
    ];
    for (const make of makes) {
      const joints = make(cylinder.skin.joints) as unknown as Uint16Array;
      joints[0] = joint;
      if (!Object.is(joints[0], joint)) continue; // the array type cannot hold it
      assertThrows(
        () => new SkinAsset(skeleton, { ...cylinder.skin, joints }),
        RangeError,
        "joints[0]: expected a joint index 0..3",
      );
    }
  }
});

Deno.test("buffer sizes and offsets are read-only in plain JavaScript too", () => {
  const scene = createScene("scalar", 1);
  const skeleton = scene.skeleton as unknown as Record<string, unknown>;
  assertThrows(() => {
    skeleton.jointCount = 99;
  }, TypeError);
  assertThrows(() => {
    (skinInternals(scene.skin).mesh as unknown as Record<string, unknown>).vertexCount = 1e9;
  }, TypeError);
  assertThrows(() => {
    (skinInternals(scene.skin).mesh.offsets as { positions: number }).positions = 0;
  }, TypeError);
  assertEquals("parents" in skeleton, false, "no handle on the skeleton's blocks");
});

Deno.test("disposing assets in use is deferred; the world's memory all comes back", () => {
  const core = Core.create("simd");
  const empty = core.allocatedBytes;
  const cylinder = createCylinder({ joints: 6 });
  const skeleton = new SkeletonAsset(cylinder.skeleton, core);
  const skin = new SkinAsset(skeleton, [cylinder.skin, cylinder.skin]);
  const world = createWorld();
  createAnimation(world, { core });
  const eid = addEntity(world);
  addCharacter(world, eid, skeleton, skin);
  playClip(world, eid, turn());
  skin.dispose();
  skeleton.dispose();
  animate(world, 0.25);
  assertEquals(getSkinnedPositions(world, eid).length, cylinder.skin.vertexCount * 8);
  const next = addEntity(world);
  assertThrows(() => addSkeleton(world, next, skeleton), ComponentError, "was disposed");
  disposeAnimation(world);
  assertEquals(core.allocatedBytes, empty);
});
