/**
 * The IK solvers' vector arithmetic (`_ik_solve.ts`), in f64 on module
 * scratch: a joint's inverse, points and directions between spaces,
 * quaternions. Results go to {@linkcode out} (quaternions) and
 * {@linkcode v} (the last vector), as the AssemblyScript kernel keeps them
 * in globals.
 *
 * @module
 */

/**
 * Result of one chain: start and mid quaternions, then (`out[8]`) the
 * distance from the end joint to the target once the corrections are
 * applied, model space, and (`out[9]`) 1 when that distance is within
 * `IK_REACH_TOLERANCE`, else 0.
 */
export const out: Float64Array = new Float64Array(10);
/** The last vector a helper computed. */
export const v: Float64Array = new Float64Array(3);
/** Inverse of a joint's 3x3 part (row-major), its translation, its determinant. */
export const invA: Float64Array = new Float64Array(13);
/** As {@linkcode invA}, for a second joint. */
export const invB: Float64Array = new Float64Array(13);

/** `inv` = inverse of the 3x3 part of `m[o..]`; false when singular or not finite. */
export function invert(m: ArrayLike<number>, o: number, inv: Float64Array): boolean {
  const a = m[o], b = m[o + 1], c = m[o + 2];
  const d = m[o + 4], e = m[o + 5], f = m[o + 6];
  const g = m[o + 8], h = m[o + 9], k = m[o + 10];
  const c0 = e * k - f * h, c1 = f * g - d * k, c2 = d * h - e * g;
  const det = a * c0 + b * c1 + c * c2;
  if (!(det !== 0 && Number.isFinite(det))) return false;
  const r = 1 / det;
  inv[0] = c0 * r;
  inv[1] = (c * h - b * k) * r;
  inv[2] = (b * f - c * e) * r;
  inv[3] = c1 * r;
  inv[4] = (a * k - c * g) * r;
  inv[5] = (c * d - a * f) * r;
  inv[6] = c2 * r;
  inv[7] = (b * g - a * h) * r;
  inv[8] = (a * e - b * d) * r;
  inv[9] = m[o + 3];
  inv[10] = m[o + 7];
  inv[11] = m[o + 11];
  inv[12] = det;
  return true;
}

/** `v` = inverse(m) applied to point (x, y, z). */
export function toJoint(inv: Float64Array, x: number, y: number, z: number): void {
  x -= inv[9];
  y -= inv[10];
  z -= inv[11];
  v[0] = inv[0] * x + inv[1] * y + inv[2] * z;
  v[1] = inv[3] * x + inv[4] * y + inv[5] * z;
  v[2] = inv[6] * x + inv[7] * y + inv[8] * z;
}

/** `v` = inverse(m) applied to direction (x, y, z). */
export function toJointDirection(inv: Float64Array, x: number, y: number, z: number): void {
  v[0] = inv[0] * x + inv[1] * y + inv[2] * z;
  v[1] = inv[3] * x + inv[4] * y + inv[5] * z;
  v[2] = inv[6] * x + inv[7] * y + inv[8] * z;
}

/** `v` = the 3x3 part of `m[o..]` applied to direction (x, y, z). */
export function toModelDirection(
  m: ArrayLike<number>,
  o: number,
  x: number,
  y: number,
  z: number,
): void {
  v[0] = m[o] * x + m[o + 1] * y + m[o + 2] * z;
  v[1] = m[o + 4] * x + m[o + 5] * y + m[o + 6] * z;
  v[2] = m[o + 8] * x + m[o + 9] * y + m[o + 10] * z;
}

/** `v` = quaternion q (at `out[o..]`) applied to (x, y, z). */
export function rotate(q: Float64Array, o: number, x: number, y: number, z: number): void {
  const qx = q[o], qy = q[o + 1], qz = q[o + 2], qw = q[o + 3];
  // t = 2 q.xyz × v; v' = v + w t + q.xyz × t
  const tx = 2 * (qy * z - qz * y), ty = 2 * (qz * x - qx * z), tz = 2 * (qx * y - qy * x);
  v[0] = x + qw * tx + (qy * tz - qz * ty);
  v[1] = y + qw * ty + (qz * tx - qx * tz);
  v[2] = z + qw * tz + (qx * ty - qy * tx);
}

/** `out[o..]` = the shortest rotation of u onto v (identity when either is 0). */
export function fromVectors(
  o: number,
  ux: number,
  uy: number,
  uz: number,
  vx: number,
  vy: number,
  vz: number,
): void {
  const norms = Math.sqrt((ux * ux + uy * uy + uz * uz) * (vx * vx + vy * vy + vz * vz));
  const real = norms + ux * vx + uy * vy + uz * vz;
  let x: number, y: number, z: number, w: number;
  if (!(norms > 0)) {
    x = y = z = 0;
    w = 1;
  } else if (real < 1e-6 * norms) {
    // Opposite vectors: half a turn around any axis orthogonal to u.
    w = 0;
    if (Math.abs(ux) > Math.abs(uz)) {
      x = -uy;
      y = ux;
      z = 0;
    } else {
      x = 0;
      y = -uz;
      z = uy;
    }
  } else {
    x = uy * vz - uz * vy;
    y = uz * vx - ux * vz;
    z = ux * vy - uy * vx;
    w = real;
  }
  const r = 1 / Math.sqrt(x * x + y * y + z * z + w * w);
  out[o] = x * r;
  out[o + 1] = y * r;
  out[o + 2] = z * r;
  out[o + 3] = w * r;
}

/** `out[o..]` = `a * out[o..]` for quaternion a. */
export function premultiply(o: number, ax: number, ay: number, az: number, aw: number): void {
  const bx = out[o], by = out[o + 1], bz = out[o + 2], bw = out[o + 3];
  out[o] = aw * bx + ax * bw + ay * bz - az * by;
  out[o + 1] = aw * by - ax * bz + ay * bw + az * bx;
  out[o + 2] = aw * bz + ax * by - ay * bx + az * bw;
  out[o + 3] = aw * bw - ax * bx - ay * by - az * bz;
}

/** Clamps to [-1, 1]. */
export function clampUnit(x: number): number {
  return x < -1 ? -1 : x > 1 ? 1 : x;
}

/** Makes `out[o..]`'s w >= 0 and, for a weight below 1, nlerps it from identity. */
export function weigh(o: number, weight: number): void {
  const sign = out[o + 3] < 0 ? -1 : 1;
  let x = out[o] * sign, y = out[o + 1] * sign, z = out[o + 2] * sign, w = out[o + 3] * sign;
  if (weight < 1) {
    const k = Math.max(0, weight);
    x *= k;
    y *= k;
    z *= k;
    w = 1 + (w - 1) * k;
    const r = 1 / Math.sqrt(x * x + y * y + z * z + w * w);
    x *= r;
    y *= r;
    z *= r;
    w *= r;
  }
  out[o] = x;
  out[o + 1] = y;
  out[o + 2] = z;
  out[o + 3] = w;
}
