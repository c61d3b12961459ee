/**
 * Level of detail's influence caps and settings: an entity skinned with
 * the k largest influences equals a float64 reference that drops each
 * vertex's smallest weights and renormalizes the rest, on the animated
 * poses of the free models (Fox, CesiumMan); the distance bands pick by
 * the conservative joint bounds; bad arguments are typed errors naming
 * the argument, with nothing written.
 */

import { assert, assertEquals, assertThrows } from "@std/assert";
import { addEntity, createWorld } from "bitecs";
import {
  addCharacter,
  addSkeleton,
  ComponentError,
  createAnimation,
  createAnimationPipeline,
  getJointSkinBounds,
  getSkinnedPositions,
  getSkinningPalette,
  playClip,
  SkeletonAsset,
  type SkinDefinition,
} from "../mod.ts";
import {
  type LevelOfDetailSettings,
  removeLevelOfDetail,
  setLevelOfDetail,
  setLevelOfDetailByDistance,
} from "../lod.ts";
import { createCylinder } from "../procedural/cylinder.ts";
import { createCharacterAssets, importGltf } from "../gltf/mod.ts";
import { Core } from "../kernels.ts";
import { findModel } from "./_assets.ts";

/** Source vertex `v` of `meshes` skinned by `palette` with its `cap` heaviest influences, in float64. */
function reference(
  meshes: readonly SkinDefinition[],
  v: number,
  palette: Float32Array,
  cap: number,
): number[] | undefined {
  let mesh = 0;
  while (v >= meshes[mesh].vertexCount) v -= meshes[mesh++].vertexCount;
  const { influenceCounts, joints, weights, positions } = meshes[mesh];
  let k = 0;
  for (let u = 0; u < v; u++) k += influenceCounts[u];
  const all = Array.from({ length: influenceCounts[v] }, (_, i) => ({
    joint: joints[k + i],
    weight: weights[k + i],
  })).sort((a, b) => b.weight - a.weight);
  // A tie at the cut makes "the k largest" ambiguous: such vertices are not compared.
  if (cap < all.length && all[cap - 1].weight === all[cap].weight) return undefined;
  const kept = all.slice(0, cap), sum = kept.reduce((s, i) => s + i.weight, 0);
  const p = [positions[v * 4], positions[v * 4 + 1], positions[v * 4 + 2], 1];
  const out = [0, 0, 0];
  for (const { joint, weight } of kept) {
    const w = kept.length === 1 ? 1 : weight / sum;
    for (let r = 0; r < 3; r++) {
      let dot = 0;
      for (let c = 0; c < 4; c++) dot += palette[joint * 12 + r * 4 + c] * p[c];
      out[r] += w * dot;
    }
  }
  return out;
}

for (const file of ["Fox.glb", "CesiumMan.glb"]) {
  Deno.test(`influence caps (${file}): the k largest influences renormalized, as a float64 reference`, async () => {
    const model = await importGltf(findModel(file)!);
    const definition = model.skeletons.find((s) => s.primitives.length > 0)!;
    const world = createWorld();
    const core = Core.create("simd");
    createAnimation(world, { core });
    const { skeleton, skin } = createCharacterAssets(definition, core);
    const meshes = definition.primitives.map((p) => p.skin);
    const caps = [0, 1, 2, 3];
    const entities = caps.map((cap) => {
      const eid = addEntity(world);
      addCharacter(world, eid, skeleton, skin);
      playClip(world, eid, definition.clips[0], { time: 0.37 });
      setLevelOfDetail(world, eid, { maxInfluences: cap });
      return eid;
    });
    const animate = createAnimationPipeline();
    for (let frame = 0; frame < 5; frame++) animate(world, 1 / 30);
    const order = skin.vertexOrder;
    caps.forEach((cap, e) => {
      const palette = getSkinningPalette(world, entities[e]);
      const positions = getSkinnedPositions(world, entities[e]);
      let compared = 0;
      for (let i = 0; i < skin.vertexCount; i++) {
        const expected = reference(meshes, order[i], palette, cap || 255);
        if (!expected) continue;
        compared++;
        for (let r = 0; r < 3; r++) {
          const got = positions[i * 4 + r];
          const tolerance = 2e-4 * (1 + Math.abs(expected[r]));
          assert(
            Math.abs(got - expected[r]) <= tolerance,
            `cap ${cap}, vertex ${i}, axis ${r}: ${got} vs ${expected[r]}`,
          );
        }
      }
      assert(compared > skin.vertexCount * 0.9, `cap ${cap}: ${compared} vertices compared`);
    });
    // The caps change the output: dropping influences moves vertices.
    const full = getSkinnedPositions(world, entities[0]),
      one = getSkinnedPositions(world, entities[1]);
    assert(full.some((x, i) => Math.abs(x - one[i]) > 1e-3), "cap 1 differs from all");
  });
}

Deno.test("distance bands: by the distance to the joint bounds, culled beyond the last band", async () => {
  const model = await importGltf(findModel("Fox.glb")!);
  const definition = model.skeletons.find((s) => s.primitives.length > 0)!;
  const world = createWorld();
  const components = createAnimation(world);
  const { skeleton, skin } = createCharacterAssets(definition);
  const eid = addEntity(world);
  addCharacter(world, eid, skeleton, skin);
  playClip(world, eid, definition.clips[0]);
  createAnimationPipeline()(world, 1 / 60);
  const { max } = getJointSkinBounds(world, eid);
  const bands = [
    { maxDistance: 10 },
    { maxDistance: 50, updateRate: 2, maxInfluences: 2 },
    { maxDistance: 100, updateRate: 4, maxInfluences: 1 },
  ];
  const lod = components.LevelOfDetail;
  for (
    const [distance, rate, cap, culled] of [
      [5, 1, 0, 0],
      [30, 2, 2, 0],
      [99, 4, 1, 0],
      [101, 4, 1, 1],
    ] as const
  ) {
    setLevelOfDetailByDistance(world, [eid], [max[0] + distance, max[1], max[2]], bands);
    const at = `distance ${distance}`;
    assertEquals(lod.updateRate[eid], rate, `${at}: update rate`);
    assertEquals(components.Skin.maxInfluences[eid], cap, `${at}: cap`);
    assertEquals(lod.culled[eid], culled, `${at}: culled`);
  }
});

Deno.test("level of detail: bad arguments are typed errors naming the argument, nothing written", () => {
  const world = createWorld();
  const components = createAnimation(world);
  const bare = addEntity(world);
  const skeletonOnly = addEntity(world);
  addSkeleton(world, skeletonOnly, new SkeletonAsset(createCylinder({ joints: 2 }).skeleton));
  const lod = components.LevelOfDetail;
  const cases: [() => void, ErrorConstructor | typeof ComponentError, string][] = [
    [
      () => setLevelOfDetail(world, skeletonOnly, { updateRate: 0 }),
      RangeError,
      "settings.updateRate",
    ],
    [
      () => setLevelOfDetail(world, skeletonOnly, { updateRate: 2.5 }),
      RangeError,
      "settings.updateRate",
    ],
    [
      () => setLevelOfDetail(world, skeletonOnly, { updateRate: 256 }),
      RangeError,
      "settings.updateRate",
    ],
    [
      () => setLevelOfDetail(world, skeletonOnly, { maxInfluences: -1 }),
      RangeError,
      "settings.maxInfluences",
    ],
    [
      () => setLevelOfDetail(world, skeletonOnly, { maxInfluences: 2 }),
      ComponentError,
      "needs a Skin",
    ],
    [
      () => setLevelOfDetail(world, skeletonOnly, { visible: 1 as unknown as boolean }),
      TypeError,
      "settings.visible",
    ],
    [
      () => setLevelOfDetail(world, skeletonOnly, null as unknown as LevelOfDetailSettings),
      TypeError,
      "settings",
    ],
    [() => setLevelOfDetail(world, bare, { updateRate: 2 }), ComponentError, "needs a Skeleton"],
    [() => setLevelOfDetail(world, 9999, { updateRate: 2 }), ComponentError, "does not exist"],
    [
      () => setLevelOfDetailByDistance(world, [skeletonOnly], [0, 0], [{ maxDistance: 1 }]),
      TypeError,
      "viewpoint",
    ],
    [
      () => setLevelOfDetailByDistance(world, [skeletonOnly], [0, NaN, 0], [{ maxDistance: 1 }]),
      RangeError,
      "viewpoint[1]",
    ],
    [() => setLevelOfDetailByDistance(world, [skeletonOnly], [0, 0, 0], []), TypeError, "bands"],
    [
      () =>
        setLevelOfDetailByDistance(world, [skeletonOnly], [0, 0, 0], [{ maxDistance: 5 }, {
          maxDistance: 2,
        }]),
      RangeError,
      "bands[1].maxDistance",
    ],
    [
      () =>
        setLevelOfDetailByDistance(world, [skeletonOnly], [0, 0, 0], [{
          maxDistance: 5,
          updateRate: 0,
        }]),
      RangeError,
      "bands[0].updateRate",
    ],
    [
      () => setLevelOfDetailByDistance(world, [skeletonOnly], [0, 0, 0], [{ maxDistance: 5 }]),
      ComponentError,
      "has no Skin",
    ],
    [() => removeLevelOfDetail(world, skeletonOnly), ComponentError, "has no LevelOfDetail"],
  ];
  for (const [call, type, message] of cases) assertThrows(call, type, message);
  assertEquals(lod.updateRate[skeletonOnly] ?? 0, 0, "nothing written");
  // A good call after the refused ones.
  setLevelOfDetail(world, skeletonOnly, { updateRate: 3, visible: false });
  assertEquals([lod.updateRate[skeletonOnly], lod.culled[skeletonOnly]], [3, 1]);
  removeLevelOfDetail(world, skeletonOnly);
  setLevelOfDetail(world, skeletonOnly, {});
  assertEquals(lod.updateRate[skeletonOnly], 1, "added again: every frame");
});

Deno.test("influence caps: each cap's tables built once, on first use, no larger than the skin's; none at or above its most", async () => {
  const model = await importGltf(findModel("Fox.glb")!);
  const definition = model.skeletons.find((s) => s.primitives.length > 0)!;
  const world = createWorld();
  const core = Core.create("simd");
  const components = createAnimation(world, { core });
  const { skeleton, skin } = createCharacterAssets(definition, core);
  const entities = [0, 1, 2, 3].map(() => {
    const eid = addEntity(world);
    addCharacter(world, eid, skeleton, skin);
    playClip(world, eid, definition.clips[0]);
    return eid;
  });
  const animate = createAnimationPipeline();
  const caps = components.Skin.maxInfluences;
  const settle = () => {
    for (let frame = 0; frame < 3; frame++) animate(world, 1 / 30);
    return core.allocatedBytes;
  };
  const influences = definition.primitives.reduce((sum, p) => sum + p.skin.joints.length, 0);
  const uncapped = settle();
  // At the skin's most influences, or above: the skin's own tables.
  entities.forEach((eid) => caps[eid] = skin.maxInfluences);
  assertEquals(settle(), uncapped, "a cap at the most builds nothing");
  const grown: number[] = [];
  for (let cap = 1; cap < skin.maxInfluences; cap++) {
    caps[entities[cap % 4]] = cap;
    const first = settle(), again = settle();
    assertEquals(again, first, `cap ${cap}: built once`);
    grown.push(first);
  }
  // Each cap's tables: at most the skin's parts, joints and weights (6 bytes an influence), padded.
  const perCap = grown.map((bytes, i) => bytes - (i ? grown[i - 1] : uncapped));
  for (const bytes of perCap) assert(bytes > 0 && bytes <= influences * 6 + 1024, `${bytes} bytes`);
  // Every entity at every cap again: nothing more.
  for (let cap = 1; cap < skin.maxInfluences; cap++) entities.forEach((eid) => caps[eid] = cap);
  assertEquals(settle(), grown.at(-1), "caps already built are reused");
});
