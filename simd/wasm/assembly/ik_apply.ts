// Applying an IK correction (`ik.ts`): a joint's local matrix times the
// rotation of a quaternion, with SIMD, translations kept.

import { MATRIX_BYTES } from "./abi";

/** `local = local * R(q)` for the matrix at `p`: rows times R, translations kept. */
export function rotateLocal(p: usize, x: f64, y: f64, z: f64, w: f64): void {
  const x2 = x + x, y2 = y + y, z2 = z + z;
  const xx = x * x2, yy = y * y2, zz = z * z2, xy = x * y2, xz = x * z2, yz = y * z2;
  const wx = w * x2, wy = w * y2, wz = w * z2;
  // Rows of R, lane 3 zero: a row (a, b, c, t) becomes a R0 + b R1 + c R2 + (0, 0, 0, t).
  const r0 = f32x4(<f32>(1 - (yy + zz)), <f32>(xy - wz), <f32>(xz + wy), 0);
  const r1 = f32x4(<f32>(xy + wz), <f32>(1 - (xx + zz)), <f32>(yz - wx), 0);
  const r2 = f32x4(<f32>(xz - wy), <f32>(yz + wx), <f32>(1 - (xx + yy)), 0);
  const zero = f32x4.splat(0);
  for (let o: usize = 0; o < <usize>MATRIX_BYTES; o += 16) {
    const a = v128.load(p + o);
    const sum = f32x4.add(
      f32x4.add(
        f32x4.mul(f32x4.shuffle(a, a, 0, 0, 0, 0), r0),
        f32x4.mul(f32x4.shuffle(a, a, 1, 1, 1, 1), r1),
      ),
      f32x4.add(
        f32x4.mul(f32x4.shuffle(a, a, 2, 2, 2, 2), r2),
        f32x4.shuffle(zero, a, 0, 1, 2, 7),
      ),
    );
    v128.store(p + o, sum);
  }
}
