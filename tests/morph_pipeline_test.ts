/**
 * Morphed and skinned through the ECS pipeline, on every core build,
 * against three.js's CPU path (`SkinnedMesh.getVertexPosition`: morph,
 * then skin) on the synthetic morph document (`_gltf_morph.ts`), with the
 * weights set by `setMorphWeights` at random animated poses (the clip
 * played without its morph channels, which would drive the weights:
 * `morph_play_test.ts`). three.js's
 * loader fills the normal-only target's missing positions with the base
 * positions (it would draw `p * (1 + w)`); the harness zeroes that fill,
 * which is what glTF means. An entity wearing the same skin without
 * MorphWeights skins the base mesh; removing MorphWeights goes back to it.
 */

import "../scalar.ts";
import { assert, assertEquals, assertLess, assertNotEquals, assertThrows } from "@std/assert";
import { addEntity, createWorld } from "bitecs";
import * as THREE from "three";
import {
  addCharacter,
  ComponentError,
  createAnimation,
  createAnimationPipeline,
  disposeAnimation,
  getJointSkinBounds,
  getSkinnedBounds,
  getSkinnedNormals,
  getSkinnedPositions,
  playClip,
  raycastSkin,
  SkeletonAsset,
  SkinAsset,
} from "../mod.ts";
import { addMorphWeights, getMorphWeights, removeMorphWeights, setMorphWeights } from "../morph.ts";
import { parseGltf } from "../gltf/mod.ts";
import { Core, type CoreBuild } from "../kernels.ts";
import { boundingDiagonal, loadThree, poseThree } from "./_three_gltf.ts";
import { writeGlb } from "./_gltf_rig.ts";
import { morphDocument } from "./_gltf_morph.ts";
import { random } from "./_scene.ts";

const TOLERANCE = 1e-4;
const BUILDS: CoreBuild[] = ["relaxed-simd", "simd", "scalar"];
const bytes = await writeGlb(morphDocument());
const model = await parseGltf(bytes);
const three = await loadThree(bytes);
const mesh = three.primitives[0].object;
const geometry = mesh.geometry as THREE.BufferGeometry;
// The fill is the base attribute itself: replaced, not zeroed.
geometry.morphAttributes.position[2] = new THREE.BufferAttribute(
  new Float32Array(geometry.getAttribute("position").count * 3),
  3,
);

/** three.js's morphed, skinned positions with `weights`, as posed (3 per vertex). */
function threeMorphed(weights: readonly number[]): Float64Array {
  mesh.morphTargetInfluences = [...weights];
  const count = geometry.getAttribute("position").count;
  const out = new Float64Array(count * 3), p = new THREE.Vector3();
  for (let v = 0; v < count; v++) {
    mesh.getVertexPosition(v, p).applyMatrix4(mesh.matrixWorld);
    out.set([p.x, p.y, p.z], v * 3);
  }
  return out;
}

/** The largest difference of entity positions (output order) to three's (source order), over `size`. */
function error(positions: Float32Array, skin: SkinAsset, expected: Float64Array, size: number) {
  let worst = 0;
  for (let v = 0; v < skin.vertexCount; v++) {
    const o = skin.outputIndex[v] * 4;
    for (let k = 0; k < 3; k++) {
      worst = Math.max(worst, Math.abs(positions[o + k] - expected[v * 3 + k]) / size);
    }
  }
  return worst;
}

for (const build of BUILDS) {
  Deno.test(`morph pipeline (${build}): setMorphWeights morphs before skinning, as three.js`, () => {
    const core = Core.create(build);
    const world = createWorld();
    createAnimation(world, { core });
    const animate = createAnimationPipeline({ renormalize: true });
    const [character] = model.skeletons;
    using skeleton = new SkeletonAsset(character.skeleton, core);
    using skin = new SkinAsset(skeleton, character.primitives[0].skin);
    assertEquals(skin.morphTargetNames, ["dense", "sparse", "normalOnly"]);
    const morphed = addEntity(world), plain = addEntity(world);
    addCharacter(world, morphed, skeleton, skin);
    addCharacter(world, plain, skeleton, skin);
    addMorphWeights(world, morphed, character.primitives[0].morphWeights);
    assertEquals([...getMorphWeights(world, morphed)], [0.25, 0, 0.5]);
    // The clip's joints only: its weights channel would override the game's.
    const { morphChannels: _, ...body } = character.clips[0];
    const next = random(11);
    let worst = 0;
    for (let i = 0; i < 8; i++) {
      const weights = [next() * 1.5 - 0.25, i % 3 ? next() * 2 - 1 : 0, next()];
      const time = next() * 2;
      setMorphWeights(world, morphed, weights);
      for (const eid of [morphed, plain]) {
        playClip(world, eid, body, { time, wrap: "clamp" });
      }
      animate(world, 0);
      poseThree(three, 0, time);
      const size = boundingDiagonal(three);
      const f32 = Float32Array.from(weights);
      const expected = threeMorphed([...f32]);
      const positions = getSkinnedPositions(world, morphed);
      worst = Math.max(worst, error(positions, skin, expected, size));
      assertLess(
        error(getSkinnedPositions(world, plain), skin, threeMorphed([0, 0, 0]), size),
        TOLERANCE,
      );
      // The kernel's bounds are those of the morphed positions.
      const bounds = getSkinnedBounds(world, morphed)!;
      for (let k = 0; k < 3; k++) {
        let lo = Infinity, hi = -Infinity;
        for (let v = k; v < expected.length; v += 3) {
          lo = Math.min(lo, expected[v]), hi = Math.max(hi, expected[v]);
        }
        assertLess(Math.abs(bounds.min[k] - lo) / size, TOLERANCE);
        assertLess(Math.abs(bounds.max[k] - hi) / size, TOLERANCE);
      }
    }
    assertLess(worst, TOLERANCE, `position error ${worst} x bbox`);
    // The culling box from the joints holds the morphed mesh at large weights of either sign.
    for (const weights of [[2.5, -3, 1], [-2, 3, 0], [0, 0, 0]]) {
      setMorphWeights(world, morphed, weights);
      animate(world, 0);
      const box = getJointSkinBounds(world, morphed), p = getSkinnedPositions(world, morphed);
      for (let i = 0; i < p.length; i++) {
        const k = i % 4;
        if (k === 3) continue;
        assert(p[i] >= box.min[k] && p[i] <= box.max[k], `${weights}: vertex ${i >> 2} ${k}`);
      }
    }
    // A ray through the centroid of a morphed triangle hits it there.
    setMorphWeights(world, morphed, [2, 1, 0]);
    animate(world, 0);
    const p = getSkinnedPositions(world, morphed);
    const indices = skin.remapIndices(character.primitives[0].indices ?? [0, 1, 2]);
    const centroid = [0, 1, 2].map((k) =>
      (p[indices[0] * 4 + k] + p[indices[1] * 4 + k] + p[indices[2] * 4 + k]) / 3
    );
    const hit = raycastSkin(world, morphed, indices.subarray(0, 3), [
      centroid[0] - 5,
      centroid[1],
      centroid[2],
    ], [1, 0, 0])!;
    assertEquals(hit.triangle, 0);
    assertLess(Math.abs(hit.distance - 5), 1e-4);
    // The normal-only target moves normals, not positions.
    setMorphWeights(world, morphed, [0, 0, 1]);
    animate(world, 0);
    assertEquals(getSkinnedPositions(world, morphed), getSkinnedPositions(world, plain));
    assertNotEquals(getSkinnedNormals(world, morphed), getSkinnedNormals(world, plain));
    // Bad weights name the entity and the weight, and change nothing.
    const error1 = assertThrows(() => setMorphWeights(world, morphed, [0, NaN, 1]), ComponentError);
    assert(error1.message.includes("weights[1] (sparse) is NaN"), error1.message);
    assertThrows(
      () => setMorphWeights(world, morphed, [0, 1]),
      ComponentError,
      "expected 3 weights",
    );
    assertThrows(() => setMorphWeights(world, plain, [0, 0, 0]), ComponentError, "no MorphWeights");
    assertEquals([...getMorphWeights(world, morphed)], [0, 0, 1]);
    // Without MorphWeights the entity skins the skin's own streams again.
    setMorphWeights(world, morphed, [1, 1, 1]);
    animate(world, 0);
    assertNotEquals(getSkinnedPositions(world, morphed), getSkinnedPositions(world, plain));
    removeMorphWeights(world, morphed);
    animate(world, 0);
    assertEquals(getSkinnedPositions(world, morphed), getSkinnedPositions(world, plain));
    assertEquals(getSkinnedNormals(world, morphed), getSkinnedNormals(world, plain));
    disposeAnimation(world);
    console.log(`  ${build}: max position error ${worst.toExponential(2)} x bbox`);
  });
}
