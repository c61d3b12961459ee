/**
 * glTF skins to skeletons: one skeleton per joint hierarchy. Skins that
 * share nodes share a skeleton (RecursiveSkeletons, and a synthetic pair of
 * skins binding one joint differently, which gets a bind twin), skins over
 * disjoint hierarchies stay apart, and a skeleton of one skin is exactly
 * the one-skin build (the rule before skins were merged, written out here).
 * Skinned output against three.js.
 */

import { assert, assertEquals, assertGreater, assertLess } from "@std/assert";
import { Document, type Node } from "@gltf-transform/core";
import { type GltfImport, importGltf, parseGltf } from "../gltf/import.ts";
import { MATRIX_FLOATS, type PoseField, poseFloats, poseIndex } from "../simd/memory/layout.ts";
import {
  assetUrl,
  listAssets,
  loadThree,
  poseThree,
  readAsset,
  testOnModels,
  threeSkinned,
} from "./_three_gltf.ts";
import { bindTwins, compareModel, marrowPalette, marrowSkin } from "./_gltf_compare.ts";
import { checkStructure, identityPoseAt } from "./_gltf_import.ts";
import { invert4, readDocument, rng, writeGlb } from "./_gltf_rig.ts";

/** A skeleton of one skin as the importer built it before skins shared skeletons. */
interface OneSkinSkeleton {
  names: string[];
  parents: Int16Array;
  nodes: Int32Array;
  restPose: Float32Array;
  inverseBind: Float32Array;
  skinJoints: Uint16Array;
}

/**
 * The one-skin rule: the skin's joints in order, each placed after its
 * ancestors (placed first, recursively, when not placed yet); ancestors bind
 * with the identity; rotations normalized; padding lanes the identity.
 */
function oneSkinSkeleton(doc: Document, s: number): OneSkinSkeleton {
  const all = doc.getRoot().listNodes();
  const skin = doc.getRoot().listSkins()[s];
  const order: Node[] = [];
  const place = (node: Node): void => {
    if (order.includes(node)) return;
    const parent = node.getParentNode();
    if (parent) place(parent);
    order.push(node);
  };
  skin.listJoints().forEach(place);
  const n = order.length;
  const restPose = new Float32Array(poseFloats(n));
  for (let j = 0; j < Math.ceil(n / 4) * 4; j++) {
    const node = order[j];
    const t = node?.getTranslation() ?? [0, 0, 0], s = node?.getScale() ?? [1, 1, 1];
    const raw = node?.getRotation() ?? [0, 0, 0, 1];
    const q = raw.map((c) => c / Math.hypot(...raw));
    // PoseField order: translation, rotation, scale.
    const fields = [...t, ...q, ...s];
    fields.forEach((v, f) => (restPose[poseIndex(j, f as PoseField)] = v));
  }
  const skinJoints = Uint16Array.from(skin.listJoints(), (node) => order.indexOf(node));
  const inverseBind = new Float32Array(n * MATRIX_FLOATS);
  for (let j = 0; j < n; j++) inverseBind.set([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0], j * 12);
  const ibm = skin.getInverseBindMatrices();
  const e: number[] = [];
  skinJoints.forEach((j, i) => {
    if (!ibm) return;
    ibm.getElement(i, e);
    // Column-major 4x4 to row-major 3x4.
    for (let k = 0; k < 12; k++) inverseBind[j * 12 + k] = e[(k % 4) * 4 + Math.floor(k / 4)];
  });
  return {
    names: order.map((node) => node.getName()),
    parents: Int16Array.from(order, (node) => order.indexOf(node.getParentNode()!)),
    nodes: Int32Array.from(order, (node) => all.indexOf(node)),
    restPose,
    inverseBind,
    skinJoints,
  };
}

const bytesOf = (a: ArrayBufferView) => new Uint8Array(a.buffer, a.byteOffset, a.byteLength);

/** Every skeleton of `model` with one skin is exactly its one-skin build, byte for byte. */
function checkOneSkinSkeletons(model: GltfImport, doc: Document): number {
  let checked = 0;
  for (const s of model.skeletons.filter((s) => s.skins.length === 1)) {
    const expected = oneSkinSkeleton(doc, s.skin);
    assertEquals(s.skeleton.names, expected.names);
    assertEquals(bytesOf(s.skeleton.parents), bytesOf(expected.parents));
    assertEquals(bytesOf(s.nodes), bytesOf(expected.nodes));
    assertEquals(bytesOf(s.skeleton.restPose), bytesOf(expected.restPose));
    assertEquals(bytesOf(s.skeleton.inverseBind), bytesOf(expected.inverseBind));
    assertEquals(bytesOf(s.skinJoints), bytesOf(expected.skinJoints));
    checked++;
  }
  return checked;
}

for (const file of listAssets()) {
  testOnModels([file], `${file}: a skeleton of one skin is the one-skin build`, async () => {
    const bytes = readAsset(file);
    const model = await parseGltf(bytes, { name: file });
    const doc = await readDocument(bytes);
    const checked = checkOneSkinSkeletons(model, doc);
    const skins = doc.getRoot().listSkins().length;
    if (skins === 1) assertEquals(checked, 1);
  });
}

/** Quaternion of `angle` radians about `axis`. */
function axisAngle(axis: number[], angle: number): [number, number, number, number] {
  const len = Math.hypot(...axis), s = Math.sin(angle / 2) / len;
  return [axis[0] * s, axis[1] * s, axis[2] * s, Math.cos(angle / 2)];
}

/**
 * Two skins on chains of nodes, each skinning a mesh of 24 vertices, and one
 * animation turning every joint. `shared`: skin 1 binds joints B and C of
 * skin 0's chain R > A > B > C (skin 0: R, A, B), B with its bind matrix
 * moved by `bindOffset` (none: the same matrix as skin 0's); otherwise skin
 * 1 binds D and E of a second chain R2 > D > E.
 */
function twoSkins(shared: boolean, bindOffset?: [number, number, number]): Document {
  const random = rng(3);
  const doc = new Document();
  const buffer = doc.createBuffer();
  const node = (name: string, t: [number, number, number], q = axisAngle([1, 2, 3], 0.4)) =>
    doc.createNode(name).setTranslation(t).setRotation(q);
  const r = node("R", [0, 1, 0]), a = node("A", [0, 1, 0.2]), b = node("B", [0.3, 1, 0]);
  const c = node("C", [0.5, 0.5, 0]);
  r.addChild(a), a.addChild(b), b.addChild(c);
  const scene = doc.createScene().addChild(r);
  let second = [b, c];
  if (!shared) {
    const r2 = node("R2", [3, 0, 0]), d = node("D", [0, 1, 0]), e = node("E", [0, 1, 0.5]);
    r2.addChild(d), d.addChild(e);
    scene.addChild(r2);
    second = [d, e];
  }
  doc.getRoot().setDefaultScene(scene);
  const accessor = (
    type: "SCALAR" | "VEC3" | "VEC4" | "MAT4",
    array: Float32Array<ArrayBuffer> | Uint16Array<ArrayBuffer>,
  ) => doc.createAccessor().setType(type).setArray(array).setBuffer(buffer);
  [[r, a, b], second].forEach((joints, k) => {
    const skin = doc.createSkin(`skin${k}`);
    const ibm = new Float32Array(joints.length * 16);
    joints.forEach((joint, i) => {
      const world = joint.getWorldMatrix();
      if (k === 1 && i === 0 && bindOffset) {
        for (let x = 0; x < 3; x++) world[12 + x] += bindOffset[x];
      }
      ibm.set(invert4(world), i * 16);
      skin.addJoint(joint);
    });
    skin.setInverseBindMatrices(accessor("MAT4", ibm));
    const count = 24;
    const positions = new Float32Array(count * 3).map(() => random() * 3 - 1);
    const vertexJoints = new Uint16Array(count * 4);
    const weights = new Float32Array(count * 4);
    for (let v = 0; v < count; v++) {
      vertexJoints.set([v % joints.length, (v + 1) % joints.length, 0, 0], v * 4);
      const w = 0.3 + 0.6 * random();
      weights.set([w, 1 - w, 0, 0], v * 4);
    }
    const primitive = doc.createPrimitive()
      .setAttribute("POSITION", accessor("VEC3", positions))
      .setAttribute("JOINTS_0", accessor("VEC4", vertexJoints))
      .setAttribute("WEIGHTS_0", accessor("VEC4", weights));
    const mesh = doc.createMesh(`mesh${k}`).addPrimitive(primitive);
    scene.addChild(doc.createNode(`body${k}`).setMesh(mesh).setSkin(skin));
  });
  const animation = doc.createAnimation("turn");
  const times = accessor("SCALAR", new Float32Array([0, 1, 2]));
  for (const target of new Set([a, b, c, ...second])) {
    const axis = [random() - 0.5, random() - 0.5, random() - 0.5];
    const keys = new Float32Array([0, 1.2, -0.7].flatMap((angle) => axisAngle(axis, angle)));
    const sampler = doc.createAnimationSampler().setInput(times)
      .setOutput(accessor("VEC4", keys)).setInterpolation("LINEAR");
    animation.addSampler(sampler).addChannel(
      doc.createAnimationChannel().setTargetNode(target).setTargetPath("rotation")
        .setSampler(sampler),
    );
  }
  return doc;
}

/** Marrow's skinned vertices against three.js at `times`; the largest error relative to the size. */
async function againstThree(model: GltfImport, bytes: Uint8Array, times: number[]) {
  const three = await loadThree(bytes);
  let worst = 0;
  for (const time of times) {
    poseThree(three, 0, time);
    const r = compareModel(model, three, 0, time);
    assertGreater(r.bboxDiagonal, 0);
    worst = Math.max(worst, r.maxPosition / r.bboxDiagonal);
  }
  return { three, worst };
}

const TIMES = [0, 0.4, 1, 1.7, 2];

Deno.test("two skins binding one joint differently: one skeleton, a bind twin, skinned like three.js", async () => {
  const doc = twoSkins(true, [0.3, -0.2, 0.4]);
  const bytes = await writeGlb(doc);
  const model = await parseGltf(bytes, { name: "twins.glb" });
  assertEquals(model.warnings, []);
  assertEquals(model.skeletons.length, 1);
  const [s] = model.skeletons;
  checkStructure(model);
  assertEquals(s.skins.map((k) => [k.skin, k.name]), [[0, "skin0"], [1, "skin1"]]);
  assertEquals([s.skin, s.name], [0, "skin0"]);
  assertEquals(s.skeleton.names, ["R", "A", "B", "C", "B#bind:skin1"]);
  assertEquals(Array.from(s.skeleton.parents), [-1, 0, 1, 2, 2]);
  assertEquals(bindTwins(s), [4]);
  assertEquals(s.nodes[4], s.nodes[2], "the twin stands for B");
  assert(identityPoseAt(s.skeleton.restPose, 4));
  assertEquals(Array.from(s.skins[0].skinJoints), [0, 1, 2]);
  assertEquals(Array.from(s.skins[1].skinJoints), [4, 3]);
  // B binds with skin 0's matrix, the twin with skin 1's; they differ.
  const ibm = (skin: number, i: number) => {
    const e: number[] = [];
    doc.getRoot().listSkins()[skin].getInverseBindMatrices()!.getElement(i, e);
    return Float32Array.from({ length: 12 }, (_, k) => e[(k % 4) * 4 + Math.floor(k / 4)]);
  };
  const at = (j: number) => s.skeleton.inverseBind.subarray(j * 12, j * 12 + 12);
  assertEquals(at(2), ibm(0, 2));
  assertEquals(at(4), ibm(1, 0));
  assertEquals(at(3), ibm(1, 1));
  assert(at(2).some((v, k) => v !== at(4)[k]));
  assert(s.clips[0].channels.every((ch) => ch.joint < 4), "the twin has no channel");
  assertEquals(s.clips[0].channels.length, 3);
  assertEquals(s.primitives.map((p) => p.gltfSkin), [0, 1]);

  const { three, worst } = await againstThree(model, bytes, TIMES);
  assertLess(worst, 1e-5);
  // Not vacuous: skin 1 bound through B's own matrix instead would be far off.
  const prim = s.primitives[1];
  const wrong = { ...prim.skin, joints: prim.skin.joints.map((j) => (j === 4 ? 2 : j)) };
  poseThree(three, 0, 1);
  const ours = marrowSkin(wrong, marrowPalette(s, 0, 1).palette).positions;
  const ref = threeSkinned(three.primitives.find((p) => p.mesh === prim.mesh)!, 1).positions;
  let off = 0;
  for (let v = 0; v < prim.skin.vertexCount; v++) {
    for (let k = 0; k < 3; k++) off = Math.max(off, Math.abs(ours[v * 4 + k] - ref[v * 3 + k]));
  }
  assertGreater(off, 0.1);
});

Deno.test("two skins binding one joint alike share it: no twin", async () => {
  const bytes = await writeGlb(twoSkins(true));
  const model = await parseGltf(bytes);
  assertEquals(model.skeletons.length, 1);
  const [s] = model.skeletons;
  checkStructure(model);
  assertEquals(s.skeleton.names, ["R", "A", "B", "C"]);
  assertEquals(Array.from(s.skins[1].skinJoints), [2, 3]);
  assertEquals(bindTwins(s), []);
  assertLess((await againstThree(model, bytes, TIMES)).worst, 1e-5);
});

Deno.test("two skins over disjoint hierarchies stay two skeletons, each its one-skin build", async () => {
  const doc = twoSkins(false);
  const bytes = await writeGlb(doc);
  const model = await parseGltf(bytes);
  assertEquals(model.skeletons.length, 2);
  checkStructure(model);
  assertEquals(model.skeletons.map((s) => s.skins.map((k) => k.skin)), [[0], [1]]);
  assertEquals(model.skeletons.map((s) => s.skeleton.names), [["R", "A", "B"], ["R2", "D", "E"]]);
  assertEquals(checkOneSkinSkeletons(model, doc), 2);
  assertEquals(model.skeletons.map((s) => s.clips[0].channels.length), [2, 2]);
  assertLess((await againstThree(model, bytes, TIMES)).worst, 1e-5);
});

Deno.test("RecursiveSkeletons: 84 skins, one skeleton per hierarchy, each node once", async () => {
  const bytes = readAsset("RecursiveSkeletons.glb");
  const model = await importGltf(assetUrl("RecursiveSkeletons.glb"));
  const doc = await readDocument(bytes);
  const all = doc.getRoot().listNodes();
  const rootOf = (node: Node): Node => node.getParentNode() ? rootOf(node.getParentNode()!) : node;
  const skins = doc.getRoot().listSkins();
  const hierarchies = new Set(skins.flatMap((skin) => skin.listJoints().map(rootOf)));
  assertEquals(hierarchies.size, 4);
  assertEquals(model.skeletons.length, hierarchies.size);
  checkStructure(model);
  // Every skin once, in the skeleton of its hierarchy, its joints mapped to their nodes.
  const listed = model.skeletons.flatMap((s) => s.skins.map((k) => k.skin));
  assertEquals(listed, skins.map((_, i) => i));
  for (const s of model.skeletons) {
    assertEquals(new Set(s.nodes).size, s.nodes.length, "each node once");
    assertEquals(new Set(Array.from(s.nodes, (n) => rootOf(all[n]))).size, 1);
    for (const k of s.skins) {
      const joints = skins[k.skin].listJoints().map((node) => all.indexOf(node));
      assertEquals(Array.from(k.skinJoints, (j) => s.nodes[j]), joints);
    }
    // One primitive per skin, skinned with it: one mesh, instanced by every skin's node.
    assertEquals(s.primitives.map((p) => p.gltfSkin), s.skins.map((k) => k.skin));
  }
  assertEquals(new Set(model.skeletons.flatMap((s) => s.primitives.map((p) => p.mesh))).size, 1);
  // 840 animated joints in all, each a joint of one skeleton; 30 deep at most.
  assertEquals(model.skeletons.reduce((n, s) => n + s.skeleton.parents.length, 0), 840);
  const depth = (s: (typeof model.skeletons)[number], j: number): number =>
    j < 0 ? 0 : 1 + depth(s, s.skeleton.parents[j]);
  assertEquals(
    Math.max(...model.skeletons.flatMap((s) => [...s.nodes.keys()].map((j) => depth(s, j)))),
    30,
  );
  assertEquals(model.skeletons.reduce((n, s) => n + s.clips[0].channels.length, 0), 840);
  const { worst } = await againstThree(model, bytes, [0, 0.5, 1.3]);
  assertLess(worst, 1e-4);
});

Deno.test("a skin spanning two hierarchies unites them in one skeleton; a third stays apart", async () => {
  const doc = new Document();
  const node = (name: string, parent?: Node) => {
    const created = doc.createNode(name).setTranslation([name.length, 1, 0]);
    parent?.addChild(created);
    return created;
  };
  const r = node("R"), a = node("A", r), r2 = node("R2"), d = node("D", r2);
  const s = node("S"), t = node("T", s);
  doc.getRoot().setDefaultScene(doc.createScene().addChild(r).addChild(r2).addChild(s));
  for (const joints of [[a], [d], [t], [d, a]]) {
    const skin = doc.createSkin();
    for (const joint of joints) skin.addJoint(joint);
  }
  const model = await parseGltf(await writeGlb(doc));
  checkStructure(model);
  assertEquals(model.skeletons.map((k) => k.skins.map((skin) => skin.skin)), [[0, 1, 3], [2]]);
  assertEquals(model.skeletons.map((k) => k.skeleton.names), [["R", "A", "R2", "D"], ["S", "T"]]);
  assertEquals(Array.from(model.skeletons[0].skeleton.parents), [-1, 0, -1, 2]);
  assertEquals(Array.from(model.skeletons[0].skins[2].skinJoints), [3, 1]);
});

Deno.test("a joint one skin has as an ancestor takes the matrix of the skin that lists it, no twin", async () => {
  const doc = new Document();
  const buffer = doc.createBuffer();
  const r = doc.createNode("R").setTranslation([0, 1, 0]);
  const a = doc.createNode("A").setTranslation([0, 1, 0]), b = doc.createNode("B");
  r.addChild(a), a.addChild(b.setTranslation([1, 0, 0]));
  doc.getRoot().setDefaultScene(doc.createScene().addChild(r));
  const bind = (node: Node) =>
    doc.createAccessor().setType("MAT4").setArray(Float32Array.from(invert4(node.getWorldMatrix())))
      .setBuffer(buffer);
  doc.createSkin("lower").addJoint(b).setInverseBindMatrices(bind(b));
  doc.createSkin("upper").addJoint(a).setInverseBindMatrices(bind(a));
  const model = await parseGltf(await writeGlb(doc));
  checkStructure(model);
  assertEquals(model.skeletons.length, 1);
  const [s] = model.skeletons;
  assertEquals(s.skeleton.names, ["R", "A", "B"]);
  assertEquals(s.skins.map((k) => Array.from(k.skinJoints)), [[2], [1]]);
  // Row-major 3x4: the translation is the last column (+ 0: no negative zeros).
  const translation = (j: number) => [3, 7, 11].map((k) => s.skeleton.inverseBind[j * 12 + k] + 0);
  assertEquals(translation(0), [0, 0, 0]);
  assertEquals(translation(1), [0, -2, 0]);
  assertEquals(translation(2), [-1, -2, 0]);
});
