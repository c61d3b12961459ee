/**
 * The per-frame conversion of palette matrices to dual quaternions, in
 * place in one `Float32Array` (the core's memory): the scalar reference's
 * `paletteToDualQuaternions` (`reference_dq.ts`) is this function over
 * arrays of its own. It allocates nothing: a dual-quaternion skin converts
 * its palette every frame.
 *
 * @module
 */

import { MATRIX_FLOATS } from "../memory/layout.ts";
import { hypotArgs, hypotOf } from "./_hypot.ts";

/**
 * Floats per joint in a dual-quaternion table: qr (xyzw), qd (xyzw), scale,
 * 1 / scale, 2 unused, then the palette matrix (3x4), which the core applies
 * to vertices with one used influence (the same rigid transform).
 */
export const DUAL_QUATERNION_FLOATS = 24;

/** Relative tolerance of the rigidity test. */
const RIGID_TOLERANCE = 1e-3;

/**
 * Converts `count` palette matrices (3x4, row-major) at float index
 * `palette` of `f32` to dual quaternions (see
 * {@linkcode DUAL_QUATERNION_FLOATS}) at float index `out` of `into` (which
 * may be `f32`, the regions apart). A matrix must be
 * a rotation times a uniform positive scale, plus a translation: returns the
 * first joint that is not (columns of unequal length or not orthogonal
 * beyond a relative 1e-3, a mirror, or a zero scale), or -1 when all are;
 * the joints before it are written.
 */
export function convertToDualQuaternions(
  f32: Float32Array,
  palette: number,
  count: number,
  into: Float32Array,
  out: number,
): number {
  for (let j = 0; j < count; j++) {
    const m = palette + j * MATRIX_FLOATS;
    const x0 = f32[m], x1 = f32[m + 4], x2 = f32[m + 8];
    const y0 = f32[m + 1], y1 = f32[m + 5], y2 = f32[m + 9];
    const z0 = f32[m + 2], z1 = f32[m + 6], z2 = f32[m + 10];
    hypotArgs[0] = x0, hypotArgs[1] = x1, hypotArgs[2] = x2;
    hypotOf(3);
    const sx = hypotArgs[4];
    hypotArgs[0] = y0, hypotArgs[1] = y1, hypotArgs[2] = y2;
    hypotOf(3);
    const sy = hypotArgs[4];
    hypotArgs[0] = z0, hypotArgs[1] = z1, hypotArgs[2] = z2;
    hypotOf(3);
    const sz = hypotArgs[4];
    const s = (sx + sy + sz) / 3;
    const det = x0 * (y1 * z2 - y2 * z1) + x1 * (y2 * z0 - y0 * z2) + x2 * (y0 * z1 - y1 * z0);
    const tol = RIGID_TOLERANCE * s;
    if (
      !(s > 0) || !(det > 0) || Math.abs(sx - s) > tol || Math.abs(sy - s) > tol ||
      Math.abs(sz - s) > tol || Math.abs(x0 * y0 + x1 * y1 + x2 * y2) > tol * s ||
      Math.abs(x0 * z0 + x1 * z1 + x2 * z2) > tol * s ||
      Math.abs(y0 * z0 + y1 * z1 + y2 * z2) > tol * s
    ) {
      return j;
    }
    // Shoemake's rotation matrix to quaternion, on R = M / s.
    const r00 = x0 / s, r10 = x1 / s, r20 = x2 / s;
    const r01 = y0 / s, r11 = y1 / s, r21 = y2 / s;
    const r02 = z0 / s, r12 = z1 / s, r22 = z2 / s;
    const trace = r00 + r11 + r22;
    let qx = 0, qy = 0, qz = 0, qw = 0;
    if (trace > 0) {
      const k = 0.5 / Math.sqrt(trace + 1);
      qw = 0.25 / k;
      qx = (r21 - r12) * k;
      qy = (r02 - r20) * k;
      qz = (r10 - r01) * k;
    } else if (r00 > r11 && r00 > r22) {
      const k = 2 * Math.sqrt(1 + r00 - r11 - r22);
      qw = (r21 - r12) / k;
      qx = 0.25 * k;
      qy = (r01 + r10) / k;
      qz = (r02 + r20) / k;
    } else if (r11 > r22) {
      const k = 2 * Math.sqrt(1 + r11 - r00 - r22);
      qw = (r02 - r20) / k;
      qx = (r01 + r10) / k;
      qy = 0.25 * k;
      qz = (r12 + r21) / k;
    } else {
      const k = 2 * Math.sqrt(1 + r22 - r00 - r11);
      qw = (r10 - r01) / k;
      qx = (r02 + r20) / k;
      qy = (r12 + r21) / k;
      qz = 0.25 * k;
    }
    hypotArgs[0] = qx, hypotArgs[1] = qy, hypotArgs[2] = qz, hypotArgs[3] = qw;
    hypotOf(4);
    const n = hypotArgs[4];
    qx /= n, qy /= n, qz /= n, qw /= n;
    const tx = f32[m + 3], ty = f32[m + 7], tz = f32[m + 11];
    // qd = ½ (t, 0) qr
    const o = out + j * DUAL_QUATERNION_FLOATS;
    into[o] = qx, into[o + 1] = qy, into[o + 2] = qz, into[o + 3] = qw;
    into[o + 4] = 0.5 * (tx * qw + ty * qz - tz * qy);
    into[o + 5] = 0.5 * (-tx * qz + ty * qw + tz * qx);
    into[o + 6] = 0.5 * (tx * qy - ty * qx + tz * qw);
    into[o + 7] = -0.5 * (tx * qx + ty * qy + tz * qz);
    into[o + 8] = s;
    into[o + 9] = 1 / s;
    into[o + 10] = into[o + 11] = 0;
    // Copied as bytes (NaN payloads kept), as TypedArray.set did.
    if (into === f32) f32.copyWithin(o + 12, m, m + MATRIX_FLOATS);
    else for (let i = 0; i < MATRIX_FLOATS; i++) into[o + 12 + i] = f32[m + i];
  }
  return -1;
}
