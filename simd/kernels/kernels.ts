/**
 * Checked kernels: each validates its arguments (types, sizes, ranges, and
 * that every float it reads is finite) and throws a `TypeError` or
 * `RangeError` naming the argument and index before anything is written;
 * then it makes one call into its buffers' core.
 *
 * @example Local pose to skinning palette
 * ```ts
 * import {
 *   localToModel,
 *   MatrixBuffer,
 *   multiplyMatrices,
 *   ParentIndices,
 *   PoseBuffer,
 *   quatToMat,
 * } from "@marrow/anim/kernels";
 *
 * const parents = new ParentIndices([-1, 0, 1]);
 * const pose = new PoseBuffer(3);
 * pose.setJoint(1, [0, 1, 0], [0, 0, Math.SQRT1_2, Math.SQRT1_2]);
 * const local = new MatrixBuffer(3), model = new MatrixBuffer(3);
 * const inverseBind = new MatrixBuffer(3), palette = new MatrixBuffer(3);
 * quatToMat(pose, local);
 * localToModel(local, model, parents);
 * multiplyMatrices(model, inverseBind, palette);
 * ```
 * @module
 */

import {
  MatrixBuffer,
  ParentIndices,
  PoseBuffer,
  SkinMesh,
  VertexBuffer,
  WeightedBases,
} from "../memory/core.ts";
import { POSE_GROUP_FLOATS, SkinFlags } from "../memory/layout.ts";
import { coreKernels, describeValue } from "../memory/internal.ts";
import {
  checkAtLeast,
  checkJointRange,
  checkMatrices,
  checkPose,
  checkRange,
  checkType,
  maxInfluences,
  sameCore,
} from "./_kernel_checks.ts";

/** Options of the skinning kernels. */
export interface SkinOptions {
  /**
   * Use at most this many influences per vertex (level of detail). When the
   * cap drops influences, the remaining weights are rescaled to sum to one.
   * Default: all.
   */
  readonly maxInfluences?: number;
}

/** Output streams of {@linkcode skinVertices}. */
export interface SkinOutput {
  /** Skinned positions. */
  readonly positions: VertexBuffer;
  /** Skinned normals; needs a mesh with normals. */
  readonly normals?: VertexBuffer;
  /** Skinned tangents; needs a mesh with tangents. */
  readonly tangents?: VertexBuffer;
}

/** Options of {@linkcode skinVertices}. */
export interface SkinVerticesOptions extends SkinOptions {
  /** Renormalize skinned normals and tangents to unit length. Default false. */
  readonly renormalize?: boolean;
}

/**
 * Joint poses to 3x4 matrices (`M = T * R * S`) for joints `0..count-1`.
 */
export function quatToMat(
  pose: PoseBuffer,
  matrices: MatrixBuffer,
  count?: number,
): void {
  checkType("quatToMat", "pose", pose, PoseBuffer);
  checkType("quatToMat", "matrices", matrices, MatrixBuffer);
  const core = sameCore("quatToMat", { pose, matrices });
  count ??= pose.jointCount;
  checkRange("quatToMat", "count", count, { pose: pose.jointCount, matrices: matrices.count });
  checkPose("quatToMat", "pose", pose, count);
  coreKernels(core).quatToMat(pose.byteOffset, matrices.byteOffset, count);
}

/**
 * 3x4 matrices to joint poses for joints `0..count-1` (Shoemake's method,
 * scale from the column lengths; a negative determinant negates the x
 * scale). Joints from `count` on are left as they were. When a matrix has a
 * zero scale column its rotation is not defined: the result is then some
 * unit quaternion, which may differ between core builds.
 */
export function matToQuat(
  matrices: MatrixBuffer,
  pose: PoseBuffer,
  count?: number,
): void {
  checkType("matToQuat", "matrices", matrices, MatrixBuffer);
  checkType("matToQuat", "pose", pose, PoseBuffer);
  const core = sameCore("matToQuat", { matrices, pose });
  count ??= matrices.count;
  checkRange("matToQuat", "count", count, { matrices: matrices.count, pose: pose.jointCount });
  checkMatrices("matToQuat", "matrices", matrices, 0, count);
  // The kernel writes whole groups of four: keep the joints after `count`.
  const tail = count & 3 && count < pose.jointCount ? (count >> 2) * POSE_GROUP_FLOATS : -1;
  const kept = tail >= 0 ? pose.array.slice(tail, tail + POSE_GROUP_FLOATS) : undefined;
  coreKernels(core).matToQuat(matrices.byteOffset, pose.byteOffset, count);
  if (kept) {
    const a = pose.array;
    const lanes = Math.min(4, pose.jointCount - (count & ~3));
    for (let f = 0; f < 10; f++) {
      for (let lane = count & 3; lane < lanes; lane++) a[tail + f * 4 + lane] = kept[f * 4 + lane];
    }
  }
}

/**
 * Local to model space for joints `first..last`:
 * `model[i] = model[parents[i]] * local[i]`. Parents below `first` must
 * already be in `model`.
 */
export function localToModel(
  local: MatrixBuffer,
  model: MatrixBuffer,
  parents: ParentIndices,
  first = 0,
  last?: number,
): void {
  checkType("localToModel", "local", local, MatrixBuffer);
  checkType("localToModel", "model", model, MatrixBuffer);
  checkType("localToModel", "parents", parents, ParentIndices);
  const core = sameCore("localToModel", { local, model, parents });
  last ??= parents.jointCount - 1;
  if (!checkJointRange("localToModel", first, last, parents, local, model)) return;
  checkMatrices("localToModel", "local", local, first, last + 1);
  checkMatrices("localToModel", "model", model, 0, first);
  coreKernels(core).localToModel(
    local.byteOffset,
    model.byteOffset,
    parents.byteOffset,
    first,
    last,
  );
}

/**
 * Model to local space for joints `last` down to `first`:
 * `local[i] = inverse(model[parents[i]]) * model[i]`. `local` may be
 * `model` (in place).
 */
export function modelToLocal(
  model: MatrixBuffer,
  local: MatrixBuffer,
  parents: ParentIndices,
  first = 0,
  last?: number,
): void {
  checkType("modelToLocal", "model", model, MatrixBuffer);
  checkType("modelToLocal", "local", local, MatrixBuffer);
  checkType("modelToLocal", "parents", parents, ParentIndices);
  const core = sameCore("modelToLocal", { model, local, parents });
  last ??= parents.jointCount - 1;
  if (!checkJointRange("modelToLocal", first, last, parents, local, model)) return;
  checkMatrices("modelToLocal", "model", model, 0, last + 1);
  coreKernels(core).modelToLocal(
    model.byteOffset,
    local.byteOffset,
    parents.byteOffset,
    first,
    last,
  );
}

/** `out[i] = a[i] * b[i]` for `count` matrices (model × inverse bind). */
export function multiplyMatrices(
  a: MatrixBuffer,
  b: MatrixBuffer,
  out: MatrixBuffer,
  count?: number,
): void {
  checkType("multiplyMatrices", "a", a, MatrixBuffer);
  checkType("multiplyMatrices", "b", b, MatrixBuffer);
  checkType("multiplyMatrices", "out", out, MatrixBuffer);
  const core = sameCore("multiplyMatrices", { a, b, out });
  count ??= out.count;
  checkRange("multiplyMatrices", "count", count, { a: a.count, b: b.count, out: out.count });
  checkMatrices("multiplyMatrices", "a", a, 0, count);
  checkMatrices("multiplyMatrices", "b", b, 0, count);
  coreKernels(core).multiplyMatrices(a.byteOffset, b.byteOffset, out.byteOffset, count);
}

/**
 * Blends two poses into `out` (which may be `a` or `b`): translation and
 * scale `a * (1 - weight) + b * weight`, rotation by nlerp along the shorter
 * arc. For cross-fades and layering; `weight` is in `[0, 1]`.
 */
export function blendPoses(
  a: PoseBuffer,
  b: PoseBuffer,
  out: PoseBuffer,
  weight: number,
): void {
  checkType("blendPoses", "a", a, PoseBuffer);
  checkType("blendPoses", "b", b, PoseBuffer);
  checkType("blendPoses", "out", out, PoseBuffer);
  const core = sameCore("blendPoses", { a, b, out });
  if (!(weight >= 0 && weight <= 1)) {
    throw new RangeError(
      `blendPoses: weight: expected a number in [0, 1], got ${describeValue(weight)}`,
    );
  }
  if (a.jointCount !== out.jointCount || b.jointCount !== out.jointCount) {
    throw new RangeError(
      `blendPoses: a, b and out must have the same joint count, got ${
        describeValue(a.jointCount)
      }, ${b.jointCount} and ${out.jointCount}`,
    );
  }
  checkPose("blendPoses", "a", a, a.jointCount);
  checkPose("blendPoses", "b", b, b.jointCount);
  coreKernels(core).blendPoses(
    a.byteOffset,
    b.byteOffset,
    out.byteOffset,
    out.jointCount,
    weight,
  );
}

/**
 * Positions-only skinning from weighted base vectors with the model-space
 * joint matrices: `out[v] = sum model[j] * b` (paper 002, section 3).
 */
export function skinPositions(
  model: MatrixBuffer,
  bases: WeightedBases,
  out: VertexBuffer,
  options: SkinOptions = {},
): void {
  checkType("skinPositions", "model", model, MatrixBuffer);
  checkType("skinPositions", "bases", bases, WeightedBases);
  checkType("skinPositions", "out", out, VertexBuffer);
  const core = sameCore("skinPositions", { model, bases, out });
  checkAtLeast("skinPositions", "model", model.count, bases.jointCount, "matrices");
  checkAtLeast("skinPositions", "out", out.vertexCount, bases.vertexCount, "vertices");
  const cap = maxInfluences("skinPositions", options);
  checkMatrices("skinPositions", "model", model, 0, bases.jointCount);
  coreKernels(core).skinPositions(
    model.byteOffset,
    bases.byteOffset,
    bases.jointsOffset,
    bases.countsOffset,
    out.byteOffset,
    bases.vertexCount,
    cap,
  );
}

/**
 * Skinning with the collapsed palette `C = sum w * palette[j]` per vertex:
 * positions, and normals and tangents when `out` asks for them (paper 002,
 * section 4). Tangent handedness (w) is copied.
 */
export function skinVertices(
  palette: MatrixBuffer,
  mesh: SkinMesh,
  out: SkinOutput,
  options: SkinVerticesOptions = {},
): void {
  const name = "skinVertices";
  if (typeof out !== "object" || out === null) {
    throw new TypeError(`${name}: out: expected { positions, normals?, tangents? }`);
  }
  checkType(name, "palette", palette, MatrixBuffer);
  checkType(name, "mesh", mesh, SkinMesh);
  checkType(name, "out.positions", out.positions, VertexBuffer);
  const core = sameCore(name, { palette, mesh, ...out });
  const streams = [out.positions, out.normals, out.tangents].filter((s) => s);
  if (new Set(streams).size !== streams.length) {
    throw new TypeError(`${name}: out: output streams must be distinct buffers`);
  }
  let flags = 0;
  if (out.normals !== undefined) {
    checkType(name, "out.normals", out.normals, VertexBuffer);
    if (!mesh.hasNormals) throw new TypeError(`${name}: out.normals: the mesh has no normals`);
    checkAtLeast(name, "out.normals", out.normals.vertexCount, mesh.vertexCount, "vertices");
    flags |= SkinFlags.NORMALS;
  }
  if (out.tangents !== undefined) {
    checkType(name, "out.tangents", out.tangents, VertexBuffer);
    if (!mesh.hasTangents) throw new TypeError(`${name}: out.tangents: the mesh has no tangents`);
    checkAtLeast(name, "out.tangents", out.tangents.vertexCount, mesh.vertexCount, "vertices");
    flags |= SkinFlags.TANGENTS;
  }
  const cap = maxInfluences(name, options);
  if (options.renormalize) flags |= SkinFlags.RENORMALIZE;
  checkAtLeast(name, "palette", palette.count, mesh.jointCount, "matrices");
  checkAtLeast(name, "out.positions", out.positions.vertexCount, mesh.vertexCount, "vertices");
  checkMatrices(name, "palette", palette, 0, mesh.jointCount);
  coreKernels(core).skinVertices(
    palette.byteOffset,
    ...mesh.kernelWords,
    out.positions.byteOffset,
    out.normals?.byteOffset ?? 0,
    out.tangents?.byteOffset ?? 0,
    flags,
    cap,
    0,
    // No scratch for a transposed palette: the kernel reads rows.
    0,
    0,
  );
}
