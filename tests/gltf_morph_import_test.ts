/**
 * Morph targets on import, against three.js's GLTFLoader on the synthetic
 * morph document (`_gltf_morph.ts`): each target's displacements (dense,
 * sparse accessor, normal-only), the default weights and target names, and
 * the `weights` channels of LINEAR, STEP and CUBICSPLINE animations sampled
 * at random times against three.js's mixer.
 */

import { assert, assertAlmostEquals, assertEquals } from "@std/assert";
import type * as THREE from "three";
import { parseGltf } from "../gltf/mod.ts";
import type { MorphDisplacements } from "../animation/morph.ts";
import { sampleMorphWeights } from "../animation/morph.ts";
import { loadThree, poseThree } from "./_three_gltf.ts";
import { writeGlb } from "./_gltf_rig.ts";
import {
  DEFAULT_WEIGHTS,
  INTERPOLATIONS,
  MORPH_VERTICES,
  morphDocument,
  SPARSE_VERTICES,
  TARGET_NAMES,
} from "./_gltf_morph.ts";
import { random } from "./_scene.ts";

/** `displacements` as 3 numbers per vertex, zeros where none is listed. */
function dense(displacements: MorphDisplacements | undefined, count: number): Float32Array {
  const out = new Float32Array(count * 3);
  if (!displacements) return out;
  const { vertices, deltas } = displacements;
  if (!vertices) return out.fill(0).map((_, i) => deltas[i]);
  vertices.forEach((v, k) => out.set(deltas.subarray(k * 3, k * 3 + 3), v * 3));
  return out;
}

const bytes = await writeGlb(morphDocument());

Deno.test("morph import: displacements, names and default weights as three.js has them", async () => {
  const model = await parseGltf(bytes);
  const [primitive] = model.skeletons[0].primitives;
  const targets = primitive.skin.morphTargets!;
  assertEquals(targets.map((t) => t.name), TARGET_NAMES);
  assertEquals([...primitive.morphWeights], DEFAULT_WEIGHTS);
  const three = await loadThree(bytes);
  const mesh = three.primitives[0].object;
  assertEquals(mesh.morphTargetInfluences, [...DEFAULT_WEIGHTS]);
  assertEquals(Object.keys(mesh.morphTargetDictionary!), TARGET_NAMES);
  const geometry = mesh.geometry as THREE.BufferGeometry;
  assert(geometry.morphTargetsRelative);
  const n = MORPH_VERTICES;
  const attribute = (name: string, k: number) =>
    Float32Array.from({ length: n * 3 }, (_, i) => {
      const a = geometry.morphAttributes[name][k];
      return a.getComponent(Math.floor(i / 3), i % 3);
    });
  // Targets 0 and 1 have positions, 0 and 2 normals, 2 tangents (three.js reads no tangent targets).
  assertEquals(dense(targets[0].positions, n), attribute("position", 0));
  assertEquals(dense(targets[1].positions, n), attribute("position", 1));
  assertEquals(dense(targets[0].normals, n), attribute("normal", 0));
  assertEquals(dense(targets[2].normals, n), attribute("normal", 2));
  // The sparse target keeps its vertices as an index list.
  assertEquals([...targets[1].positions!.vertices!], SPARSE_VERTICES);
  assertEquals(targets[0].positions!.vertices, undefined);
  // A target without an attribute displaces nothing: three.js fills it with the base attribute.
  assertEquals(targets[1].normals, undefined);
  assertEquals(targets[2].positions, undefined);
  const base = geometry.getAttribute("position");
  const basePositions = Float32Array.from(
    { length: n * 3 },
    (_, i) => base.getComponent(Math.floor(i / 3), i % 3),
  );
  assertEquals(attribute("position", 2), basePositions, "three.js draws p * (1 + w) there");
  assert(targets[2].tangents!.vertices!.every((v) => v % 4 === 0));
});

Deno.test("morph import: weights channels of each interpolation sample as three.js's mixer", async () => {
  const model = await parseGltf(bytes);
  const three = await loadThree(bytes);
  const mesh = three.primitives[0].object;
  const next = random(31);
  INTERPOLATIONS.forEach((interpolation, a) => {
    const clip = model.skeletons[0].clips[a];
    assertEquals(clip.channels.length, 1);
    const [channel] = clip.morphChannels!;
    assertEquals(channel.interpolation, interpolation);
    assertEquals(channel.targetCount, 3);
    assertEquals(channel.node, model.skeletons[0].primitives[0].node);
    const out = new Float64Array(3);
    for (let i = 0; i < 12; i++) {
      const time = i === 0 ? 0 : i === 1 ? 2.5 : next() * 2.2;
      poseThree(three, a, time);
      sampleMorphWeights(channel, time, out);
      for (let k = 0; k < 3; k++) {
        assertAlmostEquals(
          out[k],
          mesh.morphTargetInfluences![k],
          1e-6,
          `${interpolation} t=${time}`,
        );
      }
    }
  });
});
