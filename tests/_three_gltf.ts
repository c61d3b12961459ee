/**
 * Test harness: three.js (GLTFLoader, AnimationMixer, SkinnedMesh) as the
 * independent reference for imported glTF skinning, plus the same pipeline
 * run through Marrow's scalar kernels, and access to the test models
 * (`tests/_assets.ts` says where they are).
 *
 * ## Space convention
 *
 * Both sides produce skinned vertices in **glTF scene space** (three.js:
 * the space of `gltf.scene`, which has an identity transform):
 *
 * - Marrow: `p' = sum_k w_k * model[j_k] * inverseBind[j_k] * p`, where
 *   `model` is the joint's matrix composed from the skeleton's roots, which
 *   are the scene's root nodes because the importer folds every ancestor
 *   of the joints into the skeleton.
 * - three.js: `SkinnedMesh.applyBoneTransform` returns
 *   `bindMatrixInverse * sum_k w_k * bone.matrixWorld * boneInverse *
 *   bindMatrix * p`, in the mesh object's local space. GLTFLoader binds
 *   every skinned mesh with an identity `bindMatrix`, and in the default
 *   `"attached"` bind mode `updateMatrixWorld` sets `bindMatrixInverse` to
 *   the inverse of the mesh's `matrixWorld` (both checked here). So
 *   `mesh.matrixWorld * applyBoneTransform(p)` is
 *   `sum_k w_k * bone.matrixWorld * boneInverse * p`: the same expression,
 *   `bone.matrixWorld` being the joint's world matrix from `gltf.scene`.
 *   The harness applies `mesh.matrixWorld` to three's result (which is
 *   what three.js' renderer does with `modelMatrix`).
 *
 * In the end the skinned mesh node's own transform takes no part on either
 * side, as glTF requires: three.js divides it out and multiplies it back.
 *
 * Normals: three.js does not skin normals on the CPU, so this harness
 * computes `n' = normalize(sum_k w_k * (bone.matrixWorld * boneInverse).rot
 * * n)` from three's matrices and normalized weights; Marrow's collapsed
 * palette with `RENORMALIZE` computes the same.
 *
 * ## Input preparation
 *
 * Before GLTFLoader sees a file, textures are removed (GLTFLoader cannot
 * decode images outside a browser), and node rotations and `LINEAR`/`STEP`
 * rotation keys are normalized, because Marrow's importer normalizes them
 * and three.js uses them as they are (SimpleSkin is off by 2e-4).
 *
 * @module
 */

import * as THREE from "three";
import { type GLTF, GLTFLoader } from "three/examples/jsm/loaders/GLTFLoader.js";
import { Document, Logger, WebIO } from "@gltf-transform/core";
import { localToModel, multiplyMatrices, quatToMat, skinVertices } from "../simd/reference.ts";
import { MATRIX_FLOATS, SkinFlags } from "../simd/layout.ts";
import type { SkinDefinition } from "../animation/definitions.ts";
import type { GltfImport, GltfSkeleton } from "../gltf/import.ts";
import { sampleClip } from "../animation/clip.ts";
import {
  findModel,
  FIXTURE_DIR,
  missingTestOnlyModels,
  SHARED_DIR,
  TEST_ONLY_MODELS,
} from "./_assets.ts";

/**
 * Names of every test model: the fixtures' `.glb`/`.gltf` files and the
 * test-only models (whether or not `../shared/assets/gltf/` has them; a
 * test on a missing one is registered with {@linkcode testOnModels}, which
 * skips it). Throws when the fixtures are missing: these tests must not
 * pass by skipping.
 */
export function listAssets(): string[] {
  let names: string[];
  try {
    names = [...Deno.readDirSync(FIXTURE_DIR)]
      .filter((e) => e.isFile && /\.(glb|gltf)$/i.test(e.name))
      .map((e) => e.name);
  } catch (e) {
    throw new Error(`glTF test fixtures not found at ${FIXTURE_DIR.pathname}: ${e}`);
  }
  if (names.length === 0) {
    throw new Error(`no .glb/.gltf files in ${FIXTURE_DIR.pathname}`);
  }
  return [...new Set([...names, ...TEST_ONLY_MODELS])].sort();
}

/**
 * `Deno.test(name, fn)`, skipped (and counted as skipped) when one of
 * `models` is a test-only model that `../shared/assets/gltf/` does not
 * have; `tests/_run.ts` prints one line saying so. Where the shared folder
 * has them, the test always runs.
 */
export function testOnModels(
  models: readonly string[],
  name: string,
  fn: () => void | Promise<void>,
): void {
  const missing = missingTestOnlyModels();
  Deno.test({ name, ignore: models.some((m) => missing.includes(m)), fn });
}

/** URL of a test model (or `stats.json`); throws (naming it) when it does not exist. */
export function assetUrl(name: string): URL {
  const url = findModel(name);
  if (!url) {
    throw new Error(
      `glTF test asset missing: ${name} (looked in ${FIXTURE_DIR.pathname}` +
        (TEST_ONLY_MODELS.includes(name) ? ` and ${SHARED_DIR.pathname})` : ")"),
    );
  }
  return url;
}

/** Reads a test asset's bytes; throws (naming it) when it is missing. */
export function readAsset(name: string): Uint8Array {
  return Deno.readFileSync(assetUrl(name));
}

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

/** One skinned primitive as three.js loaded it. */
export interface ThreePrimitive {
  /** glTF node index. */
  readonly node: number;
  /** glTF mesh index. */
  readonly mesh: number;
  /** Primitive index in the mesh. */
  readonly primitive: number;
  /** The three.js object. */
  readonly object: THREE.SkinnedMesh;
}

/** A glTF file loaded by three.js, ready to be posed. */
export interface ThreeModel {
  /** GLTFLoader's result. */
  readonly gltf: GLTF;
  /** Every skinned primitive of the scene. */
  readonly primitives: readonly ThreePrimitive[];
  /** Drives `gltf.animations`. */
  readonly mixer: THREE.AnimationMixer;
  /** Rest transforms of every object, restored before each pose. */
  readonly rest: ReadonlyMap<
    THREE.Object3D,
    [THREE.Vector3, THREE.Quaternion, THREE.Vector3]
  >;
}

/**
 * Loads glTF bytes into three.js after removing textures and normalizing
 * rotations (see the module doc).
 */
export async function loadThree(bytes: Uint8Array): Promise<ThreeModel> {
  const document = await readDocument(bytes);
  const root = document.getRoot();
  for (const texture of root.listTextures()) texture.dispose();
  for (const node of root.listNodes()) {
    const q = node.getRotation();
    const len = Math.hypot(q[0], q[1], q[2], q[3]);
    node.setRotation([q[0] / len, q[1] / len, q[2] / len, q[3] / len]);
  }
  const normalized = new Set<unknown>();
  for (const animation of root.listAnimations()) {
    for (const channel of animation.listChannels()) {
      const sampler = channel.getSampler();
      const output = sampler?.getOutput();
      if (
        channel.getTargetPath() !== "rotation" || !sampler || !output ||
        sampler.getInterpolation() === "CUBICSPLINE" || normalized.has(output)
      ) continue;
      normalized.add(output);
      const e: number[] = [];
      for (let i = 0; i < output.getCount(); i++) {
        output.getElement(i, e);
        const len = Math.hypot(e[0], e[1], e[2], e[3]);
        output.setElement(i, e.map((c) => c / len));
      }
    }
  }
  const glb = await writeGlb(document);
  const gltf = await new GLTFLoader().parseAsync(
    glb.buffer.slice(glb.byteOffset, glb.byteOffset + glb.byteLength),
    "",
  );
  const associations = gltf.parser.associations;
  const primitives: ThreePrimitive[] = [];
  const rest = new Map<
    THREE.Object3D,
    [THREE.Vector3, THREE.Quaternion, THREE.Vector3]
  >();
  gltf.scene.traverse((object: THREE.Object3D) => {
    rest.set(object, [
      object.position.clone(),
      object.quaternion.clone(),
      object.scale.clone(),
    ]);
    if (!(object as THREE.SkinnedMesh).isSkinnedMesh) return;
    const mesh = object as THREE.SkinnedMesh;
    const own = associations.get(mesh);
    const node = own?.nodes ?? associations.get(mesh.parent!)?.nodes;
    if (
      own?.meshes === undefined || own.primitives === undefined ||
      node === undefined
    ) {
      throw new Error(`no glTF association for skinned mesh "${mesh.name}"`);
    }
    if (
      !mesh.bindMatrix.equals(new THREE.Matrix4()) ||
      mesh.bindMode !== THREE.AttachedBindMode
    ) {
      throw new Error(
        `skinned mesh "${mesh.name}" is not bound as GLTFLoader binds (an ` +
          `identity bindMatrix, attached mode); the harness relies on it`,
      );
    }
    primitives.push({
      node,
      mesh: own.meshes,
      primitive: own.primitives,
      object: mesh,
    });
  });
  return {
    gltf,
    primitives,
    mixer: new THREE.AnimationMixer(gltf.scene),
    rest,
  };
}

/**
 * Poses a three.js model: rest pose, then animation `animation` (index
 * into `gltf.animations`, or null for the rest pose) at `time` seconds
 * played once and clamped at its end, then world matrices and skeletons
 * are updated.
 */
export function poseThree(
  model: ThreeModel,
  animation: number | null,
  time: number,
): void {
  const { mixer, gltf } = model;
  mixer.stopAllAction();
  for (const [object, [p, q, s]] of model.rest) {
    object.position.copy(p);
    object.quaternion.copy(q);
    object.scale.copy(s);
  }
  if (animation !== null) {
    const action = mixer.clipAction(gltf.animations[animation]);
    action.setLoop(THREE.LoopOnce, 1);
    action.clampWhenFinished = true;
    action.reset().play();
    mixer.setTime(time);
  }
  gltf.scene.updateMatrixWorld(true);
  for (const { object } of model.primitives) object.skeleton.update();
}

/** Skinned vertices of one primitive: xyz per vertex (3 floats). */
export interface SkinnedVertices {
  /** Positions, 3 numbers per vertex. */
  readonly positions: Float64Array;
  /** Unit normals, 3 numbers per vertex, if the primitive has normals. */
  readonly normals?: Float64Array;
  /** Unit tangents (xyz), 3 numbers per vertex, if it has tangents. */
  readonly tangents?: Float64Array;
}

/**
 * Reads every `stride`-th skinned vertex of a posed three.js primitive
 * (see the module doc for the space), in vertex order.
 */
export function threeSkinned(
  primitive: ThreePrimitive,
  stride = 1,
): SkinnedVertices {
  const mesh = primitive.object;
  const geometry = mesh.geometry;
  const position = geometry.getAttribute("position");
  const normal = geometry.getAttribute("normal");
  const tangent = geometry.getAttribute("tangent");
  const skinIndex = geometry.getAttribute("skinIndex");
  const skinWeight = geometry.getAttribute("skinWeight");
  const count = Math.ceil(position.count / stride);
  const positions = new Float64Array(count * 3);
  const normals = normal ? new Float64Array(count * 3) : undefined;
  const tangents = tangent ? new Float64Array(count * 3) : undefined;
  const { bones, boneInverses } = mesh.skeleton;
  // Per bone, in float64: bone.matrixWorld * boneInverse.
  const palette = bones.map((bone: THREE.Bone, i: number) =>
    new THREE.Matrix4().multiplyMatrices(bone.matrixWorld, boneInverses[i])
      .elements
  );
  const p = new THREE.Vector3();
  for (let i = 0, v = 0; v < position.count; v += stride, i++) {
    p.fromBufferAttribute(position, v);
    mesh.applyBoneTransform(v, p).applyMatrix4(mesh.matrixWorld);
    positions[i * 3] = p.x, positions[i * 3 + 1] = p.y;
    positions[i * 3 + 2] = p.z;
    if (normals) {
      const nx = normal.getX(v), ny = normal.getY(v), nz = normal.getZ(v);
      skinDirection(nx, ny, nz, v, normals, i);
    }
    if (tangents) {
      const tx = tangent.getX(v), ty = tangent.getY(v), tz = tangent.getZ(v);
      skinDirection(tx, ty, tz, v, tangents, i);
    }
  }
  return {
    positions,
    ...(normals ? { normals } : {}),
    ...(tangents ? { tangents } : {}),
  };

  function skinDirection(
    nx: number,
    ny: number,
    nz: number,
    v: number,
    out: Float64Array,
    i: number,
  ): void {
    let x = 0, y = 0, z = 0;
    for (let k = 0; k < 4; k++) {
      const w = skinWeight.getComponent(v, k);
      if (w === 0) continue;
      const e = palette[skinIndex.getComponent(v, k)];
      // Column-major 4x4: the 3x3 part is e[0..2], e[4..6], e[8..10].
      x += w * (e[0] * nx + e[4] * ny + e[8] * nz);
      y += w * (e[1] * nx + e[5] * ny + e[9] * nz);
      z += w * (e[2] * nx + e[6] * ny + e[10] * nz);
    }
    const len = Math.hypot(x, y, z);
    out[i * 3] = x / len, out[i * 3 + 1] = y / len, out[i * 3 + 2] = z / len;
  }
}

/**
 * Divides each vertex's weights by their sum, as three.js
 * `SkinnedMesh.normalizeSkinWeights` does at load time (the importer leaves
 * weights as the file has them).
 */
export function normalizeWeights(skin: SkinDefinition): Float32Array {
  const out = new Float32Array(skin.weights.length);
  let k = 0;
  for (let v = 0; v < skin.vertexCount; v++) {
    const n = skin.influenceCounts[v];
    let sum = 0;
    for (let i = 0; i < n; i++) sum += skin.weights[k + i];
    for (let i = 0; i < n; i++) out[k + i] = skin.weights[k + i] / sum;
    k += n;
  }
  return out;
}

/** Parts of {@linkcode skinVertices}: runs of equal influence counts. */
export function influenceParts(counts: Uint8Array): Uint32Array {
  const parts: number[] = [];
  for (let v = 0; v < counts.length; v++) {
    const n = parts.length;
    if (n > 0 && parts[n - 2] === counts[v]) parts[n - 1]++;
    else parts.push(counts[v], 1);
  }
  return Uint32Array.from(parts);
}

/**
 * Skinning matrices of a skeleton posed by a clip (or the rest pose):
 * sample over the rest pose, `quatToMat`, `localToModel`, then
 * `model * inverseBind`. Returns `{ model, palette }`.
 */
export function marrowPalette(
  skeleton: GltfSkeleton,
  clip: number | null,
  time: number,
): { model: Float32Array; palette: Float32Array } {
  const def = skeleton.skeleton;
  const n = def.parents.length;
  const pose = def.restPose.slice();
  if (clip !== null) sampleClip(skeleton.clips[clip], time, pose);
  const local = new Float32Array(n * MATRIX_FLOATS);
  const model = new Float32Array(n * MATRIX_FLOATS);
  const palette = new Float32Array(n * MATRIX_FLOATS);
  quatToMat(pose, local, n);
  localToModel(local, model, def.parents, 0, n - 1);
  multiplyMatrices(model, def.inverseBind, palette, n);
  return { model, palette };
}

/**
 * Skins one primitive with Marrow's scalar `skinVertices` (weights
 * normalized first, normals renormalized), returning positions and, when
 * present, normals and tangents in vertex-stream layout (4 floats).
 */
export function marrowSkin(
  skin: SkinDefinition,
  palette: Float32Array,
): {
  positions: Float32Array;
  normals?: Float32Array;
  tangents?: Float32Array;
} {
  const n = skin.vertexCount * 4;
  const positions = new Float32Array(n);
  const normals = skin.normals ? new Float32Array(n) : undefined;
  const tangents = skin.tangents ? new Float32Array(n) : undefined;
  const flags = (normals ? SkinFlags.NORMALS : 0) |
    (tangents ? SkinFlags.TANGENTS : 0) | SkinFlags.RENORMALIZE;
  skinVertices(
    palette,
    influenceParts(skin.influenceCounts),
    skin.joints,
    normalizeWeights(skin),
    skin.positions,
    skin.normals ?? new Float32Array(0),
    skin.tangents ?? new Float32Array(0),
    positions,
    normals ?? new Float32Array(0),
    tangents ?? new Float32Array(0),
    flags,
    255,
  );
  return {
    positions,
    ...(normals ? { normals } : {}),
    ...(tangents ? { tangents } : {}),
  };
}

function directionError(
  ours: Float32Array | undefined,
  theirs: Float64Array | undefined,
  v: number,
  i: number,
  max: number,
  what: string,
): number {
  if (!ours && !theirs) return max;
  if (!ours || !theirs) throw new Error(`${what}: present on one side only`);
  for (let c = 0; c < 3; c++) {
    const d = Math.abs(ours[v * 4 + c] - theirs[i * 3 + c]);
    if (!(d <= max)) max = d;
  }
  return max;
}

/** Largest differences of one comparison, and the scale they relate to. */
export interface Comparison {
  /** Largest position distance. */
  maxPosition: number;
  /** Largest normal distance (unit vectors). */
  maxNormal: number;
  /** Largest tangent (xyz) distance (unit vectors). */
  maxTangent: number;
  /** Diagonal of the bounding box of three.js' skinned positions. */
  bboxDiagonal: number;
  /** Vertices compared. */
  vertices: number;
  /** Primitives compared. */
  primitives: number;
  /** Where the largest position difference was. */
  worst: string;
}

/**
 * Compares Marrow and three.js skinned vertices of every skinned primitive
 * of a model at one pose (three.js must be posed already). Each skinned
 * primitive must exist on both sides. Every `stride`-th vertex is compared.
 */
export function compareModel(
  imported: GltfImport,
  three: ThreeModel,
  clip: number | null,
  time: number,
  stride = 1,
): Comparison {
  const result: Comparison = {
    maxPosition: 0,
    maxNormal: 0,
    maxTangent: 0,
    bboxDiagonal: 0,
    vertices: 0,
    primitives: 0,
    worst: "",
  };
  const threeByKey = new Map(
    three.primitives.map((p) => [`${p.node}/${p.mesh}/${p.primitive}`, p]),
  );
  const min = [Infinity, Infinity, Infinity];
  const max = [-Infinity, -Infinity, -Infinity];
  let expected = 0;
  for (const skeleton of imported.skeletons) {
    const { palette } = marrowPalette(skeleton, clip, time);
    for (const prim of skeleton.primitives) {
      expected++;
      const key = `${prim.node}/${prim.mesh}/${prim.primitive}`;
      const ref = threeByKey.get(key);
      if (!ref) throw new Error(`three.js has no skinned primitive ${key}`);
      const ours = marrowSkin(prim.skin, palette);
      const theirs = threeSkinned(ref, stride);
      for (let i = 0, v = 0; v < prim.skin.vertexCount; v += stride, i++) {
        let d = 0;
        for (let c = 0; c < 3; c++) {
          const t = theirs.positions[i * 3 + c];
          d = Math.max(d, Math.abs(ours.positions[v * 4 + c] - t));
          if (t < min[c]) min[c] = t;
          if (t > max[c]) max[c] = t;
        }
        if (!(d <= result.maxPosition)) {
          result.maxPosition = d;
          result.worst = `skin ${skeleton.skin} node ${key} vertex ${v}`;
        }
        result.maxNormal = directionError(
          ours.normals,
          theirs.normals,
          v,
          i,
          result.maxNormal,
          `normals of ${key}`,
        );
        result.maxTangent = directionError(
          ours.tangents,
          theirs.tangents,
          v,
          i,
          result.maxTangent,
          `tangents of ${key}`,
        );
        if (ours.tangents && prim.skin.tangents) {
          if (ours.tangents[v * 4 + 3] !== prim.skin.tangents[v * 4 + 3]) {
            throw new Error(`tangent handedness changed: ${key} vertex ${v}`);
          }
        }
        result.vertices++;
      }
      result.primitives++;
    }
  }
  if (expected !== three.primitives.length) {
    throw new Error(
      `Marrow imported ${expected} skinned primitives, three.js has ` +
        three.primitives.length,
    );
  }
  result.bboxDiagonal = Math.hypot(
    max[0] - min[0],
    max[1] - min[1],
    max[2] - min[2],
  );
  return result;
}

/**
 * Compares Marrow's sampled joint poses (translation, rotation up to sign,
 * scale) with the node transforms three.js' mixer produced, for every
 * joint of every skeleton, ancestors included. Returns the largest
 * translation difference relative to `lengthScale`, and the largest
 * rotation and scale differences.
 */
export function comparePoses(
  imported: GltfImport,
  three: ThreeModel,
  clip: number | null,
  time: number,
  lengthScale: number,
): { translation: number; rotation: number; scale: number } {
  const objects = new Map<number, THREE.Object3D>();
  for (const [object, mapping] of three.gltf.parser.associations) {
    if (
      object instanceof THREE.Object3D && mapping.nodes !== undefined &&
      !objects.has(mapping.nodes)
    ) objects.set(mapping.nodes, object);
  }
  const out = { translation: 0, rotation: 0, scale: 0 };
  for (const skeleton of imported.skeletons) {
    const def = skeleton.skeleton;
    const pose = def.restPose.slice();
    if (clip !== null) sampleClip(skeleton.clips[clip], time, pose);
    for (let j = 0; j < def.parents.length; j++) {
      const object = objects.get(skeleton.nodes[j]);
      if (!object) throw new Error(`three.js has no node ${skeleton.nodes[j]}`);
      const g = (j >> 2) * 40 + (j & 3);
      const t = object.position, q = object.quaternion, s = object.scale;
      out.translation = Math.max(
        out.translation,
        Math.abs(pose[g] - t.x) / lengthScale,
        Math.abs(pose[g + 4] - t.y) / lengthScale,
        Math.abs(pose[g + 8] - t.z) / lengthScale,
      );
      const dot = pose[g + 12] * q.x + pose[g + 16] * q.y +
        pose[g + 20] * q.z + pose[g + 24] * q.w;
      const sign = dot < 0 ? -1 : 1;
      out.rotation = Math.max(
        out.rotation,
        Math.abs(pose[g + 12] - sign * q.x),
        Math.abs(pose[g + 16] - sign * q.y),
        Math.abs(pose[g + 20] - sign * q.z),
        Math.abs(pose[g + 24] - sign * q.w),
      );
      out.scale = Math.max(
        out.scale,
        Math.abs(pose[g + 28] - s.x),
        Math.abs(pose[g + 32] - s.y),
        Math.abs(pose[g + 36] - s.z),
      );
    }
  }
  return out;
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
