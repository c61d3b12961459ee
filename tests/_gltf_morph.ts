/**
 * Test harness: a small skinned glTF document with morph targets, built
 * with gltf-transform, for the import and morph tests. One skinned
 * primitive of {@linkcode MORPH_VERTICES} vertices on a two-joint chain,
 * with positions, normals and tangents, and three targets:
 *
 * - `dense`: every position moved, normals too;
 * - `sparse`: a few positions moved, written as a sparse accessor;
 * - `normalOnly`: normals and tangents, no positions (three.js fills the
 *   missing positions with the base ones; Marrow displaces nothing).
 *
 * The mesh's default weights are `[0.25, 0, 0.5]` and its node overrides
 * nothing; one animation per interpolation (`LINEAR`, `STEP`,
 * `CUBICSPLINE`) keys the node's weights and turns the second joint.
 *
 * @module
 */

import { Document, type Document as GltfDocument } from "@gltf-transform/core";
import { invert4, rng } from "./_gltf_rig.ts";

/** Vertices of the morphed primitive. */
export const MORPH_VERTICES = 40;
/** The vertices the `sparse` target moves. */
export const SPARSE_VERTICES: readonly number[] = [3, 7, 8, 21, 39];
/** Names of the targets, in order. */
export const TARGET_NAMES: readonly string[] = ["dense", "sparse", "normalOnly"];
/** The mesh's default weights. */
export const DEFAULT_WEIGHTS: readonly number[] = [0.25, 0, 0.5];
/** The animations' interpolations, in file order. */
export const INTERPOLATIONS = ["LINEAR", "STEP", "CUBICSPLINE"] as const;

/** The morph document; `seed` varies the vertices and keys. */
export function morphDocument(seed = 3): GltfDocument {
  const random = rng(seed);
  const doc = new Document();
  const buffer = doc.createBuffer();
  const accessor = (
    type: "SCALAR" | "VEC3" | "VEC4" | "MAT4",
    array: Float32Array<ArrayBuffer> | Uint16Array<ArrayBuffer>,
  ) => doc.createAccessor().setType(type).setArray(array).setBuffer(buffer);
  const root = doc.createNode("root").setTranslation([0, 0.2, 0]);
  const tip = doc.createNode("tip").setTranslation([0, 1, 0]);
  root.addChild(tip);
  const skin = doc.createSkin("chain").addJoint(root).addJoint(tip);
  const ibm = new Float32Array(32);
  ibm.set(invert4(root.getWorldMatrix()), 0);
  ibm.set(invert4(tip.getWorldMatrix()), 16);
  skin.setInverseBindMatrices(accessor("MAT4", ibm));

  const n = MORPH_VERTICES;
  const positions = new Float32Array(n * 3), normals = new Float32Array(n * 3);
  const tangents = new Float32Array(n * 4);
  const joints = new Uint16Array(n * 4), weights = new Float32Array(n * 4);
  for (let v = 0; v < n; v++) {
    const y = (v / (n - 1)) * 2, angle = v * 1.3;
    positions.set([Math.cos(angle) * 0.3, y, Math.sin(angle) * 0.3], v * 3);
    normals.set([Math.cos(angle), 0, Math.sin(angle)], v * 3);
    tangents.set([-Math.sin(angle), 0, Math.cos(angle), v % 2 ? 1 : -1], v * 4);
    const w = Math.min(1, Math.max(0, y - 0.5));
    joints.set([0, 1, 0, 0], v * 4);
    weights.set([1 - w, w, 0, 0], v * 4);
  }
  const displacement = (moved: (v: number) => boolean) =>
    new Float32Array(n * 3).map((_, i) => moved(Math.floor(i / 3)) ? random() * 0.2 - 0.1 : 0);
  const dense = doc.createPrimitiveTarget("dense")
    .setAttribute("POSITION", accessor("VEC3", displacement(() => true)))
    .setAttribute("NORMAL", accessor("VEC3", displacement(() => true)));
  const sparse = doc.createPrimitiveTarget("sparse")
    .setAttribute(
      "POSITION",
      accessor("VEC3", displacement((v) => SPARSE_VERTICES.includes(v))).setSparse(true),
    );
  const normalOnly = doc.createPrimitiveTarget("normalOnly")
    .setAttribute("NORMAL", accessor("VEC3", displacement((v) => v % 3 === 0)))
    .setAttribute("TANGENT", accessor("VEC3", displacement((v) => v % 4 === 0)));
  const primitive = doc.createPrimitive()
    .setAttribute("POSITION", accessor("VEC3", positions))
    .setAttribute("NORMAL", accessor("VEC3", normals))
    .setAttribute("TANGENT", accessor("VEC4", tangents))
    .setAttribute("JOINTS_0", accessor("VEC4", joints))
    .setAttribute("WEIGHTS_0", accessor("VEC4", weights))
    .addTarget(dense).addTarget(sparse).addTarget(normalOnly);
  const mesh = doc.createMesh("face").addPrimitive(primitive)
    .setWeights([...DEFAULT_WEIGHTS]).setExtras({ targetNames: [...TARGET_NAMES] });
  const body = doc.createNode("body").setMesh(mesh).setSkin(skin);
  doc.getRoot().setDefaultScene(doc.createScene("scene").addChild(root).addChild(body));

  const times = new Float32Array([0, 0.4, 1.1, 2]);
  for (const interpolation of INTERPOLATIONS) {
    const animation = doc.createAnimation(interpolation.toLowerCase());
    const perKey = interpolation === "CUBICSPLINE" ? 3 : 1;
    const keys = new Float32Array(times.length * perKey * TARGET_NAMES.length)
      .map(() => random() * 1.4 - 0.2);
    const sampler = doc.createAnimationSampler().setInput(accessor("SCALAR", times))
      .setOutput(accessor("SCALAR", keys)).setInterpolation(interpolation);
    animation.addSampler(sampler).addChannel(
      doc.createAnimationChannel().setTargetNode(body).setTargetPath("weights")
        .setSampler(sampler),
    );
    const turn = new Float32Array(times.length * perKey * 4);
    for (let k = 0; k < times.length * perKey; k++) {
      const half = (random() - 0.5) * 0.8;
      turn.set([Math.sin(half), 0, 0, Math.cos(half)], k * 4);
    }
    const rotation = doc.createAnimationSampler().setInput(accessor("SCALAR", times))
      .setOutput(accessor("VEC4", turn)).setInterpolation(interpolation);
    animation.addSampler(rotation).addChannel(
      doc.createAnimationChannel().setTargetNode(tip).setTargetPath("rotation")
        .setSampler(rotation),
    );
  }
  return doc;
}
