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

import { SkinFlags } from "../memory/layout.ts";
import { convertToDualQuaternions, DUAL_QUATERNION_FLOATS } from "../kernels/internal.ts";
import { hypotArgs, hypotOf } from "../kernels/internal.ts";

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

// Scratch of the quaternion products (synchronous, so sharing is safe):
// the skinning of a frame allocates nothing.
const product = new Float64Array(4), rotated = new Float64Array(3);

/** Writes the quaternion product a b ([x, y, z, w]) into `product`. */
function multiply(
  a0: number,
  a1: number,
  a2: number,
  a3: number,
  b0: number,
  b1: number,
  b2: number,
  b3: number,
): void {
  product[0] = a3 * b0 + b3 * a0 + a1 * b2 - a2 * b1;
  product[1] = a3 * b1 + b3 * a1 + a2 * b0 - a0 * b2;
  product[2] = a3 * b2 + b3 * a2 + a0 * b1 - a1 * b0;
  product[3] = a3 * b3 - a0 * b0 - a1 * b1 - a2 * b2;
}

/** Writes `v` rotated by the unit quaternion `q` into `rotated`: q (v, 0) q*. */
function rotate(
  qx: number,
  qy: number,
  qz: number,
  qw: number,
  v0: number,
  v1: number,
  v2: number,
): void {
  multiply(qx, qy, qz, qw, v0, v1, v2, 0);
  multiply(product[0], product[1], product[2], product[3], -qx, -qy, -qz, qw);
  rotated[0] = product[0], rotated[1] = product[1], rotated[2] = product[2];
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
      const first = joints[k] * DUAL_QUATERNION_FLOATS;
      const q0 = table[first], q1 = table[first + 1], q2 = table[first + 2], q3 = table[first + 3];
      let r0 = 0, r1 = 0, r2 = 0, r3 = 0, d0 = 0, d1 = 0, d2 = 0, d3 = 0;
      let scale = 0, weightSum = 0;
      for (let i = 0; i < used; i++) {
        const w = used === 1 ? 1 : weights[k + i], o = joints[k + i] * DUAL_QUATERNION_FLOATS;
        const x = table[o], y = table[o + 1], z = table[o + 2], qw = table[o + 3];
        const sign = x * q0 + y * q1 + z * q2 + qw * q3 < 0 ? -1 : 1;
        r0 += sign * w * x, r1 += sign * w * y, r2 += sign * w * z, r3 += sign * w * qw;
        d0 += sign * w * table[o + 4], d1 += sign * w * table[o + 5];
        d2 += sign * w * table[o + 6], d3 += sign * w * table[o + 7];
        scale += w * table[o + 8];
        weightSum += w;
      }
      scale /= weightSum;
      hypotArgs[0] = r0, hypotArgs[1] = r1, hypotArgs[2] = r2, hypotArgs[3] = r3;
      hypotOf(4);
      const length = hypotArgs[4];
      const rx = r0 / length, ry = r1 / length, rz = r2 / length, rw = r3 / length;
      multiply(d0 / length, d1 / length, d2 / length, d3 / length, -rx, -ry, -rz, rw);
      const t0 = 2 * product[0], t1 = 2 * product[1], t2 = 2 * product[2];
      const o = v * 4;
      rotate(
        rx,
        ry,
        rz,
        rw,
        scale * positions[o],
        scale * positions[o + 1],
        scale * positions[o + 2],
      );
      outPositions[o] = rotated[0] + t0;
      outPositions[o + 1] = rotated[1] + t1;
      outPositions[o + 2] = rotated[2] + t2;
      outPositions[o + 3] = 1;
      if (bounds) {
        for (let c = 0; c < 4; c++) {
          bounds[c] = Math.min(bounds[c], outPositions[o + c]);
          bounds[4 + c] = Math.max(bounds[4 + c], outPositions[o + c]);
        }
      }
      if (flags & SkinFlags.NORMALS) {
        rotate(rx, ry, rz, rw, normals[o], normals[o + 1], normals[o + 2]);
        outNormals[o] = rotated[0], outNormals[o + 1] = rotated[1], outNormals[o + 2] = rotated[2];
        outNormals[o + 3] = 0;
      }
      if (flags & SkinFlags.TANGENTS) {
        rotate(rx, ry, rz, rw, tangents[o], tangents[o + 1], tangents[o + 2]);
        outTangents[o] = rotated[0], outTangents[o + 1] = rotated[1];
        outTangents[o + 2] = rotated[2], outTangents[o + 3] = tangents[o + 3];
      }
    }
  }
}
