/**
 * The scalar build: every kernel of the core as its TypeScript reference
 * (`simd/scalar/mod*.ts`) over views of the core's memory, the same layout
 * and job rows as the WebAssembly builds. Views are kept per offset and
 * length (`_views.ts`) and job rows read in place, so a steady scalar frame
 * makes no view, array or closure.
 *
 * @module
 */

import * as abi from "../abi.ts";
import type { CoreMemory } from "../memory/internal.ts";
import * as ref from "./mod.ts";
import * as refDq from "./dual_quaternions.ts";
import { blendLayersAtThreshold, blendThreshold } from "./layers.ts";
import { blendPosesByWeight, poseWeight } from "./_blend_poses.ts";
import { MemoryViews } from "../memory/internal.ts";
import { solveIKJobs } from "./ik.ts";
import * as refSample from "./sample.ts";
import { addMorphTarget } from "./morph.ts";
import { MATRIX_FLOATS, POSE_GROUP_FLOATS, VERTEX_FLOATS } from "../memory/layout.ts";

/** The result of {@linkcode partSizes}, rewritten by every call (no object a call). */
const sizes = { vertices: 0, influences: 0 };

/** Vertices and influences of a skinning part table. */
function partSizes(parts: Uint32Array): { readonly vertices: number; readonly influences: number } {
  let vertices = 0, influences = 0;
  for (let p = 0; p < parts.length; p += 2) {
    vertices += parts[p + 1];
    influences += parts[p] * parts[p + 1];
  }
  sizes.vertices = vertices, sizes.influences = influences;
  return sizes;
}

/** `fold` with each byte of `bytes` xored in at its place in a 32-bit word. */
function foldWords(bytes: Uint8Array, fold: number): number {
  for (let i = 0; i < bytes.length; i++) fold ^= bytes[i] << ((i & 3) * 8);
  return fold;
}

/** The kernels as scalar references over views of `memory`. */
export function scalarKernels(memory: CoreMemory): abi.CoreKernels {
  // Views made once per offset and length: a steady scalar frame allocates nothing.
  const cached = new MemoryViews(memory);
  const f32 = (ptr: number, floats: number) => cached.f32(ptr, floats);
  const u16 = (ptr: number, n: number) => cached.u16(ptr, n);
  const i16 = (ptr: number, n: number) => cached.i16(ptr, n);
  const u8 = (ptr: number, n: number) => cached.u8(ptr, n);
  const u32 = (ptr: number, n: number) => cached.u32(ptr, n);
  // Reused by every blendLayersBatch row of as many layers: their views and
  // weights (one array per layer count, its length never changed, which
  // would drop or regrow its storage).
  const layerInputsOf: {
    pose: Float32Array;
    mask: Float32Array;
    weight: number;
    reference?: Float32Array;
  }[][] = [];
  const noFloats = new Float32Array(0);
  // The morph entry being applied, rewritten per entry (no object an entry).
  const morphEntry: { deltas: Float32Array; indices?: Uint32Array; first: number; count: number } =
    { deltas: noFloats, indices: undefined, first: 0, count: 0 };
  const poseFloats = (count: number) => Math.ceil(count / 4) * POSE_GROUP_FLOATS;
  const job = (jobs: number, index: number) => u32(jobs + index * abi.JOB_BYTES, abi.JOB_WORDS);
  /** Blends poses at byte offsets at the weight in `poseWeight` (no double argument). */
  const blendRows = (a: number, b: number, out: number, jointCount: number) => {
    const n = poseFloats(jointCount);
    blendPosesByWeight(f32(a, n), f32(b, n), f32(out, n), jointCount);
  };

  /** The scalar skinning kernel `skin` (reference signature) over core memory. */
  const skinWith = (skin: typeof ref.skinVertices): abi.SkinningKernel =>
  (
    palette,
    parts,
    partCount,
    joints,
    weights,
    positions,
    normals,
    tangents,
    outPositions,
    outNormals,
    outTangents,
    flags,
    maxInfluences,
    bounds,
  ) => {
    const partView = u32(parts, partCount * 2);
    const { vertices, influences } = partSizes(partView);
    const floats = vertices * VERTEX_FLOATS;
    skin(
      cached.f32From(palette),
      partView,
      u16(joints, influences),
      f32(weights, influences),
      f32(positions, positions ? floats : 0),
      f32(normals, normals ? floats : 0),
      f32(tangents, tangents ? floats : 0),
      f32(outPositions, outPositions ? floats : 0),
      f32(outNormals, outNormals ? floats : 0),
      f32(outTangents, outTangents ? floats : 0),
      flags,
      maxInfluences,
      bounds ? f32(bounds, 8) : undefined,
    );
  };
  /** The batch form of skinning kernel `name`: one job row per call. */
  const batchOf =
    (name: "skinVertices" | "skinDualQuaternions") =>
    (jobs: number, jobCount: number, maxInfluences: number, bounds: number) => {
      for (let i = 0; i < jobCount; i++) {
        const row = job(jobs, i);
        kernels[name](
          row[abi.SKIN_PALETTE],
          row[abi.SKIN_PARTS],
          row[abi.SKIN_PART_COUNT],
          row[abi.SKIN_JOINTS],
          row[abi.SKIN_WEIGHTS],
          row[abi.SKIN_POSITIONS],
          row[abi.SKIN_NORMALS_IN],
          row[abi.SKIN_TANGENTS_IN],
          row[abi.SKIN_OUT_POSITIONS],
          row[abi.SKIN_OUT_NORMALS],
          row[abi.SKIN_OUT_TANGENTS],
          row[abi.SKIN_FLAGS],
          maxInfluences,
          bounds ? bounds + i * abi.SKIN_BOUNDS_BYTES : 0,
          row[abi.SKIN_COLUMNS],
          row[abi.SKIN_JOINT_COUNT],
        );
      }
    };
  const kernels: abi.CoreKernels = {
    firstNonFinite(ptr, count) {
      return kernels.firstBeyond(ptr, count, Infinity);
    },
    firstBeyond(ptr, count, limit) {
      const values = f32(ptr, count);
      const bound = Math.fround(limit);
      for (let i = 0; i < count; i++) {
        if (!(Math.abs(values[i]) < bound)) return i;
      }
      return -1;
    },
    firstBeyondBatch(jobs, jobCount, limit) {
      for (let i = 0; i < jobCount; i++) {
        const row = job(jobs, i), ptr = row[abi.SCAN_PTR], count = row[abi.SCAN_COUNT];
        if (kernels.firstBeyond(ptr, count, limit) >= 0) return i;
      }
      return -1;
    },
    jobBytes() {
      return abi.JOB_BYTES;
    },
    quatToMat(pose, matrices, count) {
      ref.quatToMat(f32(pose, poseFloats(count)), f32(matrices, count * MATRIX_FLOATS), count);
    },
    quatToMatBatch(jobs, jobCount) {
      for (let i = 0; i < jobCount; i++) {
        const row = job(jobs, i);
        const pose = row[abi.QUAT_TO_MAT_POSE], matrices = row[abi.QUAT_TO_MAT_MATRICES];
        const count = row[abi.CONVERT_COUNT];
        kernels.quatToMat(pose, matrices, count);
      }
    },
    matToQuat(matrices, pose, count) {
      ref.matToQuat(f32(matrices, count * MATRIX_FLOATS), f32(pose, poseFloats(count)), count);
    },
    matToQuatBatch(jobs, jobCount) {
      for (let i = 0; i < jobCount; i++) {
        const row = job(jobs, i);
        const matrices = row[abi.MAT_TO_QUAT_MATRICES], pose = row[abi.MAT_TO_QUAT_POSE];
        const count = row[abi.CONVERT_COUNT];
        kernels.matToQuat(matrices, pose, count);
      }
    },
    localToModel(local, model, parents, first, last) {
      const n = last + 1;
      ref.localToModel(
        f32(local, n * MATRIX_FLOATS),
        f32(model, n * MATRIX_FLOATS),
        i16(parents, n),
        first,
        last,
      );
    },
    localToModelBatch(jobs, jobCount) {
      for (let i = 0; i < jobCount; i++) {
        const row = job(jobs, i), local = row[abi.HIERARCHY_IN], model = row[abi.HIERARCHY_OUT];
        const parents = row[abi.HIERARCHY_PARENTS], count = row[abi.HIERARCHY_COUNT];
        kernels.localToModel(local, model, parents, 0, count - 1);
      }
    },
    modelToLocal(model, local, parents, first, last) {
      const n = last + 1;
      ref.modelToLocal(
        f32(model, n * MATRIX_FLOATS),
        f32(local, n * MATRIX_FLOATS),
        i16(parents, n),
        first,
        last,
      );
    },
    modelToLocalBatch(jobs, jobCount) {
      for (let i = 0; i < jobCount; i++) {
        const row = job(jobs, i), model = row[abi.HIERARCHY_IN], local = row[abi.HIERARCHY_OUT];
        const parents = row[abi.HIERARCHY_PARENTS], count = row[abi.HIERARCHY_COUNT];
        kernels.modelToLocal(model, local, parents, 0, count - 1);
      }
    },
    multiplyMatrices(a, b, out, count) {
      const n = count * MATRIX_FLOATS;
      ref.multiplyMatrices(f32(a, n), f32(b, n), f32(out, n), count);
    },
    multiplyMatricesBatch(jobs, jobCount) {
      for (let i = 0; i < jobCount; i++) {
        const row = job(jobs, i), a = row[abi.MULTIPLY_A], b = row[abi.MULTIPLY_B];
        const out = row[abi.MULTIPLY_OUT], count = row[abi.MULTIPLY_COUNT];
        kernels.multiplyMatrices(a, b, out, count);
      }
    },
    multiplyMatricesCheckedBatch(jobs, jobCount, limit) {
      let first = -1;
      for (let i = 0; i < jobCount; i++) {
        const row = job(jobs, i),
          a = row[abi.MULTIPLY_A],
          b = row[abi.MULTIPLY_B],
          out = row[abi.MULTIPLY_OUT],
          count = row[abi.MULTIPLY_COUNT],
          keep = row[abi.MULTIPLY_KEEP];
        kernels.multiplyMatrices(a, b, out, count);
        if (kernels.firstBeyond(out, count * MATRIX_FLOATS, limit) >= 0) {
          if (first < 0) first = i;
        } else if (keep !== 0) {
          const { f32 } = memory.views();
          f32.copyWithin(keep >> 2, a >> 2, (a >> 2) + count * MATRIX_FLOATS);
        }
      }
      return first;
    },
    blendPoses(a, b, out, jointCount, weight) {
      poseWeight[0] = weight;
      blendRows(a, b, out, jointCount);
    },
    blendPosesBatch(jobs, jobCount) {
      for (let i = 0; i < jobCount; i++) {
        const row = job(jobs, i),
          a = row[abi.BLEND_A],
          b = row[abi.BLEND_B],
          out = row[abi.BLEND_OUT];
        const jointCount = row[abi.BLEND_JOINT_COUNT];
        poseWeight[0] = memory.views().f32[((jobs + i * abi.JOB_BYTES) >> 2) + abi.BLEND_WEIGHT];
        blendRows(a, b, out, jointCount);
      }
    },
    blendLayersBatch(sampleJobs, sampleCount, layerJobs, layerCount) {
      kernels.blendPosesBatch(sampleJobs, sampleCount);
      for (let i = 0; i < layerCount; i++) {
        const at = layerJobs + i * abi.JOB_BYTES;
        const row = job(layerJobs, i),
          out = row[abi.LAYERS_OUT],
          jointCount = row[abi.LAYERS_JOINT_COUNT],
          rest = row[abi.LAYERS_REST],
          layers = row[abi.LAYERS_ENTRIES],
          blendCount = row[abi.LAYERS_BLEND_COUNT],
          topCount = row[abi.LAYERS_TOP_COUNT];
        const n = poseFloats(jointCount), lanes = Math.ceil(jointCount / 4) * 4;
        const inputs = layerInputsOf[blendCount + topCount] ??= Array.from(
          { length: blendCount + topCount },
          () => ({ pose: noFloats, mask: noFloats, weight: 0, reference: undefined }),
        );
        for (let k = 0; k < blendCount + topCount; k++) {
          const entry = u32(layers + k * abi.LAYER_ENTRY_BYTES, 4);
          const reference = entry[abi.LAYER_ENTRY_REFERENCE];
          const input = inputs[k];
          input.pose = f32(entry[abi.LAYER_ENTRY_POSE], n);
          input.mask = f32(entry[abi.LAYER_ENTRY_MASK], lanes * 3);
          input.weight = memory.views()
            .f32[((layers + k * abi.LAYER_ENTRY_BYTES) >> 2) + abi.LAYER_ENTRY_WEIGHT];
          input.reference = k >= blendCount && reference !== 0 ? f32(reference, n) : undefined;
        }
        blendThreshold[0] = memory.views().f32[(at >> 2) + abi.LAYERS_THRESHOLD];
        blendLayersAtThreshold(f32(out, n), jointCount, f32(rest, n), inputs, blendCount);
      }
    },
    sampleCompact(clip, cache, out, groupCount, time) {
      refSample.sampleCompact(memory.views(), clip, cache, out, groupCount, time);
    },
    sampleCompactBatch(jobs, jobCount) {
      for (let i = 0; i < jobCount; i++) {
        const row = job(jobs, i),
          clip = row[abi.SAMPLE_CLIP],
          cache = row[abi.SAMPLE_CACHE],
          out = row[abi.SAMPLE_OUT],
          groupCount = row[abi.SAMPLE_GROUP_COUNT],
          into = row[abi.SAMPLE_BLEND_INTO];
        const at = (jobs + i * abi.JOB_BYTES) >> 2;
        // The time through the sampler's scratch: a double argument would be a heap number a row.
        refSample.sampleTime[0] = memory.views().f32[at + abi.SAMPLE_TIME];
        refSample.sampleCompactAtTime(memory.views(), clip, cache, out, groupCount);
        if (into !== 0) {
          poseWeight[0] = memory.views().f32[at + abi.SAMPLE_WEIGHT];
          blendRows(into, out, into, groupCount * 4);
        }
      }
    },
    skinPositions(model, bases, joints, counts, out, vertexCount, maxInfluences) {
      const countView = u8(counts, vertexCount);
      let influences = 0;
      for (let v = 0; v < vertexCount; v++) influences += countView[v];
      ref.skinPositions(
        cached.f32From(model),
        f32(bases, influences * 4),
        u16(joints, influences),
        countView,
        f32(out, vertexCount * VERTEX_FLOATS),
        vertexCount,
        maxInfluences,
      );
    },
    skinPositionsBatch(jobs, jobCount, maxInfluences) {
      for (let i = 0; i < jobCount; i++) {
        const row = job(jobs, i),
          model = row[abi.POSITIONS_MODEL],
          bases = row[abi.POSITIONS_BASES],
          joints = row[abi.POSITIONS_JOINTS],
          counts = row[abi.POSITIONS_COUNTS],
          out = row[abi.POSITIONS_OUT],
          vertexCount = row[abi.POSITIONS_VERTEX_COUNT];
        kernels.skinPositions(model, bases, joints, counts, out, vertexCount, maxInfluences);
      }
    },
    skinVertices: skinWith(ref.skinVertices),
    skinDualQuaternions: skinWith(refDq.skinDualQuaternions),
    copyVertices(
      parts,
      partCount,
      joints,
      weights,
      positions,
      normals,
      tangents,
      outPositions,
      outNormals,
      outTangents,
      flags,
    ) {
      const { vertices, influences } = partSizes(u32(parts, partCount * 2));
      const fold = foldWords(u8(joints, influences * 2), foldWords(u8(weights, influences * 4), 0));
      const n = vertices * VERTEX_FLOATS;
      f32(outPositions, n).set(f32(positions, n));
      if (flags & abi.SKIN_NORMALS) f32(outNormals, n).set(f32(normals, n));
      if (flags & abi.SKIN_TANGENTS) f32(outTangents, n).set(f32(tangents, n));
      return fold;
    },
    solveIKBatch(jobs, jobCount) {
      const views = memory.views();
      solveIKJobs(views.f32, views.u32, views.i16, jobs, jobCount);
    },
    copyBlocksBatch(jobs, jobCount) {
      for (let i = 0; i < jobCount; i++) {
        const row = job(jobs, i), from = row[abi.COPY_FROM], to = row[abi.COPY_TO];
        memory.views().u8.copyWithin(to, from, from + row[abi.COPY_BYTES]);
      }
    },
    skinVerticesBatch: batchOf("skinVertices"),
    morphVertices(base, out, vertexCount, entries, entryCount) {
      const floats = vertexCount * VERTEX_FLOATS, into = f32(out, floats);
      if (out !== base) into.set(f32(base, floats));
      for (let e = 0; e < entryCount; e++) {
        const at = entries + e * abi.MORPH_ENTRY_BYTES, row = u32(at, 5);
        const count = row[abi.MORPH_COUNT], indices = row[abi.MORPH_INDICES];
        morphEntry.deltas = f32(row[abi.MORPH_DELTAS], count * VERTEX_FLOATS);
        morphEntry.indices = indices === 0 ? undefined : u32(indices, count);
        morphEntry.first = row[abi.MORPH_FIRST];
        morphEntry.count = count;
        addMorphTarget(into, vertexCount, morphEntry, f32(at, 5)[abi.MORPH_WEIGHT]);
      }
    },
    skinDualQuaternionsBatch: batchOf("skinDualQuaternions"),
  };
  return kernels;
}
