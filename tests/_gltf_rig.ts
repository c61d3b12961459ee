/**
 * Test harness: glTF documents with gltf-transform. Reads and writes GLB
 * bytes, and builds {@linkcode syntheticRig}, a small skinned, animated
 * document with the cases the test models lack.
 *
 * @module
 */

import * as THREE from "three";
import { Document, Logger, WebIO } from "@gltf-transform/core";

const SILENT = new Logger(Logger.Verbosity.SILENT);

/** Reads glTF bytes (GLB, or JSON with data URIs) with gltf-transform. */
export async function readDocument(bytes: Uint8Array): Promise<Document> {
  const io = new WebIO().setLogger(SILENT);
  const isGlb = bytes[0] === 0x67 && bytes[1] === 0x6c && bytes[2] === 0x54;
  if (isGlb) return await io.readBinary(new Uint8Array(bytes));
  const json = JSON.parse(new TextDecoder().decode(bytes));
  return await io.readJSON({ json, resources: {} });
}

/**
 * Writes a document as GLB bytes, first merging its buffers into one (GLB
 * holds a single binary chunk; `.gltf` files may have several buffers).
 */
export async function writeGlb(document: Document): Promise<Uint8Array> {
  const root = document.getRoot();
  const [first, ...rest] = root.listBuffers();
  if (first) {
    for (const accessor of root.listAccessors()) accessor.setBuffer(first);
    first.setURI("");
    for (const buffer of rest) buffer.dispose();
  }
  return await new WebIO().setLogger(SILENT).writeBinary(document);
}

/** Options of {@linkcode syntheticRig}. */
export interface RigOptions {
  /** Component type of JOINTS_n. Default `"u16"`. */
  joints?: "u8" | "u16";
  /** WEIGHTS_n encoding. Default `"f32"`. */
  weights?: "f32" | "u8" | "u16";
  /** Influence slots per vertex: 4 (JOINTS_0) or 8 (also JOINTS_1). */
  influences?: 4 | 8;
  /** Write inverse bind matrices (default true; false means identity). */
  inverseBind?: boolean;
  /** Interpolation of the animation's samplers. Default `"LINEAR"`. */
  interpolation?: "STEP" | "LINEAR" | "CUBICSPLINE";
  /** Add a second mesh and a second instance of the first mesh, same skin. */
  shareSkin?: boolean;
  /** Add a morph target and a `weights` channel that ends at 3 s. */
  morph?: boolean;
  /** Add TANGENT. */
  tangents?: boolean;
}

/** Deterministic pseudo-random numbers in [0, 1). */
export function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function unitQuat(random: () => number, amount: number): number[] {
  const v = [random() - 0.5, random() - 0.5, random() - 0.5];
  const len = Math.hypot(v[0], v[1], v[2]) || 1;
  const half = amount * (random() + 0.2) / 2;
  const s = Math.sin(half) / len;
  return [v[0] * s, v[1] * s, v[2] * s, Math.cos(half)];
}

/** Node names of {@linkcode syntheticRig}, in creation order. */
export const RIG_NODES: readonly string[] = [
  "Armature",
  "hip",
  "spine",
  "arm",
  "helper",
  "hand",
  "head",
  "leg",
  "body",
];

/**
 * A small skinned, animated glTF document with the awkward cases in it:
 * a non-joint `Armature` root with rotation and 0.01-like scale, a
 * non-joint `helper` node between two joints, skin joints listed children
 * first, a skinned node with its own (ignored) transform, and one
 * animation that starts at 0.25 s and drives joints and non-joint
 * ancestors.
 */
export function syntheticRig(options: RigOptions = {}): Document {
  const random = rng(7);
  const doc = new Document();
  const buffer = doc.createBuffer();
  const node = (name: string, t: number[], q: number[], s: number[]) =>
    doc.createNode(name).setTranslation(t as [number, number, number])
      .setRotation(q as [number, number, number, number])
      .setScale(s as [number, number, number]);
  const armature = node("Armature", [0, 0.5, 0], [
    Math.SQRT1_2,
    0,
    0,
    Math.SQRT1_2,
  ], [0.5, 0.5, 0.5]);
  const hip = node("hip", [0, 0, 0.2], unitQuat(random, 0.3), [1, 1, 1]);
  const spine = node("spine", [0, 1, 0], unitQuat(random, 0.3), [1, 1, 1]);
  const arm = node("arm", [0.6, 0.5, 0], unitQuat(random, 0.5), [1, 1.2, 1]);
  const helper = node("helper", [0.4, 0, 0], unitQuat(random, 0.4), [
    1,
    1,
    1,
  ]);
  const hand = node("hand", [0.3, 0, 0], unitQuat(random, 0.3), [1, 1, 1]);
  const head = node("head", [0, 0.8, 0], unitQuat(random, 0.2), [1, 1, 1]);
  const leg = node("leg", [0.2, -0.5, 0], unitQuat(random, 0.2), [1, 1, 1]);
  armature.addChild(hip);
  hip.addChild(spine).addChild(leg);
  spine.addChild(arm).addChild(head);
  arm.addChild(helper);
  helper.addChild(hand);
  // Children before parents, so that the importer must reorder.
  const joints = [hand, head, spine, arm, leg, hip];
  const skin = doc.createSkin("rig");
  for (const j of joints) skin.addJoint(j);
  if (options.inverseBind !== false) {
    const ibm = new Float32Array(16 * joints.length);
    joints.forEach((j, i) => {
      ibm.set(invert4(j.getWorldMatrix()), i * 16);
    });
    skin.setInverseBindMatrices(
      doc.createAccessor().setType("MAT4").setArray(ibm).setBuffer(buffer),
    );
  }

  const mesh = doc.createMesh("tube").addPrimitive(
    tubePrimitive(doc, buffer, random, options, joints.length, 0),
  );
  const body = node("body", [3, 1, 2], unitQuat(random, 1), [2, 2, 2])
    .setMesh(mesh).setSkin(skin);
  armature.addChild(body);
  const scene = doc.createScene("scene").addChild(armature);
  if (options.shareSkin) {
    const other = doc.createMesh("other")
      .addPrimitive(
        tubePrimitive(doc, buffer, random, options, joints.length, 1),
      )
      .addPrimitive(
        tubePrimitive(doc, buffer, random, options, joints.length, 2),
      );
    scene.addChild(
      node("body2", [0, 0, 5], [0, 0, 0, 1], [1, 1, 1])
        .setMesh(other).setSkin(skin),
    );
    scene.addChild(
      node("body3", [0, 5, 0], [0, 0, 0, 1], [1, 1, 1])
        .setMesh(mesh).setSkin(skin),
    );
  }
  doc.getRoot().setDefaultScene(scene);

  const interpolation = options.interpolation ?? "LINEAR";
  const animation = doc.createAnimation("move");
  const times = new Float32Array([0.25, 0.75, 1.1, 2]);
  const input = doc.createAccessor().setType("SCALAR").setArray(times)
    .setBuffer(buffer);
  const channel = (target: typeof hip, path: string, keys: number[][]) => {
    const size = keys[0].length;
    const values: number[] = [];
    for (const k of keys) {
      if (interpolation === "CUBICSPLINE") {
        const tangent = () => k.map(() => (random() - 0.5) * 2);
        values.push(...tangent(), ...k, ...tangent());
      } else values.push(...k);
    }
    const sampler = doc.createAnimationSampler()
      .setInput(input)
      .setOutput(
        doc.createAccessor().setType(size === 4 ? "VEC4" : "VEC3")
          .setArray(new Float32Array(values)).setBuffer(buffer),
      )
      .setInterpolation(interpolation);
    animation.addSampler(sampler).addChannel(
      doc.createAnimationChannel().setTargetNode(target)
        .setTargetPath(path as "rotation").setSampler(sampler),
    );
  };
  const rotations = () =>
    times.map(() => 0).reduce<number[][]>((a) => {
      // Consecutive keys far apart and with opposite signs, so that slerp
      // takes its sign flip and its lerp-free branch.
      const q = unitQuat(random, 2.5);
      a.push(a.length % 2 ? q.map((c) => -c) : q);
      return a;
    }, []);
  channel(spine, "rotation", rotations());
  channel(helper, "rotation", rotations());
  channel(armature, "rotation", rotations());
  channel(arm, "translation", [[0.6, 0.5, 0], [0.7, 0.4, 0.1], [0.5, 0.6, 0], [
    0.6,
    0.5,
    0.2,
  ]]);
  channel(hand, "scale", [[1, 1, 1], [1.5, 0.8, 1], [0.7, 1.2, 1.1], [
    1,
    1,
    1,
  ]]);
  // Nearly equal rotations: slerp's lerp-and-normalize branch.
  const q = unitQuat(random, 1);
  channel(head, "rotation", [q, q.map((c, i) => c + (i === 0 ? 1e-3 : 0)), q, [
    0,
    0,
    0,
    1,
  ]]);
  if (options.morph) {
    const prim = mesh.listPrimitives()[0];
    const count = prim.getAttribute("POSITION")!.getCount();
    prim.addTarget(
      doc.createPrimitiveTarget().setAttribute(
        "POSITION",
        doc.createAccessor().setType("VEC3")
          .setArray(new Float32Array(count * 3).fill(0.1)).setBuffer(buffer),
      ),
    );
    mesh.setWeights([0]);
    const sampler = doc.createAnimationSampler()
      .setInput(
        doc.createAccessor().setType("SCALAR")
          .setArray(new Float32Array([0, 3])).setBuffer(buffer),
      )
      .setOutput(
        doc.createAccessor().setType("SCALAR")
          .setArray(new Float32Array([0, 1])).setBuffer(buffer),
      )
      .setInterpolation("LINEAR");
    animation.addSampler(sampler).addChannel(
      doc.createAnimationChannel().setTargetNode(body)
        .setTargetPath("weights").setSampler(sampler),
    );
  }
  return doc;
}

/** Inverse of a column-major affine 4x4 matrix. */
export function invert4(m: ArrayLike<number>): Float32Array {
  const a = new THREE.Matrix4().fromArray(Array.from(m)).invert();
  return Float32Array.from(a.elements);
}

function tubePrimitive(
  doc: Document,
  buffer: ReturnType<Document["createBuffer"]>,
  random: () => number,
  options: RigOptions,
  jointCount: number,
  variant: number,
) {
  const rings = 8, sides = 4, count = rings * sides;
  const positions = new Float32Array(count * 3);
  const normals = new Float32Array(count * 3);
  const tangents = new Float32Array(count * 4);
  for (let r = 0; r < rings; r++) {
    for (let s = 0; s < sides; s++) {
      const v = r * sides + s, a = (s / sides) * 2 * Math.PI + variant;
      positions.set(
        [0.3 * Math.cos(a) + variant, r * 0.4 - 0.5, 0.3 * Math.sin(a)],
        v * 3,
      );
      normals.set([Math.cos(a), 0, Math.sin(a)], v * 3);
      tangents.set([-Math.sin(a), 0, Math.cos(a), s % 2 ? 1 : -1], v * 4);
    }
  }
  const slots = options.influences ?? 4;
  const weightScale = options.weights === "u8" ? 255 : options.weights === "u16" ? 65535 : 0;
  const joints = new Uint16Array(count * slots);
  const weights = new Float64Array(count * slots);
  for (let v = 0; v < count; v++) {
    // Vertex 3: a single influence; vertex 5: one joint listed twice;
    // others: random joints and weights, some zero.
    const used = v === 3 ? 1 : 1 + Math.floor(random() * slots);
    let raw: number[] = [];
    for (let k = 0; k < slots; k++) {
      raw.push(k < used ? 0.05 + random() : 0);
      joints[v * slots + k] = k < used ? Math.floor(random() * jointCount) : 0;
    }
    if (v === 5) joints[v * slots + 1] = joints[v * slots];
    const sum = raw.reduce((x, y) => x + y, 0);
    raw = raw.map((w) => w / sum);
    if (weightScale) {
      // Integer weights that sum exactly to the maximum, so that three.js'
      // normalizeSkinWeights does not re-quantize them.
      const ints = raw.map((w) => Math.floor(w * weightScale));
      ints[0] += weightScale - ints.reduce((x, y) => x + y, 0);
      raw = ints;
    }
    weights.set(raw, v * slots);
  }
  const prim = doc.createPrimitive()
    .setAttribute(
      "POSITION",
      doc.createAccessor().setType("VEC3").setArray(positions).setBuffer(
        buffer,
      ),
    )
    .setAttribute(
      "NORMAL",
      doc.createAccessor().setType("VEC3").setArray(normals).setBuffer(buffer),
    );
  if (options.tangents) {
    prim.setAttribute(
      "TANGENT",
      doc.createAccessor().setType("VEC4").setArray(tangents).setBuffer(
        buffer,
      ),
    );
  }
  for (let set = 0; set < slots / 4; set++) {
    const j = new (options.joints === "u8" ? Uint8Array : Uint16Array)(
      count * 4,
    );
    const w = options.weights === "u8"
      ? new Uint8Array(count * 4)
      : options.weights === "u16"
      ? new Uint16Array(count * 4)
      : new Float32Array(count * 4);
    for (let v = 0; v < count; v++) {
      for (let k = 0; k < 4; k++) {
        j[v * 4 + k] = joints[v * slots + set * 4 + k];
        w[v * 4 + k] = weights[v * slots + set * 4 + k];
      }
    }
    prim.setAttribute(
      `JOINTS_${set}`,
      doc.createAccessor().setType("VEC4").setArray(j).setBuffer(buffer),
    ).setAttribute(
      `WEIGHTS_${set}`,
      doc.createAccessor().setType("VEC4").setArray(w).setBuffer(buffer)
        .setNormalized(options.weights === "u8" || options.weights === "u16"),
    );
  }
  const indices: number[] = [];
  for (let r = 0; r + 1 < rings; r++) {
    for (let s = 0; s < sides; s++) {
      const a = r * sides + s, b = r * sides + (s + 1) % sides;
      indices.push(a, b, a + sides, b, b + sides, a + sides);
    }
  }
  return prim.setIndices(
    doc.createAccessor().setType("SCALAR").setArray(new Uint16Array(indices))
      .setBuffer(buffer),
  );
}
