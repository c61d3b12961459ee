import { assertEquals, assertLess, assertThrows } from "@std/assert";
import { addEntity, createWorld, hasComponent } from "bitecs";
import {
  addJointMat,
  addJointQuat,
  addSkeleton,
  addSkin,
  createAnimation,
  getSkinnedNormals,
  getSkinnedPositions,
  getSkinnedTangents,
  getSkinningPalette,
  multiplyInverseBindSystem,
  quatToMatSystem,
  removeSkin,
  setJointPose,
  SkeletonAsset,
  SkinAsset,
  skinSystem,
  skinWithTangentsSystem,
  transformSkeletonSystem,
} from "../mod.ts";
import { Core } from "../kernels.ts";
import { createCylinder } from "../procedural/cylinder.ts";
import type { SkinDefinition } from "../animation/definitions.ts";
import { BUILDS, maxDifference, random, randomQuaternion } from "./_scene.ts";

/** Skins source vertex by vertex from the definition, independently of the core's layout. */
function expectedSkin(
  skin: SkinDefinition,
  palette: Float32Array,
  cap = Infinity,
): { positions: number[]; normals: number[]; tangents: number[] } {
  const positions: number[] = [], normals: number[] = [], tangents: number[] = [];
  for (let v = 0, k = 0; v < skin.vertexCount; k += skin.influenceCounts[v], v++) {
    const list = Array.from(
      { length: skin.influenceCounts[v] },
      (_, i) => [skin.joints[k + i], skin.weights[k + i]],
    )
      .sort((a, b) => b[1] - a[1]);
    const total = list.reduce((s, [, w]) => s + w, 0);
    const used = list.slice(0, Math.min(cap, list.length));
    const usedTotal = used.reduce((s, [, w]) => s + w / total, 0);
    const c = new Array(12).fill(0);
    for (const [j, w] of used) {
      for (let e = 0; e < 12; e++) c[e] += (w / total / usedTotal) * palette[j * 12 + e];
    }
    const at = (stream: ArrayLike<number>, i: number) => stream[v * 4 + i];
    const p = [0, 1, 2].map((i) => at(skin.positions, i));
    positions.push(
      ...[0, 1, 2].map((r) =>
        c[r * 4] * p[0] + c[r * 4 + 1] * p[1] + c[r * 4 + 2] * p[2] + c[r * 4 + 3]
      ),
      1,
    );
    for (
      const [stream, out, w] of [[skin.normals!, normals, 0], [
        skin.tangents!,
        tangents,
        at(skin.tangents!, 3),
      ]] as const
    ) {
      const d = [0, 1, 2].map((i) => at(stream, i));
      out.push(
        ...[0, 1, 2].map((r) => c[r * 4] * d[0] + c[r * 4 + 1] * d[1] + c[r * 4 + 2] * d[2]),
        w,
      );
    }
  }
  return { positions, normals, tangents };
}

/** The output streams back in source vertex order. */
function inSourceOrder(stream: Float32Array, skin: SkinAsset): number[] {
  const out: number[] = [];
  for (let v = 0; v < skin.vertexCount; v++) {
    out.push(...stream.subarray(skin.outputIndex[v] * 4, skin.outputIndex[v] * 4 + 4));
  }
  return out;
}

const POSITIONS_ONLY = { normals: false, tangents: false } as const;

/**
 * A world of cylinders on one skeleton with two skins of different meshes;
 * `frame` runs the systems and checks every skinned entity's positions
 * against its own skin.
 */
function twoSkins(build: (typeof BUILDS)[number]) {
  const core = Core.create(build);
  const world = createWorld();
  const { Skin } = createAnimation(world, { core });
  const shapes = [
    { joints: 5, segments: 3, rings: 4, radius: 2, influences: 1 },
    { joints: 5, segments: 6, rings: 11, radius: 1 },
  ];
  const cylinders = shapes.map((shape) => createCylinder(shape));
  const skeleton = new SkeletonAsset(cylinders[0].skeleton, core);
  const skins = cylinders.map((cylinder) => ({
    definition: cylinder.skin,
    skin: new SkinAsset(skeleton, cylinder.skin),
  }));
  const next = random(11);
  const entities: { eid: number; kind: (typeof skins)[number] | undefined }[] = [];
  return {
    world,
    skins,
    add(kind: number) {
      const eid = addEntity(world);
      addSkeleton(world, eid, skeleton);
      addJointQuat(world, eid);
      addJointMat(world, eid);
      addSkin(world, eid, skins[kind].skin, POSITIONS_ONLY);
      for (let j = 0; j < skeleton.jointCount; j++) {
        setJointPose(world, eid, j, [next(), next(), next()], randomQuaternion(next), [1, 1, 1]);
      }
      const entity = { eid, kind: skins[kind] };
      entities.push(entity);
      return entity;
    },
    frame() {
      quatToMatSystem(world);
      transformSkeletonSystem(world);
      multiplyInverseBindSystem(world);
      skinSystem(world);
      for (const { eid, kind } of entities) {
        if (!hasComponent(world, eid, Skin)) continue;
        const positions = getSkinnedPositions(world, eid);
        assertEquals(positions.length, kind!.skin.vertexCount * 4);
        const expected = expectedSkin(kind!.definition, getSkinningPalette(world, eid)).positions;
        assertLess(maxDifference(inSourceOrder(positions, kind!.skin), expected), 1e-4);
      }
    },
  };
}

for (const build of BUILDS) {
  Deno.test(`skinning systems (${build}) skin positions-only and full entities side by side`, () => {
    const core = Core.create(build);
    const world = createWorld();
    createAnimation(world, { core });
    const cylinder = createCylinder({ joints: 7, segments: 6, rings: 11, influences: "mixed" });
    // Unnormalized, unsorted weights, as real assets have them.
    const weights = cylinder.skin.weights.map((w, i) => w * (1 + (i % 3)));
    const definition = { ...cylinder.skin, weights };
    const skeleton = new SkeletonAsset(cylinder.skeleton, core);
    const skin = new SkinAsset(skeleton, definition);
    const next = random(4);
    const entities = [true, false, true].map((full) => {
      const eid = addEntity(world);
      addSkeleton(world, eid, skeleton);
      addJointQuat(world, eid);
      addJointMat(world, eid);
      addSkin(world, eid, skin, full ? {} : { normals: false, tangents: false });
      for (let j = 0; j < skeleton.jointCount; j++) {
        setJointPose(world, eid, j, [next(), next(), next()], randomQuaternion(next), [
          1,
          1 + next(),
          1,
        ]);
      }
      return { eid, full };
    });
    for (const cap of [255, 2, 1]) {
      quatToMatSystem(world);
      transformSkeletonSystem(world);
      multiplyInverseBindSystem(world);
      skinSystem(world, { maxInfluences: cap });
      skinWithTangentsSystem(world, { maxInfluences: cap });
      for (const { eid, full } of entities) {
        const expected = expectedSkin(definition, getSkinningPalette(world, eid), cap);
        const scale = 1e-5 * 20;
        assertLess(
          maxDifference(inSourceOrder(getSkinnedPositions(world, eid), skin), expected.positions),
          scale,
        );
        if (full) {
          assertLess(
            maxDifference(inSourceOrder(getSkinnedNormals(world, eid)!, skin), expected.normals),
            1e-5,
          );
          assertLess(
            maxDifference(inSourceOrder(getSkinnedTangents(world, eid)!, skin), expected.tangents),
            1e-5,
          );
        } else {
          assertEquals(getSkinnedNormals(world, eid), undefined);
          assertEquals(getSkinnedTangents(world, eid), undefined);
        }
      }
    }
  });

  Deno.test(`skinSystem (${build}) skins entities of different skins, interleaved, each with its own mesh`, () => {
    // The rows of one call reuse a skin's mesh words for the next entity of
    // the same skin: A, B, A, B must still give each entity its own mesh.
    const scene = twoSkins(build);
    for (const kind of [0, 1, 0, 1]) scene.add(kind);
    scene.frame();
  });

  Deno.test(`skinSystem (${build}) rewrites a row whose entity's skin changed since the last frame`, () => {
    // A row keeps its mesh words from the last frame when it holds the same
    // skin: a row that now holds another skin (an entity gone before it, a
    // skin replaced) must get the new skin's.
    const scene = twoSkins(build);
    const first = scene.add(0);
    scene.add(1);
    scene.frame();
    removeSkin(scene.world, first.eid);
    scene.frame();
    addSkin(scene.world, first.eid, scene.skins[1].skin, POSITIONS_ONLY);
    first.kind = scene.skins[1];
    scene.frame();
    removeSkin(scene.world, first.eid);
    addSkin(scene.world, first.eid, scene.skins[0].skin, POSITIONS_ONLY);
    first.kind = scene.skins[0];
    scene.frame();
  });

  Deno.test(`skinWithTangentsSystem (${build}) renormalizes on request`, () => {
    const core = Core.create(build);
    const world = createWorld();
    createAnimation(world, { core });
    const cylinder = createCylinder({ joints: 4, segments: 4, rings: 5 });
    const skeleton = new SkeletonAsset(cylinder.skeleton, core);
    const skin = new SkinAsset(skeleton, cylinder.skin);
    const eid = addEntity(world);
    addSkeleton(world, eid, skeleton);
    addJointQuat(world, eid);
    addJointMat(world, eid);
    addSkin(world, eid, skin);
    for (let j = 0; j < skeleton.jointCount; j++) {
      setJointPose(world, eid, j, [0, 1, 0], [0, 0, 0, 1], [2, 3, 0.5]);
    }
    quatToMatSystem(world);
    transformSkeletonSystem(world);
    multiplyInverseBindSystem(world);
    skinWithTangentsSystem(world, { renormalize: true });
    for (const stream of [getSkinnedNormals(world, eid)!, getSkinnedTangents(world, eid)!]) {
      for (let v = 0; v < skin.vertexCount; v++) {
        assertLess(
          Math.abs(Math.hypot(stream[v * 4], stream[v * 4 + 1], stream[v * 4 + 2]) - 1),
          1e-5,
        );
      }
    }
    assertThrows(() => skinSystem(world, { maxInfluences: 0 }), RangeError, "maxInfluences");
  });
}
