/**
 * Dual-quaternion skins in the skinning systems.
 *
 * 1. A two-joint cylinder twisted by 150° about its axis: the cross-section
 *    halfway between the joints (weights ½, ½) keeps its area with dual
 *    quaternions and collapses with linear skinning (candy wrapper). Both
 *    areas are measured (shoelace formula on the skinned ring) and printed.
 * 2. On random rigid poses, the system's output equals the scalar reference
 *    on the entity's palette, linear and dual-quaternion entities skinned
 *    side by side; bounds are the box of the output.
 * 3. A joint with non-uniform scale is a `DualQuaternionError` naming the
 *    entity and joint, and nothing is written.
 */

import { assert, assertEquals, assertInstanceOf, assertLess, assertThrows } from "@std/assert";
import { addEntity, createWorld } from "bitecs";
import {
  addCharacter,
  createAnimation,
  DualQuaternionError,
  getSkinnedBounds,
  getSkinnedPositions,
  getSkinningPalette,
  multiplyInverseBindSystem,
  quatToMatSystem,
  setJointPose,
  SkeletonAsset,
  SkinAsset,
  skinSystem,
  skinWithTangentsSystem,
  transformSkeletonSystem,
} from "../mod.ts";
import { Core } from "../kernels.ts";
import { createCylinder } from "../procedural/cylinder.ts";
import * as ref from "../simd/scalar/mod.ts";
import { positionBounds } from "../simd/scalar/skinning.ts";
import { BUILDS, maxDifference, random, randomQuaternion } from "./_scene.ts";

const SEGMENTS = 24, RINGS = 11;

/** Area of ring `ring` of the skinned cylinder projected on the xz plane (shoelace). */
function ringArea(positions: Float32Array, skin: SkinAsset, ring: number): number {
  let area = 0;
  for (let s = 0; s < SEGMENTS; s++) {
    const a = skin.outputIndex[ring * SEGMENTS + s] * 4;
    const b = skin.outputIndex[ring * SEGMENTS + (s + 1) % SEGMENTS] * 4;
    area += positions[a] * positions[b + 2] - positions[b] * positions[a + 2];
  }
  return Math.abs(area) / 2;
}

function runPipeline(world: object): void {
  quatToMatSystem(world);
  transformSkeletonSystem(world);
  multiplyInverseBindSystem(world);
  skinSystem(world);
  skinWithTangentsSystem(world);
}

for (const build of BUILDS) {
  Deno.test(`dual-quaternion skin (${build}) keeps a twisted cylinder's cross-section`, () => {
    const core = Core.create(build);
    const world = createWorld();
    createAnimation(world, { core });
    const cylinder = createCylinder({ joints: 2, segments: SEGMENTS, rings: RINGS, influences: 2 });
    const skeleton = new SkeletonAsset(cylinder.skeleton, core);
    const linear = new SkinAsset(skeleton, cylinder.skin);
    const dual = new SkinAsset(skeleton, cylinder.skin, { method: "dual-quaternion" });
    const angle = (150 * Math.PI) / 180;
    const areas = [linear, dual].map((skin) => {
      const eid = addEntity(world);
      addCharacter(world, eid, skeleton, skin, { normals: false, tangents: false });
      setJointPose(world, eid, 1, [0, 10, 0], [0, Math.sin(angle / 2), 0, Math.cos(angle / 2)]);
      return { eid, skin };
    });
    runPipeline(world);
    const middle = (RINGS - 1) / 2;
    const bind = ringArea(
      Float32Array.from(cylinder.skin.positions),
      { outputIndex: Uint32Array.from({ length: SEGMENTS * RINGS }, (_, i) => i) } as SkinAsset,
      middle,
    );
    const [linearArea, dualArea] = areas.map(({ eid, skin }) =>
      ringArea(getSkinnedPositions(world, eid), skin, middle)
    );
    console.log(
      `  twist 150°, middle ring area / bind area: linear ${(linearArea / bind).toFixed(4)}, ` +
        `dual quaternion ${(dualArea / bind).toFixed(4)}`,
    );
    // Linear: the ring's radius is |cos 75°| = 0.259, its area 0.067 of the bind area.
    assertLess(linearArea / bind, 0.1);
    assertLess(Math.abs(dualArea / bind - 1), 1e-4);
  });

  Deno.test(`dual-quaternion skin (${build}) equals the reference beside linear entities`, () => {
    const core = Core.create(build);
    const world = createWorld();
    createAnimation(world, { core });
    const cylinder = createCylinder({ joints: 5, segments: 6, rings: 9, influences: "mixed" });
    const skeleton = new SkeletonAsset(cylinder.skeleton, core);
    const dual = new SkinAsset(skeleton, cylinder.skin, { method: "dual-quaternion" });
    const linear = new SkinAsset(skeleton, cylinder.skin);
    const entities = [dual, linear, dual].map((skin, i) => {
      const eid = addEntity(world);
      addCharacter(world, eid, skeleton, skin, i === 2 ? { normals: false, tangents: false } : {});
      return { eid, skin };
    });
    const next = random(5);
    for (let round = 0; round < 5; round++) {
      for (const { eid } of entities) {
        for (let j = 0; j < skeleton.jointCount; j++) {
          const s = 0.5 + next();
          setJointPose(world, eid, j, [next(), 1 + next(), next()], randomQuaternion(next), [
            s,
            s,
            s,
          ]);
        }
      }
      runPipeline(world);
      for (const { eid, skin } of entities) {
        const positions = getSkinnedPositions(world, eid);
        const box = new Float32Array(8);
        positionBounds(positions, skin.vertexCount, box);
        assertEquals(getSkinnedBounds(world, eid), {
          min: [box[0], box[1], box[2]],
          max: [box[4], box[5], box[6]],
        });
        if (skin !== dual) continue;
        const palette = getSkinningPalette(world, eid);
        const table = new Float32Array(skeleton.jointCount * ref.DUAL_QUATERNION_FLOATS);
        assertEquals(ref.paletteToDualQuaternions(palette, skeleton.jointCount, table), -1);
        // Source order, one part per vertex, influences sorted by weight.
        const def = cylinder.skin;
        const parts: number[] = [], joints: number[] = [], weights: number[] = [];
        for (let v = 0, k = 0; v < def.vertexCount; k += def.influenceCounts[v], v++) {
          const n = def.influenceCounts[v];
          const list = Array.from({ length: n }, (_, i) => [def.joints[k + i], def.weights[k + i]])
            .sort((a, b) => b[1] - a[1]);
          parts.push(n, 1);
          for (const [j, w] of list) joints.push(j), weights.push(w);
        }
        const inSource = new Float32Array(positions.length);
        const empty = new Float32Array(0);
        ref.skinDualQuaternions(
          table,
          Uint32Array.from(parts),
          Uint16Array.from(joints),
          Float32Array.from(weights),
          Float32Array.from(def.positions),
          empty,
          empty,
          inSource,
          empty,
          empty,
          0,
          255,
        );
        const expected = new Float32Array(positions.length);
        for (let v = 0; v < def.vertexCount; v++) {
          expected.set(inSource.subarray(v * 4, v * 4 + 4), skin.outputIndex[v] * 4);
        }
        assertLess(maxDifference(positions, expected), 1e-4);
      }
    }
  });

  Deno.test(`dual-quaternion skin (${build}): non-uniform scale is a DualQuaternionError ("throw" fault mode)`, () => {
    const core = Core.create(build);
    const world = createWorld();
    createAnimation(world, { core, faults: "throw" });
    const cylinder = createCylinder({ joints: 3, segments: 4, rings: 5 });
    const skeleton = new SkeletonAsset(cylinder.skeleton, core);
    const dual = new SkinAsset(skeleton, cylinder.skin, { method: "dual-quaternion" });
    const eid = addEntity(world);
    addCharacter(world, eid, skeleton, dual);
    runPipeline(world);
    const before = getSkinnedPositions(world, eid).slice();
    setJointPose(world, eid, 2, [0, 1, 0], [0, 0, 0, 1], [1, 2, 1]);
    quatToMatSystem(world);
    transformSkeletonSystem(world);
    multiplyInverseBindSystem(world);
    const error = assertThrows(() => skinWithTangentsSystem(world), DualQuaternionError);
    assertInstanceOf(error, RangeError);
    assertEquals([error.entity, error.joint], [eid, 2]);
    assertEquals(getSkinnedPositions(world, eid), before);
    assert(new SkinAsset(skeleton, cylinder.skin).method === "linear");
    assertThrows(
      // @ts-expect-error: not a method
      () => new SkinAsset(skeleton, cylinder.skin, { method: "cubic" }),
      RangeError,
      "method",
    );
  });
}
