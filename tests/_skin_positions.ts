/**
 * Shared by the `skin_positions_*_test.ts` files (`skinPositions`:
 * positions-only skinning from weighted base vectors, `p' = sum model[j] *
 * b` with `b = (w * inverseBind[j] * p, w)`, over the first
 * `maxInfluences` influences, renormalized when the cap drops some): a test
 * case, the scalar reference's output for it and the per-float error bounds
 * a build may differ by, translation matrices, and an arena in one build's
 * core for the length of a call.
 *
 * @module
 */

import "../scalar.ts";
import { MATRIX_FLOATS, VERTEX_FLOATS } from "../kernels.ts";
import * as ref from "../simd/scalar/mod.ts";
import { Arena, type BUILDS, coreFor, type Influences, tolerance } from "./_arbitrary.ts";

/** Fills vertices the kernel must not write. */
export const SENTINEL = 12345.5;

export interface Case {
  /** Model matrices (at least the joints used). */
  model: Float32Array;
  /** Inverse bind matrices, one per joint. */
  inverseBind: Float32Array;
  positions: Float32Array;
  influences: Influences;
  /** `options.maxInfluences`, or undefined for all. */
  cap: number | undefined;
  /** Extra vertices of the output buffer. */
  extraOut: number;
}

/** The reference's bases and skinned positions. */
export function reference(c: Case): { bases: Float32Array; out: Float32Array } {
  const { counts, joints, weights } = c.influences;
  const vertexCount = counts.length;
  const bases = new Float32Array(joints.length * 4);
  const j16 = Uint16Array.from(joints), n8 = Uint8Array.from(counts);
  ref.weightedBases(
    c.positions,
    c.inverseBind,
    j16,
    weights,
    n8,
    vertexCount,
    bases,
  );
  const out = new Float32Array((vertexCount + c.extraOut) * VERTEX_FLOATS).fill(
    SENTINEL,
  );
  ref.skinPositions(c.model, bases, j16, n8, out, vertexCount, c.cap ?? 255);
  return { bases, out };
}

/**
 * Per output float, the bound: the magnitude of the terms summed,
 * `sum_k sum_c |model[j_k][r][c]| |b_k[c]|`, over the used weight sum
 * when capped; 0 (exact) for w and the vertices past the skin.
 */
export function bounds(c: Case, bases: Float32Array, length: number): Float64Array {
  const { counts, joints } = c.influences;
  const out = new Float64Array(length);
  let k = 0;
  counts.forEach((n, v) => {
    const used = Math.min(n, c.cap ?? 255);
    let wsum = 0;
    for (let r = 0; r < 3; r++) {
      let sum = 0;
      for (let i = 0; i < used; i++) {
        const m = joints[k + i] * MATRIX_FLOATS + r * 4;
        for (let e = 0; e < 4; e++) {
          sum += Math.abs(c.model[m + e]) * Math.abs(bases[(k + i) * 4 + e]);
        }
        if (r === 0) wsum += bases[(k + i) * 4 + 3];
      }
      out[v * 4 + r] = tolerance(used < n ? sum / wsum : sum);
    }
    k += n;
  });
  return out;
}
/** T(x, y, z). */
export const T = (
  x: number,
  y: number,
  z: number,
) => [1, 0, 0, x, 0, 1, 0, y, 0, 0, 1, z];
export const I = T(0, 0, 0);
export function withArenaOf<T>(
  build: (typeof BUILDS)[number],
  run: (arena: Arena) => T,
): T {
  const arena = new Arena(coreFor(build));
  try {
    return run(arena);
  } finally {
    arena.free();
  }
}
