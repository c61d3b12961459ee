/**
 * The scalar twin's matrix kernels over a hierarchy: local→model,
 * model→local and the palette's multiply, on 3x4 matrices in row-major
 * order (`../memory/layout.ts`). Their own module so that the IK solve
 * (`ik.ts`) uses them without importing the twin's entry, which re-exports
 * the IK solve.
 *
 * @module
 */

import { MATRIX_FLOATS } from "../memory/layout.ts";

/** `out[o] = a[ia] * b[ib]` for 3x4 matrices at matrix indices. */
function multiplyAt(
  a: Float32Array,
  ia: number,
  b: Float32Array,
  ib: number,
  out: Float32Array,
  o: number,
): void {
  const A = ia * MATRIX_FLOATS, B = ib * MATRIX_FLOATS, O = o * MATRIX_FLOATS;
  const b0 = b[B], b1 = b[B + 1], b2 = b[B + 2], b3 = b[B + 3];
  const b4 = b[B + 4], b5 = b[B + 5], b6 = b[B + 6], b7 = b[B + 7];
  const b8 = b[B + 8], b9 = b[B + 9], b10 = b[B + 10], b11 = b[B + 11];
  for (let r = 0; r < 12; r += 4) {
    const a0 = a[A + r], a1 = a[A + r + 1], a2 = a[A + r + 2];
    const a3 = a[A + r + 3];
    out[O + r] = a0 * b0 + a1 * b4 + a2 * b8;
    out[O + r + 1] = a0 * b1 + a1 * b5 + a2 * b9;
    out[O + r + 2] = a0 * b2 + a1 * b6 + a2 * b10;
    out[O + r + 3] = a0 * b3 + a1 * b7 + a2 * b11 + a3;
  }
}

/**
 * Local to model space over joints `first..last` (inclusive):
 * `model[i] = model[parents[i]] * local[i]`, or `local[i]` for a root
 * (`parents[i] < 0`). Parents must come before their children.
 */
export function localToModel(
  local: Float32Array,
  model: Float32Array,
  parents: Int16Array,
  first: number,
  last: number,
): void {
  for (let i = first; i <= last; i++) {
    const p = parents[i];
    if (p < 0) {
      // Copied, not `set` from a subarray: a view a root a call.
      for (let k = i * MATRIX_FLOATS; k < (i + 1) * MATRIX_FLOATS; k++) model[k] = local[k];
    } else {
      multiplyAt(model, p, local, i, model, i);
    }
  }
}

/** A parent's inverse, rewritten by each joint of {@linkcode modelToLocal} (no array a call). */
const inverseScratch = new Float32Array(MATRIX_FLOATS);

/**
 * Model to local space over joints `last` down to `first`:
 * `local[i] = inverse(model[parents[i]]) * model[i]`, or `model[i]` for a
 * root. `local` may be `model` itself (the walk keeps parents in model space
 * until their children are done). The inverse is the general affine one; a
 * singular parent gives non-finite children.
 */
export function modelToLocal(
  model: Float32Array,
  local: Float32Array,
  parents: Int16Array,
  first: number,
  last: number,
): void {
  const inv = inverseScratch;
  for (let i = last; i >= first; i--) {
    const p = parents[i];
    if (p < 0) {
      for (let k = i * MATRIX_FLOATS; k < (i + 1) * MATRIX_FLOATS; k++) local[k] = model[k];
      continue;
    }
    invertAt(model, p, inv);
    multiplyAt(inv, 0, model, i, local, i);
  }
}

/** Writes the affine inverse of matrix `index` of `m` into `out[0..12]`. */
function invertAt(m: Float32Array, index: number, out: Float32Array): void {
  const o = index * MATRIX_FLOATS;
  const a = m[o], b = m[o + 1], c = m[o + 2], tx = m[o + 3];
  const d = m[o + 4], e = m[o + 5], f = m[o + 6], ty = m[o + 7];
  const g = m[o + 8], h = m[o + 9], k = m[o + 10], tz = m[o + 11];
  const c0 = e * k - f * h, c1 = f * g - d * k, c2 = d * h - e * g;
  const inv = 1 / (a * c0 + b * c1 + c * c2);
  const r0 = c0 * inv, r1 = (c * h - b * k) * inv, r2 = (b * f - c * e) * inv;
  const r4 = c1 * inv, r5 = (a * k - c * g) * inv, r6 = (c * d - a * f) * inv;
  const r8 = c2 * inv, r9 = (b * g - a * h) * inv, r10 = (a * e - b * d) * inv;
  out[0] = r0, out[1] = r1, out[2] = r2;
  out[3] = -(r0 * tx + r1 * ty + r2 * tz);
  out[4] = r4, out[5] = r5, out[6] = r6;
  out[7] = -(r4 * tx + r5 * ty + r6 * tz);
  out[8] = r8, out[9] = r9, out[10] = r10;
  out[11] = -(r8 * tx + r9 * ty + r10 * tz);
}

/** `out[i] = a[i] * b[i]` for `count` 3x4 matrices (model × inverse bind). */
export function multiplyMatrices(
  a: Float32Array,
  b: Float32Array,
  out: Float32Array,
  count: number,
): void {
  for (let i = 0; i < count; i++) multiplyAt(a, i, b, i, out, i);
}
