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
// the skinning of a frame allocates nothing. Operands go through arrays,
// not arguments: a double passed to a function the compiler does not
// inline is boxed, a new heap number per argument per call.
const product = new Float64Array(4), rotated = new Float64Array(3);
/** The operands of {@linkcode multiply}: a, then b ([x, y, z, w] each). */
const factors = new Float64Array(8);
/** The operands of {@linkcode rotate}: q ([x, y, z, w]), then v. */
const rotation = new Float64Array(7);

/** Writes the quaternion product a b of `factors` into `product`. */
function multiply(): void {
  const a0 = factors[0], a1 = factors[1], a2 = factors[2], a3 = factors[3];
  const b0 = factors[4], b1 = factors[5], b2 = factors[6], b3 = factors[7];
  product[0] = a3 * b0 + b3 * a0 + a1 * b2 - a2 * b1;
  product[1] = a3 * b1 + b3 * a1 + a2 * b0 - a0 * b2;
  product[2] = a3 * b2 + b3 * a2 + a0 * b1 - a1 * b0;
  product[3] = a3 * b3 - a0 * b0 - a1 * b1 - a2 * b2;
}

/** Writes `v` rotated by the unit quaternion `q` (of `rotation`) into `rotated`: q (v, 0) q*. */
function rotate(): void {
  const qx = rotation[0], qy = rotation[1], qz = rotation[2], qw = rotation[3];
  factors[0] = qx, factors[1] = qy, factors[2] = qz, factors[3] = qw;
  factors[4] = rotation[4], factors[5] = rotation[5], factors[6] = rotation[6], factors[7] = 0;
  multiply();
  factors[0] = product[0], factors[1] = product[1], factors[2] = product[2];
  factors[3] = product[3];
  factors[4] = -qx, factors[5] = -qy, factors[6] = -qz, factors[7] = qw;
  multiply();
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
      factors[0] = d0 / length, factors[1] = d1 / length;
      factors[2] = d2 / length, factors[3] = d3 / length;
      factors[4] = -rx, factors[5] = -ry, factors[6] = -rz, factors[7] = rw;
      multiply();
      const t0 = 2 * product[0], t1 = 2 * product[1], t2 = 2 * product[2];
      const o = v * 4;
      rotation[0] = rx, rotation[1] = ry, rotation[2] = rz, rotation[3] = rw;
      rotation[4] = scale * positions[o];
      rotation[5] = scale * positions[o + 1];
      rotation[6] = scale * positions[o + 2];
      rotate();
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
        rotation[0] = rx, rotation[1] = ry, rotation[2] = rz, rotation[3] = rw;
        rotation[4] = normals[o], rotation[5] = normals[o + 1], rotation[6] = normals[o + 2];
        rotate();
        outNormals[o] = rotated[0], outNormals[o + 1] = rotated[1], outNormals[o + 2] = rotated[2];
        outNormals[o + 3] = 0;
      }
      if (flags & SkinFlags.TANGENTS) {
        rotation[0] = rx, rotation[1] = ry, rotation[2] = rz, rotation[3] = rw;
        rotation[4] = tangents[o], rotation[5] = tangents[o + 1], rotation[6] = tangents[o + 2];
        rotate();
        outTangents[o] = rotated[0], outTangents[o + 1] = rotated[1];
        outTangents[o + 2] = rotated[2], outTangents[o + 3] = tangents[o + 3];
      }
    }
  }
}
