/**
 * Instantiates the core: the relaxed-SIMD build where the runtime validates
 * it, else the plain SIMD128 build, else the scalar TypeScript references
 * over the same memory layout. Synchronous, no I/O: the bytes are embedded.
 *
 * @module
 */

import {
  type CoreKernels,
  JOB_BYTES,
  JOB_WORDS,
  LAYER_ENTRY_BYTES,
  SKIN_NORMALS,
  SKIN_TANGENTS,
  type SkinningKernel,
} from "./_abi.ts";
import { CoreMemory, DEFAULT_MAX_BYTES, type MemoryLimits } from "./_memory.ts";
import { RELAXED_SIMD_WASM, SIMD_WASM } from "./_wasm.generated.ts";
import * as ref from "./reference.ts";
import * as refDq from "./reference_dq.ts";
import { blendLayers, type LayerInput } from "./reference_layers.ts";
import { solveIKJobs } from "./reference_ik.ts";
import * as refSample from "./reference_sample.ts";
import { MATRIX_FLOATS, POSE_GROUP_FLOATS, VERTEX_FLOATS } from "./layout.ts";

/** Which implementation of the kernels a core runs. */
export type CoreBuild = "relaxed-simd" | "simd" | "scalar";

/** The bytes of an embedded build. */
export function decode(base64: string): Uint8Array<ArrayBuffer> {
  const binary = atob(base64);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

const wasmBytes: Record<Exclude<CoreBuild, "scalar">, () => Uint8Array<ArrayBuffer>> = {
  "relaxed-simd": () => decode(RELAXED_SIMD_WASM),
  "simd": () => decode(SIMD_WASM),
};

const supported = new Map<CoreBuild, boolean>();

/** Whether this runtime can run `build`. */
export function isBuildSupported(build: CoreBuild): boolean {
  if (build === "scalar") return true;
  if (!(build in wasmBytes)) {
    throw new TypeError(
      `core build: expected "relaxed-simd", "simd" or "scalar", got ${JSON.stringify(build)}`,
    );
  }
  let ok = supported.get(build);
  if (ok === undefined) {
    ok = typeof WebAssembly === "object" &&
      WebAssembly.validate(wasmBytes[build]());
    supported.set(build, ok);
  }
  return ok;
}

/** The fastest build this runtime supports. */
export function bestBuild(): CoreBuild {
  if (isBuildSupported("relaxed-simd")) return "relaxed-simd";
  if (isBuildSupported("simd")) return "simd";
  return "scalar";
}

/** Options of `Core.create`. */
export interface CoreOptions {
  /**
   * Bytes to reserve up front, so that a program that allocates less never
   * grows the memory (and views never detach, on any runtime). With
   * `maxBytes` equal to it, the memory never grows after creation. Default 0.
   */
  readonly reserveBytes?: number;
  /**
   * The most bytes the core's buffers may take; an allocation beyond it is
   * a `RangeError` naming the budget, so no input can grow memory without
   * bound. Default 1 GiB; at most 4 GiB.
   */
  readonly maxBytes?: number;
}

/** The memory limits `options` ask for, checked: a `RangeError` names the bad option. */
export function coreLimits(caller: string, options: CoreOptions): MemoryLimits {
  if (options === null || typeof options !== "object") {
    throw new TypeError(`${caller}: options: expected an object`);
  }
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  const reserveBytes = options.reserveBytes ?? 0;
  if (!Number.isInteger(maxBytes) || maxBytes < 65536 || maxBytes > 2 ** 32) {
    throw new RangeError(
      `${caller}: options.maxBytes: expected a whole number 65536..2^32, got ${maxBytes}`,
    );
  }
  if (!Number.isInteger(reserveBytes) || reserveBytes < 0 || reserveBytes > maxBytes) {
    throw new RangeError(
      `${caller}: options.reserveBytes: expected a whole number 0..maxBytes, got ${reserveBytes}`,
    );
  }
  return { maxBytes, reserveBytes };
}

/** A core instance: its memory and the kernels that work on it. */
export interface CoreInstance {
  readonly build: CoreBuild;
  readonly memory: CoreMemory;
  readonly kernels: CoreKernels;
}

/** Creates a core of the given build (the fastest supported by default). */
export function instantiate(
  build: CoreBuild = bestBuild(),
  limits?: MemoryLimits,
): CoreInstance {
  if (!isBuildSupported(build)) {
    throw new TypeError(`core build "${build}" is not supported by this runtime`);
  }
  if (build === "scalar") {
    const memory = new CoreMemory(undefined, limits);
    return { build, memory, kernels: scalarKernels(memory) };
  }
  const module = new WebAssembly.Module(wasmBytes[build]());
  const instance = new WebAssembly.Instance(module, {});
  const exports = instance.exports as unknown as
    & CoreKernels
    & { memory: WebAssembly.Memory };
  const memory = new CoreMemory(exports.memory, limits);
  return { build, memory, kernels: exports };
}

/** Vertices and influences of a skinning part table. */
function partSizes(parts: Uint32Array): { vertices: number; influences: number } {
  let vertices = 0, influences = 0;
  for (let p = 0; p < parts.length; p += 2) {
    vertices += parts[p + 1];
    influences += parts[p] * parts[p + 1];
  }
  return { vertices, influences };
}

/** The kernels as scalar references over views of `memory`. */
function scalarKernels(memory: CoreMemory): CoreKernels {
  const f32 = (ptr: number, floats: number) =>
    memory.views().f32.subarray(ptr >> 2, (ptr >> 2) + floats);
  const u16 = (ptr: number, n: number) => memory.views().u16.subarray(ptr >> 1, (ptr >> 1) + n);
  const i16 = (ptr: number, n: number) => memory.views().i16.subarray(ptr >> 1, (ptr >> 1) + n);
  const u8 = (ptr: number, n: number) => memory.views().u8.subarray(ptr, ptr + n);
  const u32 = (ptr: number, n: number) => memory.views().u32.subarray(ptr >> 2, (ptr >> 2) + n);
  const poseFloats = (count: number) => Math.ceil(count / 4) * POSE_GROUP_FLOATS;
  const job = (jobs: number, index: number) => u32(jobs + index * JOB_WORDS * 4, JOB_WORDS);

  /** The scalar skinning kernel `skin` (reference signature) over core memory. */
  const skinWith = (skin: typeof ref.skinVertices): SkinningKernel =>
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
    const stream = (ptr: number) => f32(ptr, ptr ? vertices * VERTEX_FLOATS : 0);
    skin(
      memory.views().f32.subarray(palette >> 2),
      partView,
      u16(joints, influences),
      f32(weights, influences),
      stream(positions),
      stream(normals),
      stream(tangents),
      stream(outPositions),
      stream(outNormals),
      stream(outTangents),
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
          row[0],
          row[1],
          row[2],
          row[3],
          row[4],
          row[5],
          row[6],
          row[7],
          row[8],
          row[9],
          row[10],
          row[11],
          maxInfluences,
          bounds ? bounds + i * 32 : 0,
          row[12],
          row[13],
        );
      }
    };
  const kernels: CoreKernels = {
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
        const [ptr, count] = job(jobs, i);
        if (kernels.firstBeyond(ptr, count, limit) >= 0) return i;
      }
      return -1;
    },
    jobBytes() {
      return JOB_BYTES;
    },
    quatToMat(pose, matrices, count) {
      ref.quatToMat(f32(pose, poseFloats(count)), f32(matrices, count * MATRIX_FLOATS), count);
    },
    quatToMatBatch(jobs, jobCount) {
      for (let i = 0; i < jobCount; i++) {
        const [pose, matrices, count] = job(jobs, i);
        kernels.quatToMat(pose, matrices, count);
      }
    },
    matToQuat(matrices, pose, count) {
      ref.matToQuat(f32(matrices, count * MATRIX_FLOATS), f32(pose, poseFloats(count)), count);
    },
    matToQuatBatch(jobs, jobCount) {
      for (let i = 0; i < jobCount; i++) {
        const [matrices, pose, count] = job(jobs, i);
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
        const [local, model, parents, count] = job(jobs, i);
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
        const [model, local, parents, count] = job(jobs, i);
        kernels.modelToLocal(model, local, parents, 0, count - 1);
      }
    },
    multiplyMatrices(a, b, out, count) {
      const n = count * MATRIX_FLOATS;
      ref.multiplyMatrices(f32(a, n), f32(b, n), f32(out, n), count);
    },
    multiplyMatricesBatch(jobs, jobCount) {
      for (let i = 0; i < jobCount; i++) {
        const [a, b, out, count] = job(jobs, i);
        kernels.multiplyMatrices(a, b, out, count);
      }
    },
    multiplyMatricesCheckedBatch(jobs, jobCount, limit) {
      let first = -1;
      for (let i = 0; i < jobCount; i++) {
        const [a, b, out, count, keep] = job(jobs, i);
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
      const n = poseFloats(jointCount);
      ref.blendPoses(f32(a, n), f32(b, n), f32(out, n), jointCount, weight);
    },
    blendPosesBatch(jobs, jobCount) {
      for (let i = 0; i < jobCount; i++) {
        const [a, b, out, jointCount] = job(jobs, i);
        const weight = memory.views().f32[((jobs + i * JOB_WORDS * 4) >> 2) + 4];
        kernels.blendPoses(a, b, out, jointCount, weight);
      }
    },
    blendLayersBatch(sampleJobs, sampleCount, layerJobs, layerCount) {
      kernels.blendPosesBatch(sampleJobs, sampleCount);
      for (let i = 0; i < layerCount; i++) {
        const at = layerJobs + i * JOB_WORDS * 4;
        const [out, jointCount, rest, layers, blendCount, topCount] = job(layerJobs, i);
        const n = poseFloats(jointCount), lanes = Math.ceil(jointCount / 4) * 4;
        const inputs: LayerInput[] = [];
        for (let k = 0; k < blendCount + topCount; k++) {
          const [pose, mask, , reference] = u32(layers + k * LAYER_ENTRY_BYTES, 4);
          inputs.push({
            pose: f32(pose, n),
            mask: f32(mask, lanes * 3),
            weight: memory.views().f32[((layers + k * LAYER_ENTRY_BYTES) >> 2) + 2],
            reference: k >= blendCount && reference !== 0 ? f32(reference, n) : undefined,
          });
        }
        const threshold = memory.views().f32[(at >> 2) + 6];
        blendLayers(f32(out, n), jointCount, f32(rest, n), inputs, blendCount, threshold);
      }
    },
    sampleCompact(clip, cache, out, groupCount, time) {
      const { buffer } = memory.views().u8;
      refSample.sampleCompact(new DataView(buffer), clip, cache, out, groupCount, time);
    },
    sampleCompactBatch(jobs, jobCount) {
      for (let i = 0; i < jobCount; i++) {
        const [clip, cache, out, groupCount, , into] = job(jobs, i);
        const at = ((jobs + i * JOB_WORDS * 4) >> 2) + 4;
        kernels.sampleCompact(clip, cache, out, groupCount, memory.views().f32[at]);
        if (into !== 0) {
          kernels.blendPoses(into, out, into, groupCount * 4, memory.views().f32[at + 2]);
        }
      }
    },
    skinPositions(model, bases, joints, counts, out, vertexCount, maxInfluences) {
      const countView = u8(counts, vertexCount);
      let influences = 0;
      for (let v = 0; v < vertexCount; v++) influences += countView[v];
      const views = memory.views();
      ref.skinPositions(
        views.f32.subarray(model >> 2),
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
        const [model, bases, joints, counts, out, vertexCount] = job(jobs, i);
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
      let fold = 0;
      const words = (ptr: number, bytes: number) => {
        const b = u8(ptr, bytes);
        for (let i = 0; i < bytes; i++) fold ^= b[i] << ((i & 3) * 8);
      };
      words(joints, influences * 2);
      words(weights, influences * 4);
      const n = vertices * VERTEX_FLOATS;
      f32(outPositions, n).set(f32(positions, n));
      if (flags & SKIN_NORMALS) f32(outNormals, n).set(f32(normals, n));
      if (flags & SKIN_TANGENTS) f32(outTangents, n).set(f32(tangents, n));
      return fold;
    },
    solveIKBatch(jobs, jobCount) {
      const views = memory.views();
      solveIKJobs(views.f32, views.u32, views.i16, jobs, jobCount);
    },
    skinVerticesBatch: batchOf("skinVertices"),
    skinDualQuaternionsBatch: batchOf("skinDualQuaternions"),
  };
  return kernels;
}
