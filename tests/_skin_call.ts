/**
 * The kernel tests' inputs copied into a core, and one call of a core
 * skinning kernel from the byte offsets they lay out: `at` = palette (or
 * dual-quaternion table), parts, joints, weights, positions, normals,
 * tangents; `out` = the three output streams.
 *
 * @module
 */
import type { SkinningKernel } from "../simd/abi.ts";
import type { CoreMemory } from "../simd/memory/_memory.ts";
import * as ref from "../simd/scalar/mod.ts";

/**
 * Copies `array` into `memory` with 16 bytes to spare (the three-influence
 * loop reads one influence past a vertex); returns its byte offset.
 */
export function copyToCore(
  memory: CoreMemory,
  array: Float32Array | Uint16Array | Uint32Array,
): number {
  const ptr = memory.alloc(array.byteLength + 16);
  memory.views().u8.set(new Uint8Array(array.buffer, array.byteOffset, array.byteLength), ptr);
  return ptr;
}

/**
 * Runs `kernel` on `partCount` parts laid out at `at`, writing `out` and
 * `bounds` (0: none), with `columns` (0: none) as the scratch for the
 * palette of `jointCount` joints transposed.
 */
export function skinAt(
  kernel: SkinningKernel,
  at: readonly number[],
  partCount: number,
  out: readonly number[],
  flags: number,
  maxInfluences: number,
  bounds: number,
  columns = 0,
  jointCount = 0,
): void {
  kernel(
    at[0],
    at[1],
    partCount,
    at[2],
    at[3],
    at[4],
    at[5],
    at[6],
    out[0],
    out[1],
    out[2],
    flags,
    maxInfluences,
    bounds,
    columns,
    jointCount,
  );
}

/**
 * The palette's columns as the linear kernel writes them into its scratch:
 * per joint the rotation's three columns and the translation, lane 3 zero.
 */
export function paletteColumns(palette: ArrayLike<number>, joints: number): Float32Array {
  const columns = new Float32Array(joints * 16);
  for (let j = 0; j < joints; j++) {
    for (let c = 0; c < 4; c++) {
      for (let r = 0; r < 3; r++) columns[j * 16 + c * 4 + r] = palette[j * 12 + r * 4 + c];
    }
  }
  return columns;
}

/**
 * The scalar reference's three output streams for `vertexCount` vertices
 * (`kernel`'s signature: palette or dual-quaternion table, parts, joints,
 * weights, the three input streams, flags, influence cap).
 */
export function referenceOutputs(
  kernel: "skinVertices" | "skinDualQuaternions",
  transforms: Float32Array,
  parts: Uint32Array,
  joints: Uint16Array,
  weights: Float32Array,
  inputs: readonly Float32Array[],
  vertexCount: number,
  flags: number,
  maxInfluences: number,
): Float32Array[] {
  const out = [0, 1, 2].map(() => new Float32Array(vertexCount * 4));
  ref[kernel](
    transforms,
    parts,
    joints,
    weights,
    inputs[0],
    inputs[1],
    inputs[2],
    out[0],
    out[1],
    out[2],
    flags,
    maxInfluences,
  );
  return out;
}
