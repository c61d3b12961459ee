import "../scalar.ts";
import { coreMemory } from "../simd/memory/_instance.ts";
import { assertEquals, assertThrows } from "@std/assert";
import { addEntity, createWorld, removeEntity } from "bitecs";
import {
  addJointMat,
  addSkeleton,
  addSkin,
  ComponentError,
  createAnimation,
  getSkinnedNormals,
  getSkinnedPositions,
  getSkinnedTangents,
  removeSkin,
  SkeletonAsset,
  SkinAsset,
} from "../mod.ts";
import { Core } from "../kernels.ts";
import { createCylinder } from "../procedural/cylinder.ts";
import type { SkinDefinition } from "../animation/definitions.ts";
import { skinInternals } from "../animation/_asset_internals.ts";

function setup() {
  const core = Core.create("scalar");
  const world = createWorld();
  const components = createAnimation(world, { core });
  const cylinder = createCylinder({ joints: 4, segments: 3, rings: 4 });
  const skeleton = new SkeletonAsset(cylinder.skeleton, core);
  return {
    core,
    world,
    components,
    skeleton,
    cylinder,
    skin: new SkinAsset(skeleton, cylinder.skin),
  };
}

/** Three vertices with 2, 1 and 3 influences. */
function tiny(patch: Partial<SkinDefinition> = {}): SkinDefinition {
  return {
    vertexCount: 3,
    positions: new Float32Array([0, 0, 0, 1, 1, 0, 0, 1, 2, 0, 0, 1]),
    influenceCounts: Uint8Array.from([2, 1, 3]),
    joints: Uint16Array.from([1, 2, 3, 0, 1, 2]),
    weights: Float32Array.from([0.5, 1.5, 4, 1, 2, 1]),
    ...patch,
  };
}

Deno.test("SkinAsset renormalizes weights, sorts influences and orders vertices by influence count", () => {
  const { skeleton } = setup();
  const skin = new SkinAsset(skeleton, tiny());
  // Output order: the 1-influence vertex, then 2, then 3.
  assertEquals(Array.from(skin.vertexOrder), [1, 0, 2]);
  assertEquals(Array.from(skin.outputIndex), [1, 0, 2]);
  assertEquals(Array.from(skin.remapIndices([0, 1, 2, 2])), [1, 0, 2, 2]);
  assertEquals(skin.maxInfluences, 3);
  const m = coreMemory(skeleton.core).views();
  const o = skinInternals(skin).mesh.offsets;
  assertEquals(Array.from(m.u32.subarray(o.parts >> 2, (o.parts >> 2) + 6)), [1, 1, 2, 1, 3, 1]);
  assertEquals(Array.from(m.u16.subarray(o.joints >> 1, (o.joints >> 1) + 6)), [3, 2, 1, 1, 0, 2]);
  assertEquals(Array.from(m.f32.subarray(o.weights >> 2, (o.weights >> 2) + 6)), [
    1,
    0.75,
    0.25,
    0.5,
    0.25,
    0.25,
  ]);
  assertThrows(() => skin.remapIndices([3]), RangeError, "indices[0]: vertex 3 is out of range");
});

Deno.test("SkinAsset rejects bad influences and streams, naming vertex and field", () => {
  const { skeleton } = setup();
  const bad = (patch: Partial<SkinDefinition>, message: string) =>
    assertThrows(() => new SkinAsset(skeleton, tiny(patch)), RangeError, message);
  bad(
    { joints: Uint16Array.from([1, 2, 3, 0, 9, 2]) },
    "joints[4]: expected a joint index 0..3, got 9 (vertex 2 influence 1)",
  );
  bad(
    { weights: Float32Array.from([0.5, NaN, 4, 1, 2, 1]) },
    "weights[1]: expected a finite weight >= 0, got NaN (vertex 0 influence 1)",
  );
  bad(
    { weights: Float32Array.from([0.5, 1, 4, 1, -2, 1]) },
    "weights[4]: expected a finite weight >= 0, got -2 (vertex 2 influence 1)",
  );
  bad({ weights: Float32Array.from([0, 0, 4, 1, 2, 1]) }, "weights: vertex 0: weights sum to zero");
  bad(
    { influenceCounts: Uint8Array.from([2, 0, 3]) },
    "influenceCounts[1]: influences per vertex must be 1..255, got 0",
  );
  bad({ influenceCounts: Uint8Array.from([2, 1]) }, "influenceCounts: expected 3 counts, got 2");
  bad(
    { positions: new Float32Array([0, 0, 0, 1, NaN, 0, 0, 1, 2, 0, 0, 1]) },
    "positions[4] (element 1, component 0) is NaN",
  );
  bad({ normals: new Float32Array(8) }, "normals: expected at least 12 values, got 8");
  bad({ joints: Uint16Array.from([1, 2]) }, "joints: expected at least 6 values, got 2");
});

Deno.test("addSkin checks what the entity has and what the skin offers", () => {
  const { world, core, skeleton, skin, cylinder } = setup();
  const eid = addEntity(world);
  assertThrows(
    () => addSkin(world, eid, skin),
    ComponentError,
    `entity ${eid}: Skin: the entity needs a Skeleton first`,
  );
  addSkeleton(world, eid, skeleton);
  assertThrows(() => addSkin(world, eid, skin), ComponentError, "needs a JointMat first");
  addJointMat(world, eid);
  const otherSkeleton = new SkeletonAsset(
    createCylinder({ joints: 5, segments: 3, rings: 3 }).skeleton,
    core,
  );
  const otherSkin = new SkinAsset(
    otherSkeleton,
    createCylinder({ joints: 5, segments: 3, rings: 3 }).skin,
  );
  assertThrows(
    () => addSkin(world, eid, otherSkin),
    ComponentError,
    "the skin is bound to another skeleton than the entity's",
  );
  const bare = new SkinAsset(skeleton, {
    ...cylinder.skin,
    normals: undefined,
    tangents: undefined,
  });
  assertThrows(
    () => addSkin(world, eid, bare, { normals: true }),
    ComponentError,
    "normals requested, but the skin has no normals",
  );
  addSkin(world, eid, skin, { tangents: false });
  assertEquals(getSkinnedPositions(world, eid).length, skin.vertexCount * 4);
  assertEquals(getSkinnedNormals(world, eid)?.length, skin.vertexCount * 4);
  assertEquals(getSkinnedTangents(world, eid), undefined);
  assertThrows(() => addSkin(world, eid, skin), ComponentError, "already has a Skin");
  removeSkin(world, eid);
  assertThrows(
    () => removeSkin(world, eid),
    ComponentError,
    `entity ${eid}: Skin: the entity has no Skin (removed twice?)`,
  );
});

Deno.test("a recycled entity id starts with zeroed skinned output", () => {
  const { world, skeleton, skin } = setup();
  const first = addEntity(world);
  addSkeleton(world, first, skeleton);
  addJointMat(world, first);
  addSkin(world, first, skin);
  getSkinnedPositions(world, first).fill(5);
  getSkinnedNormals(world, first)!.fill(5);
  removeEntity(world, first);
  const second = addEntity(world);
  assertEquals(second, first);
  addSkeleton(world, second, skeleton);
  addJointMat(world, second);
  addSkin(world, second, skin);
  assertEquals(getSkinnedPositions(world, second).every((v) => v === 0), true);
  assertEquals(getSkinnedNormals(world, second)!.every((v) => v === 0), true);
});

Deno.test("a skin of several meshes: one output, a contiguous range per mesh", () => {
  const { skeleton, cylinder, world } = setup();
  const second = createCylinder({ joints: 4, segments: 4, rings: 2, influences: 3 }).skin;
  const skin = new SkinAsset(skeleton, [cylinder.skin, second]);
  assertEquals(skin.meshes, [
    { firstVertex: 0, vertexCount: cylinder.skin.vertexCount },
    { firstVertex: cylinder.skin.vertexCount, vertexCount: second.vertexCount },
  ]);
  assertEquals(skin.vertexCount, cylinder.skin.vertexCount + second.vertexCount);
  // Indices and attributes of mesh 1 land in mesh 1's output range, at the
  // vertex that holds the source vertex's position.
  const indices = skin.remapIndices([0, 1, 2], 1);
  const uv = Float32Array.from({ length: second.vertexCount * 2 }, (_, i) => i);
  const reordered = skin.reorderAttribute(uv, 2, 1);
  const eid = addEntity(world);
  addSkeleton(world, eid, skeleton);
  addJointMat(world, eid);
  addSkin(world, eid, skin);
  for (const [source, output] of [0, 1, 2].map((v, i) => [v, indices[i]])) {
    const first = skin.meshes[1].firstVertex;
    assertEquals(output >= first, true);
    assertEquals(skin.vertexOrder[output], first + source);
    assertEquals(reordered[(output - first) * 2], source * 2);
  }
  assertThrows(() => skin.remapIndices([second.vertexCount], 1), RangeError, "out of range");
  assertThrows(() => skin.remapIndices([0], 2), RangeError, "mesh: expected 0..1");
  assertThrows(
    () => new SkinAsset(skeleton, [cylinder.skin, { ...second, normals: undefined }]),
    RangeError,
    "meshes[1]: normals: every mesh of a skin must have normals",
  );
});
