/**
 * Scalar TypeScript references of the skinning kernels, re-exported by
 * `reference.ts` (`@marrow/anim/reference`).
 *
 * @module
 */

import { MATRIX_FLOATS, SkinFlags } from "../memory/layout.ts";

/**
 * Positions-only skinning from weighted base vectors (paper 002, section 3).
 * Vertex `v` has `counts[v]` influences, stored consecutively: base vector
 * `bases[4k..4k+3] = (w * (inverseBind[j] * p), w)` and joint `joints[k]`.
 * `out[v] = sum model[j] * b` over the first `min(counts[v], maxInfluences)`
 * influences; when the cap drops influences the sum is divided by the
 * weights it used (with one influence, that weight counts as 1). Writes
 * `(x, y, z, 1)` per vertex.
 */
export function skinPositions(
  model: Float32Array,
  bases: Float32Array,
  joints: Uint16Array,
  counts: Uint8Array,
  out: Float32Array,
  vertexCount: number,
  maxInfluences: number,
): void {
  let k = 0;
  for (let v = 0; v < vertexCount; v++) {
    const n = counts[v];
    const used = n < maxInfluences ? n : maxInfluences;
    let x = 0, y = 0, z = 0, w = 0;
    for (let i = 0; i < used; i++) {
      const b = (k + i) * 4;
      const bx = bases[b], by = bases[b + 1], bz = bases[b + 2];
      const bw = bases[b + 3];
      const m = joints[k + i] * MATRIX_FLOATS;
      x += model[m] * bx + model[m + 1] * by + model[m + 2] * bz +
        model[m + 3] * bw;
      y += model[m + 4] * bx + model[m + 5] * by + model[m + 6] * bz +
        model[m + 7] * bw;
      z += model[m + 8] * bx + model[m + 9] * by + model[m + 10] * bz +
        model[m + 11] * bw;
      w += bw;
    }
    if (used < n) {
      const s = 1 / w;
      x *= s, y *= s, z *= s;
    }
    const o = v * 4;
    out[o] = x, out[o + 1] = y, out[o + 2] = z, out[o + 3] = 1;
    k += n;
  }
}

/**
 * Builds the weighted base vectors of {@linkcode skinPositions}:
 * `bases[k] = (w_k * (inverseBind[j_k] * p), w_k)`, with `positions` in
 * vertex-stream layout and influences stored as in `skinPositions`.
 */
export function weightedBases(
  positions: Float32Array,
  inverseBind: Float32Array,
  joints: Uint16Array,
  weights: Float32Array,
  counts: Uint8Array,
  vertexCount: number,
  bases: Float32Array,
): void {
  let k = 0;
  for (let v = 0; v < vertexCount; v++) {
    const px = positions[v * 4], py = positions[v * 4 + 1];
    const pz = positions[v * 4 + 2];
    for (let i = 0; i < counts[v]; i++, k++) {
      const m = joints[k] * MATRIX_FLOATS, w = weights[k];
      const ib = inverseBind;
      bases[k * 4] = w *
        (ib[m] * px + ib[m + 1] * py + ib[m + 2] * pz + ib[m + 3]);
      bases[k * 4 + 1] = w *
        (ib[m + 4] * px + ib[m + 5] * py + ib[m + 6] * pz + ib[m + 7]);
      bases[k * 4 + 2] = w *
        (ib[m + 8] * px + ib[m + 9] * py + ib[m + 10] * pz + ib[m + 11]);
      bases[k * 4 + 3] = w;
    }
  }
}

/** A vertex's blended matrix (float64), rewritten by each vertex (no array a call). */
const blendedMatrix = new Float64Array(12);

/**
 * Skinning by collapsing the weighted palette per vertex (paper 002,
 * section 4). Vertices come in parts: part `p` is `parts[2p]` influences
 * per vertex for `parts[2p + 1]` vertices, its joints and weights stored
 * vertex by vertex, parts one after another. Per vertex,
 * `C = sum w_k * palette[j_k]` over the first `min(k, maxInfluences)`
 * influences (divided by their weight sum when the cap drops some; one
 * used influence is rigid, `C = palette[j]`, its weight not applied, as a
 * skin asset's renormalized weights make it 1 anyway), then
 * `p' = C * p`, and with {@linkcode SkinFlags} `n' = C.rot * n`,
 * `t' = (C.rot * t.xyz, t.w)`, renormalized on request. Streams are in
 * vertex-stream layout; unused ones may be empty. With `bounds` (8
 * floats), it receives the component-wise minimum (0..3) and maximum
 * (4..7) of the written positions, w included; +Infinity / -Infinity when
 * there is no vertex.
 */
export function skinVertices(
  palette: Float32Array,
  parts: Uint32Array,
  joints: Uint16Array,
  weights: Float32Array,
  positions: Float32Array,
  normals: Float32Array,
  tangents: Float32Array,
  outPositions: Float32Array,
  outNormals: Float32Array,
  outTangents: Float32Array,
  flags: number,
  maxInfluences: number,
  bounds?: Float32Array,
): void {
  const c = blendedMatrix;
  let v = 0, k = 0;
  for (let p = 0; p < parts.length; p += 2) {
    const n = parts[p], vertices = parts[p + 1];
    const used = n < maxInfluences ? n : maxInfluences;
    const end = v + vertices;
    for (; v < end; v++, k += n) {
      c.fill(0);
      let sum = 0;
      for (let i = 0; i < used; i++) {
        // A single used influence is rigid: its weight is not applied.
        const w = used === 1 ? 1 : weights[k + i], m = joints[k + i] * MATRIX_FLOATS;
        for (let e = 0; e < 12; e++) c[e] += w * palette[m + e];
        sum += w;
      }
      if (used < n && used > 1) {
        const s = 1 / sum;
        for (let e = 0; e < 12; e++) c[e] *= s;
      }
      const o = v * 4;
      const px = positions[o], py = positions[o + 1], pz = positions[o + 2];
      outPositions[o] = c[0] * px + c[1] * py + c[2] * pz + c[3];
      outPositions[o + 1] = c[4] * px + c[5] * py + c[6] * pz + c[7];
      outPositions[o + 2] = c[8] * px + c[9] * py + c[10] * pz + c[11];
      outPositions[o + 3] = 1;
      if (flags & SkinFlags.NORMALS) {
        transformDirection(c, normals, outNormals, o, flags);
        outNormals[o + 3] = 0;
      }
      if (flags & SkinFlags.TANGENTS) {
        transformDirection(c, tangents, outTangents, o, flags);
        outTangents[o + 3] = tangents[o + 3];
      }
    }
  }
  if (bounds) positionBounds(outPositions, v, bounds);
}

/**
 * Component-wise minimum (`bounds[0..3]`) and maximum (`bounds[4..7]`) of
 * the first `vertexCount` vertices of `positions`; +Infinity / -Infinity
 * when there are none.
 */
export function positionBounds(
  positions: Float32Array,
  vertexCount: number,
  bounds: Float32Array,
): void {
  bounds.fill(Infinity, 0, 4).fill(-Infinity, 4, 8);
  for (let v = 0; v < vertexCount; v++) {
    for (let e = 0; e < 4; e++) {
      const x = positions[v * 4 + e];
      if (x < bounds[e]) bounds[e] = x;
      if (x > bounds[4 + e]) bounds[4 + e] = x;
    }
  }
}

function transformDirection(
  c: Float64Array,
  input: Float32Array,
  out: Float32Array,
  o: number,
  flags: number,
): void {
  const x = input[o], y = input[o + 1], z = input[o + 2];
  let rx = c[0] * x + c[1] * y + c[2] * z;
  let ry = c[4] * x + c[5] * y + c[6] * z;
  let rz = c[8] * x + c[9] * y + c[10] * z;
  if (flags & SkinFlags.RENORMALIZE) {
    const len = Math.sqrt(rx * rx + ry * ry + rz * rz);
    const s = len > 0 ? 1 / len : 0;
    rx *= s, ry *= s, rz *= s;
  }
  out[o] = rx, out[o + 1] = ry, out[o + 2] = rz;
}
