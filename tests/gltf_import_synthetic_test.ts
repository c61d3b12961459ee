/**
 * glTF import of synthetic documents, for the cases the shared assets lack:
 * joints reordered, ancestors and helpers folded in, missing inverse binds,
 * every JOINTS/WEIGHTS encoding, 8 influences, a shared skin, tangents and
 * all-zero weights; against the file's data, glTF's formula and three.js.
 */

import {
  assert,
  assertAlmostEquals,
  assertEquals,
  assertExists,
  assertGreater,
  assertInstanceOf,
  assertLess,
} from "@std/assert";
import { parseGltf } from "../gltf/import.ts";
import { loadThree, poseThree } from "./_three_gltf.ts";
import { compareModel, marrowPalette, marrowSkin, normalizeWeights } from "./_gltf_compare.ts";
import { syntheticRig, writeGlb } from "./_gltf_rig.ts";
import {
  checkRestAgainstThree,
  checkStructure,
  identityAt,
  RELATIVE_TOLERANCE,
} from "./_gltf_import.ts";

Deno.test("synthetic rig: joints reordered, ancestors and helpers folded in", async () => {
  const doc = syntheticRig();
  const bytes = await writeGlb(doc);
  const model = await parseGltf(bytes, { name: "rig.glb" });
  assertEquals(model.name, "rig.glb");
  assertEquals(model.warnings, []);
  const s = model.skeletons[0];
  // Skin order is hand, head, spine, arm, leg, hip: each joint is preceded
  // by its missing ancestors.
  assertEquals(s.skeleton.names, [
    "Armature",
    "hip",
    "spine",
    "arm",
    "helper",
    "hand",
    "head",
    "leg",
  ]);
  assertEquals(Array.from(s.skeleton.parents), [-1, 0, 1, 2, 3, 4, 2, 1]);
  assertEquals(Array.from(s.skinJoints), [5, 6, 2, 3, 7, 1]);
  const nodes = doc.getRoot().listNodes();
  assertEquals(
    Array.from(s.nodes, (n) => nodes[n].getName()),
    s.skeleton.names,
  );
  // Inverse binds follow their joints; the ancestors get the identity.
  const ibm = doc.getRoot().listSkins()[0].getInverseBindMatrices()!;
  const e: number[] = [];
  s.skinJoints.forEach((j, i) => {
    ibm.getElement(i, e);
    for (let r = 0; r < 3; r++) {
      for (let c = 0; c < 4; c++) {
        assertAlmostEquals(
          s.skeleton.inverseBind[j * 12 + r * 4 + c],
          e[c * 4 + r],
          1e-7,
        );
      }
    }
  });
  assert(identityAt(s.skeleton.inverseBind, 0));
  assert(identityAt(s.skeleton.inverseBind, 4));
  // Vertex influences: the file's (joint node, weight) pairs, remapped.
  const prim = doc.getRoot().listMeshes()[0].listPrimitives()[0];
  const fileJoints = prim.getAttribute("JOINTS_0")!;
  const fileWeights = prim.getAttribute("WEIGHTS_0")!;
  const skinNodes = doc.getRoot().listSkins()[0].listJoints();
  const skin = s.primitives[0].skin;
  let k = 0;
  const jv: number[] = [], wv: number[] = [];
  for (let v = 0; v < skin.vertexCount; v++) {
    fileJoints.getElement(v, jv);
    fileWeights.getElement(v, wv);
    const expected = new Map<string, number>();
    for (let i = 0; i < 4; i++) {
      if (wv[i] === 0) continue;
      const name = skinNodes[jv[i]].getName();
      expected.set(name, (expected.get(name) ?? 0) + wv[i]);
    }
    assertEquals(skin.influenceCounts[v], expected.size);
    for (let i = 0; i < skin.influenceCounts[v]; i++, k++) {
      const name = s.skeleton.names[skin.joints[k]];
      assertAlmostEquals(skin.weights[k], expected.get(name)!, 1e-6);
    }
  }
  assertEquals(skin.influenceCounts[3], 1, "vertex 3 has one influence");
  checkStructure(model);
  await checkRestAgainstThree(model, bytes);
});

Deno.test("synthetic rig: missing inverse bind matrices mean identity", async () => {
  const bytes = await writeGlb(syntheticRig({ inverseBind: false }));
  const model = await parseGltf(bytes);
  const s = model.skeletons[0];
  for (let j = 0; j < s.skeleton.parents.length; j++) {
    assert(identityAt(s.skeleton.inverseBind, j));
  }
  await checkRestAgainstThree(model, bytes);
});

Deno.test("synthetic rig: u8/u16 joints, float and normalized u8/u16 weights", async () => {
  const variants = [
    { joints: "u8", weights: "u8", scale: 255 },
    { joints: "u16", weights: "u16", scale: 65535 },
    { joints: "u8", weights: "f32", scale: 0 },
  ] as const;
  const reference = (await parseGltf(await writeGlb(syntheticRig())))
    .skeletons[0].primitives[0].skin;
  for (const variant of variants) {
    const doc = syntheticRig(variant);
    const bytes = await writeGlb(doc);
    const model = await parseGltf(bytes);
    const skin = model.skeletons[0].primitives[0].skin;
    if (variant.scale) {
      // Decoded as c / max (merged duplicates sum two of them), and not
      // renormalized.
      for (const w of skin.weights) {
        const c = w * variant.scale;
        assertAlmostEquals(c, Math.round(c), 1e-3 * (variant.scale / 255));
      }
    }
    assertEquals(skin.influenceCounts, reference.influenceCounts);
    for (let i = 0; i < skin.weights.length; i++) {
      // Quantized or not, the weights stay near the float rig's.
      assertAlmostEquals(skin.weights[i], reference.weights[i], 2 / 255);
    }
    await checkRestAgainstThree(model, bytes);
  }
});

Deno.test("synthetic rig: JOINTS_1/WEIGHTS_1 give up to 8 influences", async () => {
  const doc = syntheticRig({ influences: 8 });
  const model = await parseGltf(await writeGlb(doc));
  const s = model.skeletons[0];
  const skin = s.primitives[0].skin;
  assertGreater(Math.max(...skin.influenceCounts), 4);
  assert(Math.max(...skin.influenceCounts) <= 6, "6 joints, duplicates merged");
  checkStructure(model);
  // Reference: glTF's formula evaluated directly on the document, with all
  // eight slots (three.js reads only four).
  const prim = doc.getRoot().listMeshes()[0].listPrimitives()[0];
  const skinNode = doc.getRoot().listSkins()[0];
  const jointNodes = skinNode.listJoints();
  const ibm = skinNode.getInverseBindMatrices()!;
  const matrices = jointNodes.map((node, i) => {
    const world = node.getWorldMatrix();
    const inv = ibm.getElement(i, []);
    return multiply4(world, inv);
  });
  const { palette } = marrowPalette(s, null, 0);
  const ours = marrowSkin(skin, palette);
  const position = prim.getAttribute("POSITION")!;
  const j: number[] = [], w: number[] = [], p: number[] = [];
  let max = 0;
  for (let v = 0; v < skin.vertexCount; v++) {
    position.getElement(v, p);
    const influences: [number, number][] = [];
    for (let set = 0; set < 2; set++) {
      prim.getAttribute(`JOINTS_${set}`)!.getElement(v, j);
      prim.getAttribute(`WEIGHTS_${set}`)!.getElement(v, w);
      for (let i = 0; i < 4; i++) influences.push([j[i], w[i]]);
    }
    const total = influences.reduce((a, [, wi]) => a + wi, 0);
    const out = [0, 0, 0];
    for (const [ji, wi] of influences) {
      const m = matrices[ji];
      for (let r = 0; r < 3; r++) {
        out[r] += (wi / total) *
          (m[r] * p[0] + m[4 + r] * p[1] + m[8 + r] * p[2] + m[12 + r]);
      }
    }
    for (let r = 0; r < 3; r++) {
      max = Math.max(max, Math.abs(out[r] - ours.positions[v * 4 + r]));
    }
  }
  assertLess(max, 1e-5);
});

function multiply4(a: ArrayLike<number>, b: ArrayLike<number>): number[] {
  const out = new Array(16).fill(0);
  for (let c = 0; c < 4; c++) {
    for (let r = 0; r < 4; r++) {
      for (let k = 0; k < 4; k++) out[c * 4 + r] += a[k * 4 + r] * b[c * 4 + k];
    }
  }
  return out;
}

Deno.test("synthetic rig: one skin shared by two meshes and three nodes", async () => {
  const doc = syntheticRig({ shareSkin: true });
  const bytes = await writeGlb(doc);
  const model = await parseGltf(bytes);
  assertEquals(model.skeletons.length, 1);
  const prims = model.skeletons[0].primitives;
  const nodes = doc.getRoot().listNodes();
  assertEquals(
    prims.map((
      p,
    ) => [nodes[p.node].getName(), p.nodeName, p.meshName, p.primitive]),
    [
      ["body", "body", "tube", 0],
      ["body2", "body2", "other", 0],
      ["body2", "body2", "other", 1],
      ["body3", "body3", "tube", 0],
    ],
  );
  assert(prims[0].skin === prims[3].skin, "an instanced mesh shares its data");
  assert(prims[1].skin !== prims[2].skin);
  const fileIndices = doc.getRoot().listMeshes()[0].listPrimitives()[0]
    .getIndices()!.getArray()!;
  assertEquals(Array.from(prims[0].indices!), Array.from(fileIndices));
  assertInstanceOf(prims[0].indices, Uint16Array);
  await checkRestAgainstThree(model, bytes);
});

Deno.test("synthetic rig: tangents keep their handedness and skin like normals", async () => {
  const bytes = await writeGlb(syntheticRig({ tangents: true }));
  const model = await parseGltf(bytes);
  const skin = model.skeletons[0].primitives[0].skin;
  const tangents = skin.tangents;
  assertExists(tangents);
  const signs = new Set<number>();
  for (let v = 0; v < skin.vertexCount; v++) signs.add(tangents[v * 4 + 3]);
  assertEquals([...signs].sort(), [-1, 1]);
  const three = await loadThree(bytes);
  for (const t of [0, 0.6, 1.4]) {
    poseThree(three, 0, t);
    const r = compareModel(model, three, 0, t);
    assertLess(r.maxTangent, 1e-4);
    assertLess(r.maxNormal, 1e-4);
    assertLess(r.maxPosition / r.bboxDiagonal, RELATIVE_TOLERANCE);
  }
});

Deno.test("synthetic rig: all-zero weights bind to the first joint, with a warning", async () => {
  const doc = syntheticRig();
  const prim = doc.getRoot().listMeshes()[0].listPrimitives()[0];
  const weights = prim.getAttribute("WEIGHTS_0")!;
  weights.setElement(2, [0, 0, 0, 0]);
  const joints = prim.getAttribute("JOINTS_0")!;
  joints.setElement(2, [4, 1, 2, 3]);
  const model = await parseGltf(await writeGlb(doc));
  const s = model.skeletons[0];
  const skin = s.primitives[0].skin;
  assertEquals(skin.influenceCounts[2], 1);
  const k = skin.influenceCounts[0] + skin.influenceCounts[1];
  assertEquals(skin.joints[k], s.skinJoints[4]);
  assertEquals(skin.weights[k], 1);
  assertEquals(model.warnings.length, 1);
  assert(model.warnings[0].includes("zero weights"));
  // Weights are left as the file has them: this one sums to 1 anyway, so
  // check normalizeWeights (the tests' stand-in for the skin builder).
  assertEquals(normalizeWeights(skin)[k], 1);
});
