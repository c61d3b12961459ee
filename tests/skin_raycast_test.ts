/**
 * `raycastSkin` against brute force: three.js `Ray.intersectTriangle` (both
 * faces) over every triangle of the skinned positions, on random poses and
 * random rays (aimed at random points of the mesh, and arbitrary ones that
 * mostly miss): same hit or miss, same distance, the hit point rebuilt from
 * the barycentrics on the ray; the bounds early out never loses a hit.
 * Bad indices and rays are `RangeError`s.
 */

import { assert, assertAlmostEquals, assertEquals, assertThrows } from "@std/assert";
import * as THREE from "three";
import { addEntity, createWorld } from "bitecs";
import {
  addCharacter,
  createAnimation,
  getSkinnedPositions,
  multiplyInverseBindSystem,
  quatToMatSystem,
  raycastSkin,
  setJointPose,
  SkeletonAsset,
  SkinAsset,
  skinSystem,
  transformSkeletonSystem,
} from "../mod.ts";
import { Core } from "../kernels.ts";
import { createCylinder } from "../procedural/cylinder.ts";
import { BUILDS, random, randomQuaternion } from "./_scene.ts";

/** The cylinder's side as triangles, in source vertex order. */
function cylinderIndices(segments: number, rings: number): number[] {
  const out: number[] = [];
  for (let r = 0; r + 1 < rings; r++) {
    for (let s = 0; s < segments; s++) {
      const a = r * segments + s, b = r * segments + (s + 1) % segments;
      out.push(a, b, a + segments, b, b + segments, a + segments);
    }
  }
  return out;
}

function bruteForce(
  positions: Float32Array,
  indices: Uint32Array,
  origin: number[],
  direction: number[],
): number | undefined {
  const ray = new THREE.Ray(
    new THREE.Vector3(...origin),
    new THREE.Vector3(...direction).normalize(),
  );
  const length = Math.hypot(...direction);
  const vertex = (i: number) => new THREE.Vector3(...positions.subarray(i * 4, i * 4 + 3));
  const target = new THREE.Vector3();
  let best: number | undefined;
  for (let t = 0; t < indices.length; t += 3) {
    const hit = ray.intersectTriangle(
      vertex(indices[t]),
      vertex(indices[t + 1]),
      vertex(indices[t + 2]),
      false,
      target,
    );
    if (hit) {
      const d = hit.distanceTo(ray.origin) / length;
      if (best === undefined || d < best) best = d;
    }
  }
  return best;
}

for (const build of BUILDS) {
  Deno.test(`raycastSkin (${build}) equals brute force on random poses and rays`, () => {
    const core = Core.create(build);
    const world = createWorld();
    createAnimation(world, { core });
    const shape = { joints: 5, segments: 8, rings: 9, influences: "mixed" as const };
    const cylinder = createCylinder(shape);
    const skeleton = new SkeletonAsset(cylinder.skeleton, core);
    const skin = new SkinAsset(skeleton, cylinder.skin);
    const eid = addEntity(world);
    addCharacter(world, eid, skeleton, skin, { normals: false, tangents: false });
    const indices = skin.remapIndices(cylinderIndices(shape.segments, shape.rings));
    const next = random(11);
    let hits = 0, misses = 0;
    for (let round = 0; round < 12; round++) {
      for (let j = 0; j < skeleton.jointCount; j++) {
        setJointPose(
          world,
          eid,
          j,
          [next() - 0.5, 1 + next(), next() - 0.5],
          randomQuaternion(next),
          [1, 0.7 + next() * 0.6, 1],
        );
      }
      quatToMatSystem(world);
      transformSkeletonSystem(world);
      multiplyInverseBindSystem(world);
      skinSystem(world);
      const positions = getSkinnedPositions(world, eid);
      for (let r = 0; r < 25; r++) {
        const origin = [next() * 30 - 15, next() * 30 - 15, next() * 30 - 15];
        let direction = [next() - 0.5, next() - 0.5, next() - 0.5];
        if (r % 5) {
          // Aim at a random point of a random triangle.
          const t = Math.floor(next() * indices.length / 3) * 3;
          const a = next(), b = next() * (1 - a);
          const target = [0, 1, 2].map((i) =>
            (1 - a - b) * positions[indices[t] * 4 + i] + a * positions[indices[t + 1] * 4 + i] +
            b * positions[indices[t + 2] * 4 + i]
          );
          const scale = 0.5 + next();
          direction = target.map((x, i) => (x - origin[i]) * scale);
        }
        const expected = bruteForce(positions, indices, origin, direction);
        const hit = raycastSkin(world, eid, indices, origin, direction);
        if (expected === undefined) {
          assertEquals(hit, undefined);
          misses++;
          continue;
        }
        assert(hit, `missed a hit at ${expected}`);
        hits++;
        assertAlmostEquals(hit.distance, expected, 1e-4 * (1 + expected));
        const t = hit.triangle * 3;
        const w = [1 - hit.u - hit.v, hit.u, hit.v];
        assert(w.every((x) => x >= -1e-9));
        for (let i = 0; i < 3; i++) {
          const onTriangle = w.reduce((s, wk, k) => s + wk * positions[indices[t + k] * 4 + i], 0);
          const onRay = origin[i] + hit.distance * direction[i];
          assertAlmostEquals(onTriangle, onRay, 1e-4 * (1 + Math.abs(onRay)));
        }
        const shorter = raycastSkin(world, eid, indices, origin, direction, {
          maxDistance: hit.distance * 0.999,
        });
        assert(!shorter || shorter.distance <= hit.distance * 0.999);
      }
    }
    assert(hits > 100 && misses > 10, `hits ${hits}, misses ${misses}`);
    assertThrows(
      () => raycastSkin(world, eid, [0, 1, 9999], [0, 0, 0], [1, 0, 0]),
      RangeError,
      "indices[2]",
    );
    assertThrows(
      () => raycastSkin(world, eid, [0, 1], [0, 0, 0], [1, 0, 0]),
      RangeError,
      "multiple of 3",
    );
    assertThrows(
      () => raycastSkin(world, eid, indices, [0, NaN, 0], [1, 0, 0]),
      RangeError,
      "origin",
    );
  });
}
