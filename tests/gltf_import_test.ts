/**
 * glTF import: every shared asset against its statistics and against
 * three.js at the rest pose, synthetic documents for the cases the assets
 * lack, and import errors.
 */

import {
  assert,
  assertAlmostEquals,
  assertEquals,
  assertExists,
  assertGreater,
  assertInstanceOf,
  assertLess,
  fail,
} from "@std/assert";
import { Document } from "@gltf-transform/core";
import { type GltfImport, GltfImportError, importGltf, parseGltf } from "../gltf/import.ts";
import { MATRIX_FLOATS } from "../simd/layout.ts";
import {
  assetUrl,
  compareModel,
  comparePoses,
  listAssets,
  loadThree,
  marrowPalette,
  marrowSkin,
  normalizeWeights,
  poseThree,
  readAsset,
  readDocument,
  syntheticRig,
  testOnModels,
  writeGlb,
} from "./_three_gltf.ts";

interface AssetStats {
  file: string;
  skins: { joints: number }[];
  skinnedPrimitives: number;
  skinnedVertexInstances: number;
  primsWithNormal: number;
  primsWithTangent: number;
  nonZeroWeightsHistogram: Record<string, number>;
  weightSumMaxAbsErr: number;
  animations: {
    name: string;
    tStart: number;
    tEnd: number;
    paths: Record<string, number>;
  }[];
}

const STATS: AssetStats[] = JSON.parse(
  new TextDecoder().decode(readAsset("stats.json")),
);

/** Position tolerance, relative to the bounding-box diagonal. */
const RELATIVE_TOLERANCE = 1e-4;

async function rejects(
  promise: Promise<unknown>,
  ...includes: string[]
): Promise<GltfImportError> {
  try {
    await promise;
  } catch (e) {
    if (!(e instanceof GltfImportError)) {
      fail(`expected a GltfImportError, got ${e}`);
    }
    for (const text of includes) {
      assert(
        e.message.includes(text),
        `"${e.message}" should include "${text}"`,
      );
    }
    return e;
  }
  fail(`expected a GltfImportError mentioning ${includes.join(", ")}`);
}

function identityAt(m: Float32Array, j: number): boolean {
  const o = j * MATRIX_FLOATS;
  return [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0].every((v, i) => m[o + i] === v);
}

/** Invariants every import must satisfy. */
function checkStructure(model: GltfImport): void {
  for (const s of model.skeletons) {
    const { parents, restPose, inverseBind, names } = s.skeleton;
    const n = parents.length;
    assertEquals(names.length, n);
    assertEquals(s.nodes.length, n);
    assertEquals(new Set(s.nodes).size, n, "each node once");
    assertEquals(restPose.length, Math.ceil(n / 4) * 40);
    assertEquals(inverseBind.length, n * MATRIX_FLOATS);
    for (let j = 0; j < n; j++) {
      assert(parents[j] < j, `joint ${j}: parent ${parents[j]} comes first`);
      const g = (j >> 2) * 40 + (j & 3);
      const len = Math.hypot(
        restPose[g + 12],
        restPose[g + 16],
        restPose[g + 20],
        restPose[g + 24],
      );
      assertAlmostEquals(len, 1, 1e-6);
    }
    assert(inverseBind.every(Number.isFinite));
    const isSkinJoint = new Set(s.skinJoints);
    assertEquals(isSkinJoint.size, s.skinJoints.length);
    for (let j = 0; j < n; j++) {
      // Folded-in ancestors bind nothing: their inverse bind is the identity.
      if (!isSkinJoint.has(j)) assert(identityAt(inverseBind, j));
    }
    for (const p of s.primitives) {
      const { vertexCount, positions, normals, tangents } = p.skin;
      assertEquals(positions.length, vertexCount * 4);
      for (let v = 0; v < vertexCount; v++) {
        assertEquals(positions[v * 4 + 3], 1);
        if (normals) assertEquals(normals[v * 4 + 3], 0);
        if (tangents) assertEquals(Math.abs(tangents[v * 4 + 3]), 1);
      }
      const { influenceCounts, joints, weights } = p.skin;
      let k = 0;
      for (let v = 0; v < vertexCount; v++) {
        const c = influenceCounts[v];
        assertGreater(c, 0);
        for (let i = 0; i < c; i++, k++) {
          assert(isSkinJoint.has(joints[k]), `vertex ${v}: a skin joint`);
          assertGreater(weights[k], 0);
          if (i > 0) assert(weights[k] <= weights[k - 1], "sorted");
        }
      }
      assertEquals(k, joints.length);
      assertEquals(k, weights.length);
    }
  }
}

/** Marrow vs three.js at the rest pose: vertices and joint transforms. */
async function checkRestAgainstThree(
  model: GltfImport,
  bytes: Uint8Array,
): Promise<{ relative: number; normal: number; tangent: number }> {
  const three = await loadThree(bytes);
  poseThree(three, null, 0);
  const r = compareModel(model, three, null, 0);
  const relative = r.maxPosition / r.bboxDiagonal;
  assertGreater(r.bboxDiagonal, 0);
  assertLess(relative, RELATIVE_TOLERANCE, `rest pose, worst at ${r.worst}`);
  assertLess(r.maxNormal, 1e-4);
  assertLess(r.maxTangent, 1e-4);
  // Node matrices are decomposed by gltf-transform for Marrow and by
  // three.js for itself: equal to about 1e-6.
  const poses = comparePoses(model, three, null, 0, r.bboxDiagonal);
  assertLess(poses.translation, 1e-5);
  assertLess(poses.rotation, 1e-5);
  assertLess(poses.scale, 1e-5);
  return { relative, normal: r.maxNormal, tangent: r.maxTangent };
}

Deno.test("the glTF test models are present and described", () => {
  const files = listAssets();
  assertGreater(files.length, 0);
  assertEquals(files, STATS.map((s) => s.file).sort());
});

for (const stats of STATS) {
  testOnModels(
    [stats.file],
    `import ${stats.file}: statistics, structure, rest pose vs three.js`,
    async () => {
      const bytes = readAsset(stats.file);
      const model = await importGltf(assetUrl(stats.file));
      assertEquals(model.warnings, []);
      assertEquals(
        model.skeletons.map((s) => s.skinJoints.length),
        stats.skins.map((s) => s.joints),
      );
      const primitives = model.skeletons.flatMap((s) => s.primitives);
      assertEquals(
        primitives.reduce((n, p) => n + p.skin.vertexCount, 0),
        stats.skinnedVertexInstances,
      );
      const unique = new Map(
        primitives.map((p) => [`${p.mesh}/${p.primitive}`, p]),
      );
      assertEquals(unique.size, stats.skinnedPrimitives);
      assertEquals(
        [...unique.values()].filter((p) => p.skin.normals).length,
        stats.primsWithNormal,
      );
      assertEquals(
        [...unique.values()].filter((p) => p.skin.tangents).length,
        stats.primsWithTangent,
      );
      // Influence histogram (non-zero weights per vertex) over unique primitives.
      const histogram: Record<string, number> = {};
      let weightSumError = 0;
      for (const p of unique.values()) {
        let k = 0;
        for (let v = 0; v < p.skin.vertexCount; v++) {
          const c = p.skin.influenceCounts[v];
          histogram[c] = (histogram[c] ?? 0) + 1;
          let sum = 0;
          for (let i = 0; i < c; i++) sum += p.skin.weights[k++];
          weightSumError = Math.max(weightSumError, Math.abs(sum - 1));
        }
      }
      assertEquals(histogram, stats.nonZeroWeightsHistogram);
      assertAlmostEquals(weightSumError, stats.weightSumMaxAbsErr, 1e-3);
      for (const s of model.skeletons) {
        assertEquals(s.clips.length, stats.animations.length);
        s.clips.forEach((clip, i) => {
          const a = stats.animations[i];
          // Unnamed animations are named as three.js names them.
          assertEquals(clip.name, a.name || `animation_${i}`);
          assertEquals(clip.animation, i);
          assertAlmostEquals(clip.start, a.tStart, 1e-4);
          assertAlmostEquals(clip.duration, a.tEnd, 1e-4);
          for (const ch of clip.channels) {
            assert(ch.joint < s.skeleton.parents.length);
            assertEquals(s.nodes[ch.joint], ch.node);
          }
        });
      }
      // The channels of all skeletons together: every translation, rotation
      // and scale channel whose node is in a skeleton, each once per skeleton.
      stats.animations.forEach((a, i) => {
        const perSkeleton = model.skeletons.map((s) => s.clips[i].channels);
        for (const channels of perSkeleton) {
          const keys = channels.map((c) => `${c.joint}/${c.path}`);
          assertEquals(new Set(keys).size, keys.length);
        }
        const animated = new Set(
          perSkeleton.flat().map((c) => `${c.node}/${c.path}`),
        );
        const trs = (a.paths.translation ?? 0) + (a.paths.rotation ?? 0) +
          (a.paths.scale ?? 0);
        assert(animated.size <= trs);
        assertGreater(animated.size, 0);
      });
      checkStructure(model);
      const rest = await checkRestAgainstThree(model, bytes);
      console.log(
        `  ${stats.file}: rest pose max error ${rest.relative.toExponential(2)} x bbox, normals ${
          rest.normal.toExponential(2)
        }`,
      );
    },
  );
}

testOnModels(
  ["Xbot.glb", "Soldier.glb"],
  "Mixamo-style Armature nodes above the hips are folded in",
  async () => {
    for (const file of ["Xbot.glb", "Soldier.glb"]) {
      const model = await importGltf(assetUrl(file));
      const s = model.skeletons[0];
      const hips = s.skeleton.names.indexOf("mixamorig:Hips");
      assertGreater(hips, 0, `${file}: the hips have an ancestor`);
      const root = s.skeleton.parents[hips];
      assertEquals(s.skeleton.parents[root], -1);
      assert(!s.skinJoints.includes(root), "the ancestor is not a skin joint");
      const g = root;
      const scale = s.skeleton.restPose[(g >> 2) * 40 + 28 + (g & 3)];
      assertAlmostEquals(scale, 0.01, 1e-6, `${file}: the 0.01 scale is kept`);
    }
  },
);

Deno.test("RecursiveSkeletons: 84 skins, nested skeletons share one mesh", async () => {
  const model = await importGltf(assetUrl("RecursiveSkeletons.glb"));
  assertEquals(model.skeletons.length, 84);
  const meshes = new Set(
    model.skeletons.flatMap((s) => s.primitives.map((p) => p.mesh)),
  );
  assertEquals(meshes.size, 1);
  const depth = Math.max(
    ...model.skeletons.map((s) => s.skeleton.parents.length),
  );
  assertEquals(depth, 30, "the deepest: 10 joints under 20 ancestors");
  for (const s of model.skeletons) assertEquals(s.primitives.length, 1);
});

testOnModels(["BrainStem.glb"], "BrainStem: 59 primitives of one skin, all rigid", async () => {
  const model = await importGltf(assetUrl("BrainStem.glb"));
  assertEquals(model.skeletons.length, 1);
  const s = model.skeletons[0];
  assertEquals(s.primitives.length, 59);
  assertEquals(new Set(s.primitives.map((p) => p.primitive)).size, 59);
  for (const p of s.primitives) {
    assert(p.skin.influenceCounts.every((c) => c === 1));
    assertExists(p.indices);
    assertEquals(p.mode, 4);
  }
});

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

Deno.test("glTF JSON: embedded data URIs, external buffers via resolveUri", async () => {
  // A real embedded .gltf.
  const simple = await importGltf(assetUrl("SimpleSkin.gltf"));
  assertEquals(simple.skeletons[0].primitives[0].skin.vertexCount, 10);
  // The rig as .gltf with an external buffer.
  const doc = syntheticRig();
  doc.getRoot().listBuffers()[0].setURI("rig data.bin");
  const { WebIO } = await import("@gltf-transform/core");
  const { json, resources } = await new WebIO().writeJSON(doc);
  const gltf = new TextEncoder().encode(JSON.stringify(json));
  const asked: string[] = [];
  const model = await parseGltf(gltf, {
    name: "rig.gltf",
    resolveUri: (uri) => {
      asked.push(uri);
      const bytes = resources[decodeURIComponent(uri)];
      if (!bytes) throw new Error("no such file");
      return bytes;
    },
  });
  assertEquals(asked.map(decodeURIComponent), ["rig data.bin"]);
  const glb = await parseGltf(await writeGlb(syntheticRig()));
  assertEquals(
    model.skeletons[0].primitives[0].skin,
    glb.skeletons[0].primitives[0].skin,
  );
  // Without a resolver, the external buffer is an error that names it.
  await rejects(
    parseGltf(gltf, { name: "rig.gltf" }),
    "rig.gltf",
    "rig",
    "resolveUri",
  );
  // Embedded as a data URI instead.
  const embedded = structuredClone(json);
  embedded.buffers![0].uri = "data:application/octet-stream;base64," +
    btoa(String.fromCharCode(...Object.values(resources)[0]));
  const fromDataUri = await parseGltf(
    new TextEncoder().encode(JSON.stringify(embedded)),
  );
  assertEquals(
    fromDataUri.skeletons[0].primitives[0].skin,
    glb.skeletons[0].primitives[0].skin,
  );
});

Deno.test("importGltf reads a .gltf's sibling .bin relative to its path", async () => {
  const doc = syntheticRig();
  doc.getRoot().listBuffers()[0].setURI("data/../data/rig%20data.bin");
  const { WebIO } = await import("@gltf-transform/core");
  const { json, resources } = await new WebIO().writeJSON(doc);
  // A virtual file system keyed by decoded absolute path.
  const files = new Map<string, Uint8Array>([
    ["/models/gltf/rig 1.gltf", new TextEncoder().encode(JSON.stringify(json))],
    ["/models/gltf/data/rig data.bin", Object.values(resources)[0]],
  ]);
  const read: string[] = [];
  const readFile = (url: URL) => {
    const path = decodeURIComponent(url.pathname);
    read.push(path);
    const bytes = files.get(path);
    return bytes ? Promise.resolve(bytes) : Promise.reject(new Deno.errors.NotFound(`no ${path}`));
  };
  const model = await importGltf("/models/gltf/rig 1.gltf", { readFile });
  assertEquals(read, ["/models/gltf/rig 1.gltf", "/models/gltf/data/rig data.bin"]);
  assertEquals(model.name, "/models/gltf/rig 1.gltf");
  assertEquals(model.skeletons[0].primitives[0].skin.vertexCount, 32);
  files.delete("/models/gltf/data/rig data.bin");
  const e = await rejects(
    importGltf("/models/gltf/rig 1.gltf", { readFile }),
    "/models/gltf/rig 1.gltf",
    "data/../data/rig%20data.bin",
    "tried /models/gltf/data/rig data.bin: no such file",
  );
  assertEquals(e.file, "/models/gltf/rig 1.gltf");
  assertEquals(e.pointer, "/buffers/0");
  // A sibling outside the model's folder is refused without a read.
  read.length = 0;
  doc.getRoot().listBuffers()[0].setURI("../data/rig%20data.bin");
  files.set(
    "/models/gltf/up.gltf",
    new TextEncoder().encode(JSON.stringify((await new WebIO().writeJSON(doc)).json)),
  );
  await rejects(importGltf("/models/gltf/up.gltf", { readFile }), "leaves the model's folder");
  assertEquals(read, ["/models/gltf/up.gltf"]);
  // Absolute URLs are not fetched.
  doc.getRoot().listBuffers()[0].setURI("https://example.com/rig.bin");
  const remote = await new WebIO().writeJSON(doc);
  files.set(
    "/models/gltf/remote.gltf",
    new TextEncoder().encode(JSON.stringify(remote.json)),
  );
  await rejects(
    importGltf("/models/gltf/remote.gltf", { readFile }),
    "only URIs relative to the model's folder",
  );
});

Deno.test("import errors name the file and what is wrong", async () => {
  await rejects(
    importGltf("/nonexistent/dir/model.glb"),
    "/nonexistent/dir/model.glb",
    "cannot read /nonexistent/dir/model.glb: no such file",
  );
  await rejects(
    parseGltf(new Uint8Array(0), { name: "empty.glb" }),
    "empty.glb",
    "empty",
  );
  await rejects(
    parseGltf(new TextEncoder().encode("PK\u0003\u0004 not a model"), {
      name: "x.zip",
    }),
    "x.zip",
    "neither a GLB",
  );
  const v1 = new Uint8Array(readAsset("RiggedSimple.glb"));
  v1[4] = 1;
  await rejects(parseGltf(v1, { name: "old.glb" }), "old.glb", "version 1");
  const truncated = readAsset("RiggedSimple.glb").slice(0, 2000);
  await rejects(
    parseGltf(truncated, { name: "cut.glb" }),
    "cut.glb",
    "the GLB header declares 15104 bytes, but the file has 2000",
  );
  await rejects(
    parseGltf(new TextEncoder().encode('{"asset": {"version": "1.0"}}'), {
      name: "a.gltf",
    }),
    "a.gltf at /asset/version",
    "only 2.x",
  );
  await rejects(
    parseGltf(new TextEncoder().encode('{"asset": {"version": "2.0"}, '), {
      name: "b.gltf",
    }),
    "b.gltf",
    "does not parse",
  );
  await rejects(
    parseGltf(
      new TextEncoder().encode(JSON.stringify({
        asset: { version: "2.0" },
        buffers: [{ uri: "missing.bin", byteLength: 4 }],
      })),
      { name: "c.gltf", resolveUri: () => Promise.reject(new Error("ENOENT")) },
    ),
    "c.gltf at /buffers/0",
    'the buffer "missing.bin" cannot be read',
    "ENOENT",
  );
});

/** Breaks a synthetic rig and expects the import to fail. */
async function rejectsBroken(
  change: (doc: Document) => void,
  ...includes: string[]
): Promise<void> {
  const doc = syntheticRig();
  change(doc);
  await rejects(
    parseGltf(await writeGlb(doc), { name: "broken.glb" }),
    "broken.glb",
    ...includes,
  );
}

Deno.test("broken skin and animation data are import errors", async () => {
  const prim = (doc: Document) => doc.getRoot().listMeshes()[0].listPrimitives()[0];
  await rejectsBroken(
    (doc) => {
      prim(doc).getAttribute("JOINTS_0")!.setElement(1, [9, 0, 0, 0]);
      prim(doc).getAttribute("WEIGHTS_0")!.setElement(1, [1, 0, 0, 0]);
    },
    "at /meshes/0/primitives/0/attributes/JOINTS_0",
    "vertex 1",
    "joint 9",
  );
  await rejectsBroken(
    (doc) => prim(doc).setAttribute("JOINTS_0", null),
    "at /meshes/0/primitives/0/attributes/WEIGHTS_0",
    "WEIGHTS_0 without JOINTS_0",
  );
  await rejectsBroken(
    (doc) => {
      prim(doc).setAttribute("JOINTS_0", null).setAttribute("WEIGHTS_0", null);
    },
    "at /meshes/0/primitives/0/attributes",
    "no JOINTS_0",
  );
  await rejectsBroken(
    (doc) => prim(doc).getAttribute("WEIGHTS_0")!.setElement(0, [-1, 0, 0, 0]),
    "at /meshes/0/primitives/0/attributes/WEIGHTS_0",
    "the weight -1",
  );
  await rejectsBroken(
    (doc) => {
      const w = prim(doc).getAttribute("WEIGHTS_0")!;
      w.setArray(Uint8Array.from(w.getArray()!, (x) => Math.round(x * 255)));
    },
    "at /meshes/0/primitives/0/attributes/WEIGHTS_0",
    "must be normalized",
  );
  await rejectsBroken(
    (doc) => {
      const ibm = doc.getRoot().listSkins()[0].getInverseBindMatrices()!;
      ibm.setArray(ibm.getArray()!.slice(0, 32));
    },
    "at /skins/0/inverseBindMatrices",
    "MAT4",
  );
  await rejectsBroken(
    (doc) => {
      const input = doc.getRoot().listAnimations()[0].listSamplers()[0]
        .getInput()!;
      input.setArray(new Float32Array([0.25, 0.75, 0.75, 2]));
    },
    "at /animations/0/samplers/0/input",
    "strictly increasing",
  );
  await rejectsBroken(
    (doc) => {
      const output = doc.getRoot().listAnimations()[0].listSamplers()[0]
        .getOutput()!;
      output.setArray(output.getArray()!.slice(0, 8));
    },
    "at /animations/0/samplers/0/output",
    "VEC",
  );
});

Deno.test("a file without skins imports as no skeletons", async () => {
  const doc = new Document();
  doc.createScene().addChild(doc.createNode("empty"));
  const model = await parseGltf(await writeGlb(doc));
  assertEquals(model.skeletons, []);
  // The shared reader used by the tests agrees that this is valid glTF.
  assertEquals(
    (await readDocument(await writeGlb(doc))).getRoot().listNodes().length,
    1,
  );
});
