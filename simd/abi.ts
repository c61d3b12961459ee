/**
 * The core's calling convention: every kernel takes byte offsets into the
 * core's linear memory. The WebAssembly builds export exactly these
 * functions; the scalar backend implements them with `reference.ts`.
 * Nothing here validates: the wrappers in `kernels.ts` do.
 *
 * Batch kernels take a table of jobs, each job {@linkcode JOB_WORDS} `u32`
 * words (16-byte aligned rows), so that a system makes one call per frame
 * for all of its entities:
 *
 * | kernel                | job words                                             |
 * | --------------------- | ----------------------------------------------------- |
 * | firstBeyondBatch      | ptr, floatCount (returns the first job with a float   |
 * |                       | whose magnitude is not below `limit`, or -1)          |
 * | quatToMatBatch        | pose, matrices, count                                 |
 * | matToQuatBatch        | matrices, pose, count                                 |
 * | localToModelBatch     | local, model, parents, count (joints 0..count-1)      |
 * | modelToLocalBatch     | model, local, parents, count                          |
 * | multiplyMatricesBatch | a, b, out, count                                      |
 * | multiplyMatrices-     | a, b, out, count, keep; returns the first job whose   |
 * | CheckedBatch          | output holds a float whose magnitude is not below     |
 * |                       | `limit`, or -1 (firstBeyondBatch fused in); a job     |
 * |                       | whose output is all below copies `a` to `keep` when   |
 * |                       | `keep` is not 0                                       |
 * | skinPositionsBatch    | model, bases, joints, counts, out, vertexCount        |
 * | blendPosesBatch       | a, b, out, jointCount, weight (f32 bits)              |
 * | blendLayersBatch      | two tables: blendPosesBatch jobs, then out,           |
 * |                       | jointCount, rest, layers, blendCount, topCount,       |
 * |                       | threshold (f32 bits); `layers` holds entries of pose, |
 * |                       | mask, weight (f32 bits), reference (0: override)      |
 * | sampleCompactBatch    | clip, cache, out, groupCount, time (f32 bits),        |
 * |                       | blendInto, weight (f32 bits): see `assembly/sample.ts` |
 * | skinVerticesBatch     | palette, parts, partCount, joints, weights, positions, |
 * |                       | normals, tangents, outPositions, outNormals,          |
 * |                       | outTangents, flags, columns, jointCount (`bounds`,    |
 * |                       | when not 0, is a table of 8 floats per job: min xyzw, |
 * |                       | max xyzw of positions)                                |
 * | skinDualQuaternions-  | as skinVerticesBatch, a dual-quaternion table (12     |
 * | Batch                 | floats per joint) in place of the palette             |
 * | copyBlocksBatch       | from, to, bytes (blocks that do not overlap)          |
 *
 * `morphVertices` takes a table of target entries ({@linkcode MORPH_ENTRY_BYTES}
 * each: deltas, indices (0 for a range), first, count, weight (f32 bits)).
 *
 * @module
 */

export * from "./wasm/assembly/abi.ts";

/**
 * A skinning kernel's core entry (`skinVertices`, `skinDualQuaternions`):
 * byte offsets into core memory, then flags, the influence cap, the
 * bounds output (0 for none), and scratch for the palette transposed
 * (`columns`, {@linkcode JOINT_COLUMN_BYTES} per joint for `jointCount`
 * joints, 0 for none; the linear kernel may fill it, the dual-quaternion
 * kernel ignores it). `palette` is a dual-quaternion table for the
 * dual-quaternion kernel.
 */
export type SkinningKernel = (
  palette: number,
  parts: number,
  partCount: number,
  joints: number,
  weights: number,
  positions: number,
  normals: number,
  tangents: number,
  outPositions: number,
  outNormals: number,
  outTangents: number,
  flags: number,
  maxInfluences: number,
  bounds: number,
  columns: number,
  jointCount: number,
) => void;

/** The functions every core build provides. Pointers are byte offsets. */
export interface CoreKernels {
  firstNonFinite(ptr: number, count: number): number;
  firstBeyond(ptr: number, count: number, limit: number): number;
  firstBeyondBatch(jobs: number, jobCount: number, limit: number): number;
  /** The job row size the build was compiled with. */
  jobBytes(): number;
  quatToMat(pose: number, matrices: number, count: number): void;
  quatToMatBatch(jobs: number, jobCount: number): void;
  matToQuat(matrices: number, pose: number, count: number): void;
  matToQuatBatch(jobs: number, jobCount: number): void;
  localToModel(
    local: number,
    model: number,
    parents: number,
    first: number,
    last: number,
  ): void;
  localToModelBatch(jobs: number, jobCount: number): void;
  modelToLocal(
    model: number,
    local: number,
    parents: number,
    first: number,
    last: number,
  ): void;
  modelToLocalBatch(jobs: number, jobCount: number): void;
  multiplyMatrices(a: number, b: number, out: number, count: number): void;
  multiplyMatricesBatch(jobs: number, jobCount: number): void;
  multiplyMatricesCheckedBatch(jobs: number, jobCount: number, limit: number): number;
  blendPoses(a: number, b: number, out: number, jointCount: number, weight: number): void;
  blendPosesBatch(jobs: number, jobCount: number): void;
  blendLayersBatch(
    sampleJobs: number,
    sampleCount: number,
    layerJobs: number,
    layerCount: number,
  ): void;
  sampleCompact(clip: number, cache: number, out: number, groupCount: number, time: number): void;
  sampleCompactBatch(jobs: number, jobCount: number): void;
  skinPositions(
    model: number,
    bases: number,
    joints: number,
    counts: number,
    out: number,
    vertexCount: number,
    maxInfluences: number,
  ): void;
  skinPositionsBatch(
    jobs: number,
    jobCount: number,
    maxInfluences: number,
  ): void;
  skinVertices: SkinningKernel;
  skinVerticesBatch(
    jobs: number,
    jobCount: number,
    maxInfluences: number,
    bounds: number,
  ): void;
  /** `skinVertices` with a dual-quaternion table in place of the palette. */
  skinDualQuaternions: SkinningKernel;
  skinDualQuaternionsBatch(
    jobs: number,
    jobCount: number,
    maxInfluences: number,
    bounds: number,
  ): void;
  solveIKBatch(jobs: number, jobCount: number): void;
  /** Copies each row's block of bytes (`COPY_FROM`, `COPY_TO`, `COPY_BYTES`). */
  copyBlocksBatch(jobs: number, jobCount: number): void;
  /**
   * Writes `vertexCount` vertices at `out`: those at `base` displaced by
   * the `entryCount` target entries at `entries` (`simd/scalar/morph.ts`).
   */
  morphVertices(
    base: number,
    out: number,
    vertexCount: number,
    entries: number,
    entryCount: number,
  ): void;
  copyVertices(
    parts: number,
    partCount: number,
    joints: number,
    weights: number,
    positions: number,
    normals: number,
    tangents: number,
    outPositions: number,
    outNormals: number,
    outTangents: number,
    flags: number,
  ): number;
}
