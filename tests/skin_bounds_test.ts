/**
 * Skinned bounds.
 *
 * 1. Kernel: with a bounds pointer, every build writes exactly the
 *    component-wise min/max of the positions it wrote (w included), and the
 *    same positions as without; the scalar build's bounds are the
 *    reference's (`positionBounds` of `skinVertices`' output); no vertex
 *    gives +Infinity / -Infinity.
 * 2. Systems: `getSkinnedBounds` is undefined before the first skinning
 *    (and again after the Skin is re-added, or after skinning with
 *    `bounds: false`), then the box of
 *    `getSkinnedPositions`; `getJointSkinBounds` contains it on random
 *    poses, scales and influence caps.
 */

import "../scalar.ts";
import fc from "fast-check";
import { assert, assertEquals } from "@std/assert";
import { addEntity, createWorld } from "bitecs";
import {
  addCharacter,
  addSkin,
  createAnimation,
  getJointSkinBounds,
  getSkinnedBounds,
  getSkinnedPositions,
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
import { instantiate } from "../simd/wasm/_core.ts";
import * as ref from "../simd/scalar/mod.ts";
import { positionBounds } from "../simd/scalar/skinning.ts";
import { BUILDS, fcParams, RUNS } from "./_arbitrary.ts";
import { random, randomQuaternion } from "./_scene.ts";
import { copyToCore, skinAt } from "./_skin_call.ts";

const JOINTS = 5;

const caseArb = fc.record({
  parts: fc.array(
    fc.tuple(fc.integer({ min: 1, max: 6 }), fc.integer({ min: 0, max: 9 })),
    { maxLength: 4 },
  ),
  flags: fc.integer({ min: 0, max: 7 }),
  cap: fc.constantFrom(1, 2, 3, 4, 5, 255),
  seed: fc.integer(),
});

Deno.test("skinVertices bounds: every build's bounds are the box of its own output", () => {
  fc.assert(
    fc.property(caseArb, ({ parts, flags, cap, seed }) => {
      const next = random(seed);
      const vertices = parts.reduce((a, [, v]) => a + v, 0);
      const influences = parts.reduce((a, [n, v]) => a + n * v, 0);
      const palette = Float32Array.from({ length: JOINTS * 12 }, () => next() * 8 - 4);
      const joints = Uint16Array.from({ length: influences }, () => Math.floor(next() * JOINTS));
      const weights = Float32Array.from({ length: influences }, () => 0.05 + next());
      const stream = () => Float32Array.from({ length: vertices * 4 }, () => next() * 10 - 5);
      const inputs = [stream(), stream(), stream()];
      const partWords = Uint32Array.from(parts.flat());
      const expected = [0, 1, 2].map(() => new Float32Array(vertices * 4));
      const expectedBounds = new Float32Array(8);
      ref.skinVertices(
        palette,
        partWords,
        joints,
        weights,
        inputs[0],
        inputs[1],
        inputs[2],
        expected[0],
        expected[1],
        expected[2],
        flags,
        cap,
        expectedBounds,
      );
      const box = new Float32Array(8);
      positionBounds(expected[0], vertices, box);
      assertEquals(Array.from(expectedBounds), Array.from(box), "reference");
      if (vertices === 0) {
        assertEquals(Array.from(box), [...Array(4).fill(Infinity), ...Array(4).fill(-Infinity)]);
      }
      for (const build of BUILDS) {
        const { memory, kernels } = instantiate(build);
        const put = (a: Float32Array | Uint16Array | Uint32Array) => copyToCore(memory, a);
        const at = [palette, partWords, joints, weights, ...inputs].map(put);
        const run = (bounds: number) => {
          const out = [0, 1, 2].map(() => memory.alloc(vertices * 64 + 16));
          skinAt(kernels.skinVertices, at, parts.length, out, flags, cap, bounds);
          return out.map((p) => memory.views().f32.slice(p >> 2, (p >> 2) + vertices * 4));
        };
        const boundsPtr = memory.alloc(32);
        const plain = run(0);
        const bounded = run(boundsPtr);
        const written = memory.views().f32.slice(boundsPtr >> 2, (boundsPtr >> 2) + 8);
        assertEquals(bounded, plain, `${build}: outputs with and without bounds`);
        positionBounds(bounded[0], vertices, box);
        assertEquals(Array.from(written), Array.from(box), `${build}: bounds of its output`);
        if (build === "scalar") {
          assertEquals(Array.from(written), Array.from(expectedBounds), "scalar: reference");
        }
      }
    }),
    fcParams(RUNS, 150),
  );
});

function contains(outer: { min: readonly number[]; max: readonly number[] }, inner: typeof outer) {
  for (let i = 0; i < 3; i++) {
    assert(outer.min[i] <= inner.min[i], `min[${i}]: ${outer.min[i]} > ${inner.min[i]}`);
    assert(outer.max[i] >= inner.max[i], `max[${i}]: ${outer.max[i]} < ${inner.max[i]}`);
  }
}

for (const build of BUILDS) {
  Deno.test(`getSkinnedBounds / getJointSkinBounds (${build}) on random poses`, () => {
    const core = Core.create(build);
    const world = createWorld();
    createAnimation(world, { core });
    const cylinder = createCylinder({ joints: 6, segments: 5, rings: 9, influences: "mixed" });
    const skeleton = new SkeletonAsset(cylinder.skeleton, core);
    const skin = new SkinAsset(skeleton, cylinder.skin);
    const full = addEntity(world), bare = addEntity(world);
    addCharacter(world, full, skeleton, skin);
    addCharacter(world, bare, skeleton, skin, { normals: false, tangents: false });
    assertEquals(getSkinnedBounds(world, full), undefined);
    const next = random(7);
    for (let round = 0; round < 40; round++) {
      for (const eid of [full, bare]) {
        for (let j = 0; j < skeleton.jointCount; j++) {
          const s = 0.5 + next() * 1.5;
          setJointPose(
            world,
            eid,
            j,
            [next() * 4 - 2, next() * 4 - 2, next() * 4 - 2],
            randomQuaternion(next),
            round % 2 ? [s, s, s] : [s, 0.5 + next(), 0.5 + next() * 2],
          );
        }
      }
      const cap = [255, 1, 2, 3][round % 4];
      quatToMatSystem(world);
      transformSkeletonSystem(world);
      multiplyInverseBindSystem(world);
      skinSystem(world, { maxInfluences: cap });
      skinWithTangentsSystem(world, { maxInfluences: cap });
      for (const eid of [full, bare]) {
        const positions = getSkinnedPositions(world, eid);
        const box = new Float32Array(8);
        positionBounds(positions, skin.vertexCount, box);
        const bounds = getSkinnedBounds(world, eid)!;
        assertEquals(bounds, {
          min: [box[0], box[1], box[2]],
          max: [box[4], box[5], box[6]],
        });
        contains(getJointSkinBounds(world, eid), bounds);
      }
    }
    skinSystem(world, { bounds: false });
    assertEquals(getSkinnedBounds(world, bare), undefined);
    assert(getSkinnedBounds(world, full) !== undefined);
    removeSkin(world, full);
    addSkin(world, full, skin);
    assertEquals(getSkinnedBounds(world, full), undefined);
  });
}
