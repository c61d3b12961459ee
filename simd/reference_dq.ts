/**
 * Scalar reference of dual-quaternion skinning (Kavan, Collins, Žára and
 * O'Sullivan 2007, "Skinning with dual quaternions"), re-exported by
 * `reference.ts` (`@marrow/anim/reference`).
 *
 * A joint's unit dual quaternion is `q = qr + ε qd` with `qd = ½ t qr` for
 * rotation `qr` and translation `t`. Per vertex the joints' dual quaternions
 * are blended, `b = Σ w_k q_k`, where `q_k` is negated when `qr_k · qr_0 <
 * 0` (antipodality: the shorter arc), then normalised, `c = b / |b.qr|`;
 * `p' = c.qr (s p) c.qr* + t` with `t = 2 c.qd c.qr*` (vector part);
 * normals and tangents are rotated by `c.qr`. A per-joint uniform scale
 * `s_j` is blended linearly, `s = Σ w_k s_k / Σ w_k`, and applied before the
 * rotation. A single used influence is rigid.
 *
 * @module
 */

import { SkinFlags } from "./layout.ts";
import { convertToDualQuaternions, DUAL_QUATERNION_FLOATS } from "./_dual_quaternions.ts";

export { DUAL_QUATERNION_FLOATS };

/**
 * Converts `count` palette matrices (3x4, row-major) to dual quaternions
 * (see {@linkcode DUAL_QUATERNION_FLOATS}) in `out`. A matrix must be a
 * rotation times a uniform positive scale, plus a translation: returns the
 * first joint that is not (columns of unequal length or not orthogonal
 * beyond a relative 1e-3, a mirror, or a zero scale), or -1 when all are.
 */
export function paletteToDualQuaternions(
  palette: Float32Array,
  count: number,
  out: Float32Array,
): number {
  return convertToDualQuaternions(palette, 0, count, out, 0);
}

/** The quaternion product a b, [x, y, z, w]. */
function multiply(a: number[], b: number[]): number[] {
  return [
    a[3] * b[0] + b[3] * a[0] + a[1] * b[2] - a[2] * b[1],
    a[3] * b[1] + b[3] * a[1] + a[2] * b[0] - a[0] * b[2],
    a[3] * b[2] + b[3] * a[2] + a[0] * b[1] - a[1] * b[0],
    a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2],
  ];
}

const conjugate = (q: number[]) => [-q[0], -q[1], -q[2], q[3]];

/** `v` rotated by the unit quaternion `q`: q (v, 0) q*. */
function rotate(q: number[], v: number[]): number[] {
  return multiply(multiply(q, [v[0], v[1], v[2], 0]), conjugate(q)).slice(0, 3);
}

/**
 * Dual-quaternion skinning with the arguments of `skinVertices`, `table`
 * (from {@linkcode paletteToDualQuaternions}) in place of the palette: see
 * the module documentation. `RENORMALIZE` has no effect (rotations keep
 * lengths). With `bounds` (8 floats), the positions' min (0..3) and max
 * (4..7).
 */
export function skinDualQuaternions(
  table: Float32Array,
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
  let v = 0, k = 0;
  bounds?.fill(Infinity, 0, 4).fill(-Infinity, 4, 8);
  for (let p = 0; p < parts.length; p += 2) {
    const n = parts[p], end = v + parts[p + 1];
    const used = Math.min(n, maxInfluences);
    for (; v < end; v++, k += n) {
      if (used < 1) continue;
      const at = (i: number) => joints[k + i] * DUAL_QUATERNION_FLOATS;
      const q0 = Array.from(table.subarray(at(0), at(0) + 4));
      const real = [0, 0, 0, 0], dual = [0, 0, 0, 0];
      let scale = 0, weightSum = 0;
      for (let i = 0; i < used; i++) {
        const w = used === 1 ? 1 : weights[k + i], o = at(i);
        const qr = Array.from(table.subarray(o, o + 4));
        const sign = qr[0] * q0[0] + qr[1] * q0[1] + qr[2] * q0[2] + qr[3] * q0[3] < 0 ? -1 : 1;
        for (let c = 0; c < 4; c++) {
          real[c] += sign * w * qr[c];
          dual[c] += sign * w * table[o + 4 + c];
        }
        scale += w * table[o + 8];
        weightSum += w;
      }
      scale /= weightSum;
      const length = Math.hypot(...real);
      const r = real.map((x) => x / length), d = dual.map((x) => x / length);
      const t = multiply(d, conjugate(r)).map((x) => 2 * x);
      const o = v * 4;
      const sp = [0, 1, 2].map((c) => scale * positions[o + c]);
      const moved = rotate(r, sp);
      for (let c = 0; c < 3; c++) outPositions[o + c] = moved[c] + t[c];
      outPositions[o + 3] = 1;
      if (bounds) {
        for (let c = 0; c < 4; c++) {
          bounds[c] = Math.min(bounds[c], outPositions[o + c]);
          bounds[4 + c] = Math.max(bounds[4 + c], outPositions[o + c]);
        }
      }
      if (flags & SkinFlags.NORMALS) {
        const rn = rotate(r, Array.from(normals.subarray(o, o + 3)));
        outNormals.set([rn[0], rn[1], rn[2], 0], o);
      }
      if (flags & SkinFlags.TANGENTS) {
        const rt = rotate(r, Array.from(tangents.subarray(o, o + 3)));
        outTangents.set([rt[0], rt[1], rt[2], tangents[o + 3]], o);
      }
    }
  }
}
