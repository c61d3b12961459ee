/**
 * Test harness: three.js (GLTFLoader, AnimationMixer, SkinnedMesh) as the
 * independent reference for imported glTF skinning, and access to the test
 * models (`tests/_assets.ts` says where they are). The same pipeline run
 * through Marrow's scalar kernels, and the comparison of both, are in
 * `tests/_gltf_compare.ts`; synthetic rigs and reading and writing glTF
 * with gltf-transform in `tests/_gltf_rig.ts`.
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
import {
  findModel,
  FIXTURE_DIR,
  missingTestOnlyModels,
  SHARED_DIR,
  TEST_ONLY_MODELS,
} from "./_assets.ts";
import { readDocument, writeGlb } from "./_gltf_rig.ts";
import { rigidPrimitives, threeRigid, type ThreeRigidPrimitive } from "./_three_rigid.ts";

export type { ThreeRigidPrimitive };

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
  /** Every rigidly attached primitive of the scene. */
  readonly rigid: readonly ThreeRigidPrimitive[];
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
  const meshes: THREE.Mesh[] = [];
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
    if (!(object as THREE.SkinnedMesh).isSkinnedMesh) {
      if ((object as THREE.Mesh).isMesh) meshes.push(object as THREE.Mesh);
      return;
    }
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
    rigid: rigidPrimitives(gltf, primitives, meshes),
    mixer: new THREE.AnimationMixer(gltf.scene),
    rest,
  };
}

/** Skinned and rigidly attached primitives: every mesh Marrow imports. */
export function everyPrimitive(three: ThreeModel): (ThreePrimitive | ThreeRigidPrimitive)[] {
  return [...three.primitives, ...three.rigid];
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
  primitive: ThreePrimitive | ThreeRigidPrimitive,
  stride = 1,
): SkinnedVertices {
  if (!(primitive.object as THREE.SkinnedMesh).isSkinnedMesh) {
    return threeRigid(primitive.object, stride);
  }
  const mesh = primitive.object as THREE.SkinnedMesh;
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

/** Diagonal of the bounding box of every imported vertex as three.js has it posed. */
export function boundingDiagonal(three: ThreeModel): number {
  const min = [Infinity, Infinity, Infinity], max = [-Infinity, -Infinity, -Infinity];
  for (const primitive of everyPrimitive(three)) {
    const { positions } = threeSkinned(primitive, 7);
    for (let i = 0; i < positions.length; i++) {
      min[i % 3] = Math.min(min[i % 3], positions[i]);
      max[i % 3] = Math.max(max[i % 3], positions[i]);
    }
  }
  return Math.hypot(max[0] - min[0], max[1] - min[1], max[2] - min[2]);
}

/** The three.js object of each glTF node index. */
export function nodeObjects(three: ThreeModel): Map<number, THREE.Object3D> {
  const objects = new Map<number, THREE.Object3D>();
  for (const [object, mapping] of three.gltf.parser.associations) {
    if (
      object instanceof THREE.Object3D && mapping.nodes !== undefined &&
      !objects.has(mapping.nodes)
    ) objects.set(mapping.nodes, object);
  }
  return objects;
}
