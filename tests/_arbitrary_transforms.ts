/**
 * Arbitraries of transforms for the kernel tests: unit quaternions (with
 * the exact special cases), TRS joint poses and their SoA×4 pose arrays,
 * affine 3x4 matrices with scale, shear and reflection, hierarchies
 * (parents before children); and the layout conversions to the 4x4
 * column-major matrices of gl-matrix and three.js.
 *
 * @module
 */

import fc from "fast-check";
import { mat4 } from "gl-matrix";
import { MATRIX_FLOATS, type PoseField, poseFloats, poseIndex } from "../kernels.ts";
import { real } from "./_arbitrary_numbers.ts";

// --------------------------------------------------------------- rotations

/** `[x, y, z]`. */
export type Vec3 = [number, number, number];
/** `[x, y, z, w]`, Hamilton, unit. */
export type Quat = [number, number, number, number];

/** `q / |q|`, or the identity when `q` is (almost) zero. */
export function normalizeQuat([x, y, z, w]: readonly number[]): Quat {
  const n = Math.hypot(x, y, z, w);
  return n < 1e-3 ? [0, 0, 0, 1] : [x / n, y / n, z / n, w / n];
}

const H = Math.SQRT1_2;
/** Axis-aligned rotations, both signs, and other exact cases. */
export const SPECIAL_QUATS: readonly Quat[] = [
  [0, 0, 0, 1],
  [0, 0, 0, -1],
  [H, 0, 0, H],
  [0, H, 0, H],
  [0, 0, H, H],
  [-H, 0, 0, H],
  [0, -H, 0, -H],
  [1, 0, 0, 0],
  [0, 1, 0, 0],
  [0, 0, 1, 0],
  [0, 0, -1, 0],
  [0.5, 0.5, 0.5, 0.5],
  [0.5, -0.5, 0.5, -0.5],
];

/** Unit quaternions: random directions and {@linkcode SPECIAL_QUATS}. */
export const quatArb: fc.Arbitrary<Quat> = fc.oneof(
  {
    weight: 9,
    arbitrary: fc.tuple(real(-1, 1), real(-1, 1), real(-1, 1), real(-1, 1))
      .map(normalizeQuat),
  },
  { weight: 1, arbitrary: fc.constantFrom(...SPECIAL_QUATS) },
);

// ------------------------------------------------------------------- poses

/** A joint pose: translation, rotation, scale. */
export interface Trs {
  t: Vec3;
  q: Quat;
  s: Vec3;
}

/** Ranges of {@linkcode trsArb}. */
export interface TrsOptions {
  /** Translations in `[-translation, translation]`. Default 10. */
  translation?: number;
  /** Scale magnitudes in `[minScale, maxScale]`. Default 0.25. */
  minScale?: number;
  /** Default 4. */
  maxScale?: number;
  /** Allow negative scale components. Default false. */
  negativeScale?: boolean;
}

/** Joint poses; a quarter of them have unit scale. */
export function trsArb(options: TrsOptions = {}): fc.Arbitrary<Trs> {
  const {
    translation = 10,
    minScale = 0.25,
    maxScale = 4,
    negativeScale = false,
  } = options;
  const t = real(-translation, translation);
  const magnitude = real(minScale, maxScale);
  const s = negativeScale
    ? fc.tuple(magnitude, fc.boolean()).map(([m, neg]) => neg ? -m : m)
    : magnitude;
  return fc.record({
    t: fc.tuple(t, t, t),
    q: quatArb,
    s: fc.oneof(
      { weight: 3, arbitrary: fc.tuple(s, s, s) },
      { weight: 1, arbitrary: fc.constant<Vec3>([1, 1, 1]) },
    ),
  });
}

/**
 * A SoA×4 pose array of `jointCount` joints (at least `joints.length`):
 * `joints` first, every other float (joints past them and the padding
 * lanes of the last group) set to `filler`.
 */
export function poseArray(
  joints: readonly Trs[],
  jointCount: number = joints.length,
  filler = NaN,
): Float32Array {
  const pose = new Float32Array(
    poseFloats(Math.max(jointCount, joints.length)),
  ).fill(filler);
  joints.forEach(({ t, q, s }, j) => {
    [...t, ...q, ...s].forEach((value, field) => {
      pose[poseIndex(j, field as PoseField)] = value;
    });
  });
  return pose;
}

/** Joint `joint` of a SoA×4 pose array. */
export function readJoint(pose: ArrayLike<number>, joint: number): Trs {
  const f = (field: number) => pose[poseIndex(joint, field as PoseField)];
  return {
    t: [f(0), f(1), f(2)],
    q: [f(3), f(4), f(5), f(6)],
    s: [f(7), f(8), f(9)],
  };
}

// ---------------------------------------------------------------- matrices

/** Matrix `index` of 3x4 row-major `m` as a 4x4 column-major array. */
export function toColumnMajor(m: ArrayLike<number>, index = 0): Float64Array {
  const o = index * MATRIX_FLOATS;
  const out = new Float64Array(16);
  for (let r = 0; r < 3; r++) {
    for (let c = 0; c < 4; c++) out[c * 4 + r] = m[o + r * 4 + c];
  }
  out[15] = 1;
  return out;
}

/** A 4x4 column-major affine matrix as 3x4 row-major (last row dropped). */
export function fromColumnMajor(a: ArrayLike<number>): Float64Array {
  const out = new Float64Array(MATRIX_FLOATS);
  for (let r = 0; r < 3; r++) {
    for (let c = 0; c < 4; c++) out[r * 4 + c] = a[c * 4 + r];
  }
  return out;
}

/** `T * R * S` of a joint pose, computed by gl-matrix in double. */
export function trsMatrix({ t, q, s }: Trs): Float32Array {
  const m = mat4.fromRotationTranslationScale(
    new Float64Array(16) as unknown as mat4,
    q,
    t,
    s,
  );
  return Float32Array.from(fromColumnMajor(m));
}

/** Matrices concatenated into one array of 12 floats each. */
export function concatMatrices(
  list: readonly ArrayLike<number>[],
): Float32Array {
  const out = new Float32Array(list.length * MATRIX_FLOATS);
  list.forEach((m, i) => out.set(Array.from(m), i * MATRIX_FLOATS));
  return out;
}

/** Ranges of {@linkcode affineArb}. */
export interface AffineOptions {
  /** Translations in `[-translation, translation]`. Default 10. */
  translation?: number;
  /** Singular values in `[minScale, maxScale]`. Default 0.5. */
  minScale?: number;
  /** Default 2. */
  maxScale?: number;
}

/**
 * General affine 3x4 matrices `R1 * diag(s) * R2 + t` (rotation, scale
 * and shear; condition number at most `maxScale / minScale`), with a
 * reflection in one case out of eight.
 */
export function affineArb(
  options: AffineOptions = {},
): fc.Arbitrary<Float32Array> {
  const { translation = 10, minScale = 0.5, maxScale = 2 } = options;
  const t = real(-translation, translation);
  const s = real(minScale, maxScale);
  return fc.tuple(
    quatArb,
    quatArb,
    fc.tuple(s, s, s),
    fc.tuple(t, t, t),
    fc.integer({ min: 0, max: 7 }),
  ).map(([q1, q2, scale, translate, flip]) => {
    const m1 = mat4.fromQuat(new Float64Array(16) as unknown as mat4, q1);
    const m2 = mat4.fromQuat(new Float64Array(16) as unknown as mat4, q2);
    if (flip === 0) scale[0] = -scale[0];
    mat4.scale(m1, m1, scale);
    const m = mat4.multiply(m1, m1, m2);
    m[12] = translate[0], m[13] = translate[1], m[14] = translate[2];
    return Float32Array.from(fromColumnMajor(m));
  });
}

/** `count` matrices of `arb` in one array. */
export function matricesArb(
  arb: fc.Arbitrary<Float32Array>,
  minCount: number,
  maxCount: number,
): fc.Arbitrary<Float32Array> {
  return fc.array(arb, { minLength: minCount, maxLength: maxCount })
    .map(concatMatrices);
}

/**
 * The per-element error bound of a 3x4 product `a * b`: for element
 * `(r, c)`, `sum_k |a[r][k]| |b[k][c]|` (plus `|a[r][3]|` in column 3),
 * the magnitude of the terms the kernel adds up.
 */
export function productMagnitude(
  a: ArrayLike<number>,
  ia: number,
  b: ArrayLike<number>,
  ib: number,
): Float64Array {
  const A = ia * MATRIX_FLOATS, B = ib * MATRIX_FLOATS;
  const out = new Float64Array(MATRIX_FLOATS);
  for (let r = 0; r < 3; r++) {
    for (let c = 0; c < 4; c++) {
      let sum = c === 3 ? Math.abs(a[A + r * 4 + 3]) : 0;
      for (let k = 0; k < 3; k++) {
        sum += Math.abs(a[A + r * 4 + k]) * Math.abs(b[B + k * 4 + c]);
      }
      out[r * 4 + c] = sum;
    }
  }
  return out;
}

// ---------------------------------------------------------------- skeleton

/**
 * Parent lists of `minJoints..maxJoints` joints, parents before children:
 * roots (10%), chains (`i - 1`, 40%) and random earlier joints.
 */
export function parentsArb(
  minJoints: number,
  maxJoints: number,
): fc.Arbitrary<number[]> {
  return fc.array(
    fc.tuple(fc.integer({ min: 0, max: 9 }), fc.nat()),
    { minLength: minJoints, maxLength: maxJoints },
  ).map((picks) =>
    picks.map(([kind, r], i) => i === 0 || kind === 0 ? -1 : kind <= 4 ? i - 1 : r % i)
  );
}
