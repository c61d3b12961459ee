/**
 * Shared by the `skin_vertices_*_test.ts` files (`skinVertices`:
 * collapsed-palette skinning, `C = sum w * palette[j]` per vertex over the
 * first `maxInfluences` influences, renormalized when the cap drops some,
 * `p' = C * p`, `n' = C.rot * n`, `t' = (C.rot * t.xyz, t.w)`, optionally
 * renormalized): a test case, the scalar reference's outputs for it and the
 * per-float error bounds a build may differ by, and the hand-written mesh
 * shape of the known-value and bad-input tests.
 *
 * @module
 */

import { MATRIX_FLOATS, SkinFlags, VERTEX_FLOATS } from "../kernels.ts";
import * as ref from "../simd/scalar/mod.ts";
import { type MeshData, tolerance } from "./_arbitrary.ts";

/** Fills vertices the kernel must not write. */
export const SENTINEL = 12345.5;

export interface Case {
  palette: Float32Array;
  mesh: MeshData;
  /** Which streams the mesh has. */
  meshNormals: boolean;
  meshTangents: boolean;
  /** Which outputs are requested (only streams the mesh has). */
  outNormals: boolean;
  outTangents: boolean;
  renormalize: boolean;
  cap: number | undefined;
  extraOut: number;
}

interface Streams {
  positions: Float32Array;
  normals: Float32Array;
  tangents: Float32Array;
}

export function vertexCountOf(mesh: MeshData): number {
  return mesh.positions.length / VERTEX_FLOATS;
}

export function flagsOf(c: Case): number {
  return (c.outNormals ? SkinFlags.NORMALS : 0) |
    (c.outTangents ? SkinFlags.TANGENTS : 0) |
    (c.renormalize ? SkinFlags.RENORMALIZE : 0);
}

/** The reference's outputs (unrequested streams stay sentinel). */
export function reference(c: Case, flags = flagsOf(c)): Streams {
  const n = (vertexCountOf(c.mesh) + c.extraOut) * VERTEX_FLOATS;
  const out = {
    positions: new Float32Array(n).fill(SENTINEL),
    normals: new Float32Array(n).fill(SENTINEL),
    tangents: new Float32Array(n).fill(SENTINEL),
  };
  const m = c.mesh;
  const empty = new Float32Array(0);
  ref.skinVertices(
    c.palette,
    Uint32Array.from(m.parts),
    Uint16Array.from(m.joints),
    m.weights,
    m.positions,
    flags & SkinFlags.NORMALS ? m.normals : empty,
    flags & SkinFlags.TANGENTS ? m.tangents : empty,
    out.positions,
    flags & SkinFlags.NORMALS ? out.normals : empty,
    flags & SkinFlags.TANGENTS ? out.tangents : empty,
    flags,
    c.cap ?? 255,
  );
  return out;
}

/**
 * Per-float bounds of one stream: `sum_k w_k sum_c |palette[j_k][r][c]|
 * |v_c|` (`v_3 = 1` for positions, 0 for directions), over the used weight
 * sum when capped, over the unnormalized length when renormalized; 0
 * (exact) for w and past the mesh.
 */
export function bounds(
  c: Case,
  stream: "positions" | "normals" | "tangents",
  unnormalized?: Float32Array,
): Float64Array {
  const m = c.mesh;
  const input = m[stream];
  const out = new Float64Array((vertexCountOf(m) + c.extraOut) * VERTEX_FLOATS);
  let v = 0, k = 0;
  for (let p = 0; p < m.parts.length; p += 2) {
    const n = m.parts[p], count = m.parts[p + 1];
    const used = Math.min(n, c.cap ?? 255);
    const end = v + count;
    for (; v < end; v++, k += n) {
      let wsum = 0;
      for (let i = 0; i < used; i++) wsum += m.weights[k + i];
      const length = unnormalized ? Math.hypot(...unnormalized.subarray(v * 4, v * 4 + 3)) : 1;
      for (let r = 0; r < 3; r++) {
        let sum = 0;
        for (let i = 0; i < used; i++) {
          const e = m.joints[k + i] * MATRIX_FLOATS + r * 4;
          let row = stream === "positions" ? Math.abs(c.palette[e + 3]) : 0;
          for (let col = 0; col < 3; col++) {
            row += Math.abs(c.palette[e + col]) * Math.abs(input[v * 4 + col]);
          }
          sum += Math.abs(m.weights[k + i]) * row;
        }
        out[v * 4 + r] = tolerance((used < n ? sum / wsum : sum) / length);
      }
    }
  }
  return out;
}
export interface Known {
  parts: number[];
  joints: number[];
  weights: number[];
  positions: number[];
  normals: number[];
  tangents: number[];
}
