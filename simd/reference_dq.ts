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

import { MATRIX_FLOATS, SkinFlags } from "./layout.ts";

/**
 * Floats per joint in a dual-quaternion table: qr (xyzw), qd (xyzw), scale,
 * 1 / scale, 2 unused, then the palette matrix (3x4), which the core applies
 * to vertices with one used influence (the same rigid transform).
 */
export const DUAL_QUATERNION_FLOATS = 24;

/** Relative tolerance of {@linkcode paletteToDualQuaternions}' rigidity test. */
const RIGID_TOLERANCE = 1e-3;

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
  for (let j = 0; j < count; j++) {
    const m = j * MATRIX_FLOATS;
    const e = (r: number, c: number) => palette[m + r * 4 + c];
    const col = (c: number) => [e(0, c), e(1, c), e(2, c)];
    const [x, y, z] = [col(0), col(1), col(2)];
    const sx = Math.hypot(...x), sy = Math.hypot(...y), sz = Math.hypot(...z);
    const s = (sx + sy + sz) / 3;
    const dot = (a: number[], b: number[]) => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
    const det = dot(x, [
      y[1] * z[2] - y[2] * z[1],
      y[2] * z[0] - y[0] * z[2],
      y[0] * z[1] - y[1] * z[0],
    ]);
    const tol = RIGID_TOLERANCE * s;
    if (
      !(s > 0) || !(det > 0) || Math.abs(sx - s) > tol || Math.abs(sy - s) > tol ||
      Math.abs(sz - s) > tol || Math.abs(dot(x, y)) > tol * s || Math.abs(dot(x, z)) > tol * s ||
      Math.abs(dot(y, z)) > tol * s
    ) {
      return j;
    }
    // Shoemake's rotation matrix to quaternion, on R = M / s.
    const r = (rr: number, c: number) => e(rr, c) / s;
    const trace = r(0, 0) + r(1, 1) + r(2, 2);
    let qx: number, qy: number, qz: number, qw: number;
    if (trace > 0) {
      const k = 0.5 / Math.sqrt(trace + 1);
      qw = 0.25 / k;
      qx = (r(2, 1) - r(1, 2)) * k;
      qy = (r(0, 2) - r(2, 0)) * k;
      qz = (r(1, 0) - r(0, 1)) * k;
    } else if (r(0, 0) > r(1, 1) && r(0, 0) > r(2, 2)) {
      const k = 2 * Math.sqrt(1 + r(0, 0) - r(1, 1) - r(2, 2));
      qw = (r(2, 1) - r(1, 2)) / k;
      qx = 0.25 * k;
      qy = (r(0, 1) + r(1, 0)) / k;
      qz = (r(0, 2) + r(2, 0)) / k;
    } else if (r(1, 1) > r(2, 2)) {
      const k = 2 * Math.sqrt(1 + r(1, 1) - r(0, 0) - r(2, 2));
      qw = (r(0, 2) - r(2, 0)) / k;
      qx = (r(0, 1) + r(1, 0)) / k;
      qy = 0.25 * k;
      qz = (r(1, 2) + r(2, 1)) / k;
    } else {
      const k = 2 * Math.sqrt(1 + r(2, 2) - r(0, 0) - r(1, 1));
      qw = (r(1, 0) - r(0, 1)) / k;
      qx = (r(0, 2) + r(2, 0)) / k;
      qy = (r(1, 2) + r(2, 1)) / k;
      qz = 0.25 * k;
    }
    const n = Math.hypot(qx, qy, qz, qw);
    qx /= n, qy /= n, qz /= n, qw /= n;
    const tx = e(0, 3), ty = e(1, 3), tz = e(2, 3);
    // qd = ½ (t, 0) qr
    const o = j * DUAL_QUATERNION_FLOATS;
    out[o] = qx, out[o + 1] = qy, out[o + 2] = qz, out[o + 3] = qw;
    out[o + 4] = 0.5 * (tx * qw + ty * qz - tz * qy);
    out[o + 5] = 0.5 * (-tx * qz + ty * qw + tz * qx);
    out[o + 6] = 0.5 * (tx * qy - ty * qx + tz * qw);
    out[o + 7] = -0.5 * (tx * qx + ty * qy + tz * qz);
    out[o + 8] = s;
    out[o + 9] = 1 / s;
    out[o + 10] = out[o + 11] = 0;
    out.set(palette.subarray(m, m + MATRIX_FLOATS), o + 12);
  }
  return -1;
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
