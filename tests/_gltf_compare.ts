/**
 * Test harness: an imported glTF posed and skinned by Marrow's scalar
 * kernels (`simd/scalar/mod.ts`), compared with three.js posed by
 * `tests/_three_gltf.ts`, in the glTF scene space that module's doc
 * describes.
 *
 * @module
 */

import { localToModel, multiplyMatrices, quatToMat, skinVertices } from "../simd/scalar/mod.ts";
import { MATRIX_FLOATS, SkinFlags } from "../simd/memory/layout.ts";
import type { SkinDefinition } from "../animation/definitions.ts";
import type { GltfImport, GltfSkeleton } from "../gltf/import.ts";
import { sampleClip } from "../animation/clip.ts";
import { everyPrimitive, nodeObjects, type ThreeModel, threeSkinned } from "./_three_gltf.ts";

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

/** The bind twins of an imported skeleton: joints that repeat their parent's node. */
export function bindTwins(s: GltfSkeleton): number[] {
  const { parents } = s.skeleton;
  return [...parents.keys()].filter((j) => parents[j] >= 0 && s.nodes[parents[j]] === s.nodes[j]);
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
    everyPrimitive(three).map((p) => [`${p.node}/${p.mesh}/${p.primitive}`, p]),
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
      if (!ref) throw new Error(`three.js has no such primitive ${key}`);
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
          result.worst = `skin ${prim.gltfSkin} node ${key} vertex ${v}`;
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
  if (expected !== threeByKey.size) {
    throw new Error(`Marrow imported ${expected} primitives, three.js has ${threeByKey.size}`);
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
 * joint of every skeleton, ancestors included (bind twins, which stand
 * for no node of their own, are left out). Returns the largest
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
  const objects = nodeObjects(three);
  const out = { translation: 0, rotation: 0, scale: 0 };
  for (const skeleton of imported.skeletons) {
    const def = skeleton.skeleton;
    const pose = def.restPose.slice();
    if (clip !== null) sampleClip(skeleton.clips[clip], time, pose);
    const twins = new Set(bindTwins(skeleton));
    for (let j = 0; j < def.parents.length; j++) {
      if (twins.has(j)) continue;
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
