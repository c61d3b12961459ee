// Two-bone IK and aim IK on model-space joint matrices, one chain per job
// row, in table order. Semantics: `solveIKJobs` of simd/scalar/ik.ts,
// whose comments explain the steps; this is the same arithmetic in f64.
//
// A chain's solve is one long dependent path of divides and square roots on
// 3-vectors: four f32 lanes would hold three useful values and add
// shuffles on that path, and f32 loses the mid joint's half-angle near a
// straight limb. So the solve is scalar f64; the corrections are applied to
// the local rows and the subtree re-transformed with SIMD (`localToModel`).

import {
  IK_AIM, IK_JOB_BYTES, IK_REACH_TOLERANCE, IK_STRAIGHT_SINE, IK_TWO_BONE_POSE, MATRIX_BYTES,
} from "./abi";
import { rotateLocal } from "./ik_apply";
import { localToModel } from "./skeleton";

import {
  AXIS, DISTANCE, END, KIND, LAST, LOCAL, MID, MODEL, OFFSET, PARENTS, POLE, REACHED, SOFTEN, START, TARGET,
  TWIST_COS, TWIST_SIN, UP, WEIGHT,
} from "./ik_rows";

// The solvers' results and scratch, as globals: start quaternion s*, mid
// quaternion m*, the reach achieved (distance to the target, reached), the
// last vector v*, and two inverse 3x3 parts with their joint's translation
// (and the second's determinant).
let sx: f64 = 0, sy: f64 = 0, sz: f64 = 0, sw: f64 = 1;
let mx: f64 = 0, my: f64 = 0, mz: f64 = 0, mw: f64 = 1;
let distance: f64 = 0, reached: u32 = 0;
let bdet: f64 = 0;
let vx: f64 = 0, vy: f64 = 0, vz: f64 = 0;
let a0: f64 = 0, a1: f64 = 0, a2: f64 = 0, a3: f64 = 0, a4: f64 = 0, a5: f64 = 0;
let a6: f64 = 0, a7: f64 = 0, a8: f64 = 0, at0: f64 = 0, at1: f64 = 0, at2: f64 = 0;
let b0: f64 = 0, b1: f64 = 0, b2: f64 = 0, b3: f64 = 0, b4: f64 = 0, b5: f64 = 0;
let b6: f64 = 0, b7: f64 = 0, b8: f64 = 0, bt0: f64 = 0, bt1: f64 = 0, bt2: f64 = 0;

// @ts-ignore: decorator
@inline function f(p: usize, offset: usize): f64 {
  return <f64>load<f32>(p + offset);
}

/** Inverse 3x3 of the matrix at `p` into `a*` (`second`: `b*`); false if singular. */
function invert(p: usize, second: bool): bool {
  const a = f(p, 0), b = f(p, 4), c = f(p, 8);
  const d = f(p, 16), e = f(p, 20), g0 = f(p, 24);
  const g = f(p, 32), h = f(p, 36), k = f(p, 40);
  const c0 = e * k - g0 * h, c1 = g0 * g - d * k, c2 = d * h - e * g;
  const det = a * c0 + b * c1 + c * c2;
  if (!(det != 0 && isFinite(det))) return false;
  const r = 1 / det;
  const i0 = c0 * r, i1 = (c * h - b * k) * r, i2 = (b * g0 - c * e) * r;
  const i3 = c1 * r, i4 = (a * k - c * g) * r, i5 = (c * d - a * g0) * r;
  const i6 = c2 * r, i7 = (b * g - a * h) * r, i8 = (a * e - b * d) * r;
  if (second) {
    b0 = i0; b1 = i1; b2 = i2; b3 = i3; b4 = i4; b5 = i5; b6 = i6; b7 = i7; b8 = i8;
    bt0 = f(p, 12); bt1 = f(p, 28); bt2 = f(p, 44); bdet = det;
  } else {
    a0 = i0; a1 = i1; a2 = i2; a3 = i3; a4 = i4; a5 = i5; a6 = i6; a7 = i7; a8 = i8;
    at0 = f(p, 12); at1 = f(p, 28); at2 = f(p, 44);
  }
  return true;
}

/** v = inverse(A) (first inverse) applied to direction (x, y, z). */
// @ts-ignore: decorator
@inline function toStartDirection(x: f64, y: f64, z: f64): void {
  vx = a0 * x + a1 * y + a2 * z;
  vy = a3 * x + a4 * y + a5 * z;
  vz = a6 * x + a7 * y + a8 * z;
}

/** v = inverse(A) applied to point (x, y, z). */
// @ts-ignore: decorator
@inline function toStart(x: f64, y: f64, z: f64): void {
  toStartDirection(x - at0, y - at1, z - at2);
}

/** v = inverse(B) applied to point (x, y, z). */
// @ts-ignore: decorator
@inline function toMid(x: f64, y: f64, z: f64): void {
  x -= bt0;
  y -= bt1;
  z -= bt2;
  vx = b0 * x + b1 * y + b2 * z;
  vy = b3 * x + b4 * y + b5 * z;
  vz = b6 * x + b7 * y + b8 * z;
}

/** v = the 3x3 part of the matrix at `p` applied to (x, y, z). */
// @ts-ignore: decorator
@inline function toModelDirection(p: usize, x: f64, y: f64, z: f64): void {
  vx = f(p, 0) * x + f(p, 4) * y + f(p, 8) * z;
  vy = f(p, 16) * x + f(p, 20) * y + f(p, 24) * z;
  vz = f(p, 32) * x + f(p, 36) * y + f(p, 40) * z;
}

/** v = quaternion (qx, qy, qz, qw) applied to (x, y, z). */
function rotate(qx: f64, qy: f64, qz: f64, qw: f64, x: f64, y: f64, z: f64): void {
  const tx = 2 * (qy * z - qz * y), ty = 2 * (qz * x - qx * z), tz = 2 * (qx * y - qy * x);
  vx = x + qw * tx + (qy * tz - qz * ty);
  vy = y + qw * ty + (qz * tx - qx * tz);
  vz = z + qw * tz + (qx * ty - qy * tx);
}

/** s = the shortest rotation of u onto v (identity when either is 0). */
function fromVectors(ux: f64, uy: f64, uz: f64, px: f64, py: f64, pz: f64): void {
  const norms = Math.sqrt((ux * ux + uy * uy + uz * uz) * (px * px + py * py + pz * pz));
  const real = norms + ux * px + uy * py + uz * pz;
  let x: f64, y: f64, z: f64, w: f64;
  if (!(norms > 0)) {
    x = 0; y = 0; z = 0; w = 1;
  } else if (real < 1e-6 * norms) {
    w = 0;
    if (Math.abs(ux) > Math.abs(uz)) {
      x = -uy; y = ux; z = 0;
    } else {
      x = 0; y = -uz; z = uy;
    }
  } else {
    x = uy * pz - uz * py;
    y = uz * px - ux * pz;
    z = ux * py - uy * px;
    w = real;
  }
  const r = 1 / Math.sqrt(x * x + y * y + z * z + w * w);
  sx = x * r; sy = y * r; sz = z * r; sw = w * r;
}

/** s = (ax, ay, az, aw) * s. */
function premultiply(ax: f64, ay: f64, az: f64, aw: f64): void {
  const bx = sx, by = sy, bz = sz, bw = sw;
  sx = aw * bx + ax * bw + ay * bz - az * by;
  sy = aw * by - ax * bz + ay * bw + az * bx;
  sz = aw * bz + ax * by - ay * bx + az * bw;
  sw = aw * bw - ax * bx - ay * by - az * bz;
}

// @ts-ignore: decorator
@inline function clampUnit(x: f64): f64 {
  return x < -1 ? -1 : x > 1 ? 1 : x;
}

/** `turnPlane` of the reference, on s: the pole and twist read from the row at `job`. */
function turnPlane(
  job: usize,
  tx: f64, ty: f64, tz: f64, t2: f64,
  nx: f64, ny: f64, nz: f64,
  sign: f64,
): void {
  toStartDirection(f(job, POLE), f(job, POLE + 4), f(job, POLE + 8));
  const rx = (ty * vz - tz * vy) * sign;
  const ry = (tz * vx - tx * vz) * sign;
  const rz = (tx * vy - ty * vx) * sign;
  const rt = 1 / Math.sqrt(t2);
  const ax = tx * rt, ay = ty * rt, az = tz * rt;
  const n2 = nx * nx + ny * ny + nz * nz, r2 = rx * rx + ry * ry + rz * rz;
  if (n2 > 0 && r2 > 0) {
    const cos = clampUnit((nx * rx + ny * ry + nz * rz) / Math.sqrt(n2 * r2));
    const side = (ny * rz - nz * ry) * tx + (nz * rx - nx * rz) * ty + (nx * ry - ny * rx) * tz;
    const s = Math.sqrt(Math.max(0, (1 - cos) / 2)) * (side < 0 ? -1 : 1);
    premultiply(ax * s, ay * s, az * s, Math.sqrt(Math.max(0, (1 + cos) / 2)));
  }
  const twistSin = f(job, TWIST_SIN);
  if (twistSin != 0) premultiply(ax * twistSin, ay * twistSin, az * twistSin, f(job, TWIST_COS));
}

/** `weigh` of the reference: w >= 0, then an nlerp from identity below weight 1. */
function weigh(mid: bool, weight: f64): void {
  let x = mid ? mx : sx, y = mid ? my : sy, z = mid ? mz : sz, w = mid ? mw : sw;
  if (w < 0) {
    x = -x; y = -y; z = -z; w = -w;
  }
  if (weight < 1) {
    const k = Math.max(0, weight);
    x *= k; y *= k; z *= k;
    w = 1 + (w - 1) * k;
    const r = 1 / Math.sqrt(x * x + y * y + z * z + w * w);
    x *= r; y *= r; z *= r; w *= r;
  }
  if (mid) {
    mx = x; my = y; mz = z; mw = w;
  } else {
    sx = x; sy = y; sz = z; sw = w;
  }
}

/** The reach of model-space point (x, y, z): `distance` to the row's target, `reached`. */
function reach(job: usize, x: f64, y: f64, z: f64, length: f64): void {
  const dx = f(job, TARGET) - x, dy = f(job, TARGET + 4) - y, dz = f(job, TARGET + 8) - z;
  distance = Math.sqrt(dx * dx + dy * dy + dz * dz);
  reached = distance <= IK_REACH_TOLERANCE * length ? 1 : 0;
}

/** Distance between the translations of the matrices at `a` and `b`. */
function between(a: usize, b: usize): f64 {
  const x = f(b, 12) - f(a, 12), y = f(b, 28) - f(a, 28), z = f(b, 44) - f(a, 44);
  return Math.sqrt(x * x + y * y + z * z);
}

/** Two-bone IK of the row at `job`, and its reach: 0 nothing to apply, else 1. */
function twoBone(job: usize): i32 {
  const model = <usize>load<u32>(job + MODEL);
  const s = model + <usize>load<u32>(job + START) * MATRIX_BYTES;
  const m = model + <usize>load<u32>(job + MID) * MATRIX_BYTES;
  const e = model + <usize>load<u32>(job + END) * MATRIX_BYTES;
  const bones = between(s, m) + between(m, e);
  if (solveTwoBone(job, s, m, e) == 0) {
    reach(job, f(e, 12), f(e, 28), f(e, 44), bones);
    return 0;
  }
  reach(job, vx, vy, vz, bones);
  return 1;
}

/** `twoBone` of the joints at `s`, `m`, `e`: 1 with the corrections and the corrected end in v. */
function solveTwoBone(job: usize, s: usize, m: usize, e: usize): i32 {
  const weight = f(job, WEIGHT);
  if (!(weight > 0)) return 0;
  if (!invert(s, false) || !invert(m, true)) return 0;
  toMid(f(s, 12), f(s, 28), f(s, 44));
  const smX = -vx, smY = -vy, smZ = -vz;
  toMid(f(e, 12), f(e, 28), f(e, 44));
  const meX = vx, meY = vy, meZ = vz;
  toStart(f(m, 12), f(m, 28), f(m, 44));
  const msX = vx, msY = vy, msZ = vz;
  toStart(f(e, 12), f(e, 28), f(e, 44));
  const esX = vx, esY = vy, esZ = vz;
  const l1sq = msX * msX + msY * msY + msZ * msZ;
  const dX = esX - msX, dY = esY - msY, dZ = esZ - msZ;
  const l2sq = dX * dX + dY * dY + dZ * dZ;
  const lesq = esX * esX + esY * esY + esZ * esZ;
  if (!(l1sq > 0 && l2sq > 0)) return 0;

  toStart(f(job, TARGET), f(job, TARGET + 4), f(job, TARGET + 8));
  let tX = vx, tY = vy, tZ = vz;
  const ltsq0 = tX * tX + tY * tY + tZ * tZ;
  if (!(ltsq0 < Infinity)) return 0;
  const l1 = Math.sqrt(l1sq), l2 = Math.sqrt(l2sq), lt = Math.sqrt(ltsq0);
  const chain = l1 + l2;
  const soften = f(job, SOFTEN);
  const da = chain * (soften < 0 ? 0 : soften > 1 ? 1 : soften);
  const ds = chain - da;
  let ltsq = ltsq0;
  if (lt > da && lt > 0 && ds > 0) {
    const alpha = (lt - da) / ds;
    const op = (alpha + 3) * (alpha + 3);
    const length = da + ds - ds * (81 / (op * op));
    ltsq = length * length;
    const k = length / lt;
    tX *= k; tY *= k; tZ *= k;
  }

  let ax = f(job, AXIS), ay = f(job, AXIS + 4), az = f(job, AXIS + 8);
  if (load<u32>(job + KIND) == IK_TWO_BONE_POSE) {
    const sign: f64 = bdet < 0 ? -1 : 1;
    const nX = (meY * smZ - meZ * smY) * sign, nY = (meZ * smX - meX * smZ) * sign;
    const nZ = (meX * smY - meY * smX) * sign;
    const n2 = nX * nX + nY * nY + nZ * nZ;
    const me2 = meX * meX + meY * meY + meZ * meZ;
    if (n2 > IK_STRAIGHT_SINE * IK_STRAIGHT_SINE * (smX * smX + smY * smY + smZ * smZ) * me2) {
      const k = 1 / Math.sqrt(n2);
      ax = nX * k; ay = nY * k; az = nZ * k;
    } else {
      const along = (ax * meX + ay * meY + az * meZ) / me2;
      let pX = ax - along * meX, pY = ay - along * meY, pZ = az - along * meZ;
      let p2 = pX * pX + pY * pY + pZ * pZ;
      if (!(p2 > 1e-6)) {
        const aside = Math.abs(meX) > Math.abs(meZ);
        pX = aside ? -meY : 0; pY = aside ? meX : -meZ; pZ = aside ? 0 : meY;
        p2 = pX * pX + pY * pY + pZ * pZ;
      }
      const k = 1 / Math.sqrt(p2);
      ax = pX * k; ay = pY * k; az = pZ * k;
    }
  }

  const half = 0.5 / Math.sqrt(l1sq * l2sq);
  const cosTo = clampUnit((l1sq + l2sq - ltsq) * half);
  const cosFrom = clampUnit((l1sq + l2sq - lesq) * half);
  const cTo = Math.sqrt((1 + cosTo) / 2), sTo = Math.sqrt((1 - cosTo) / 2);
  const bent = (smY * az - smZ * ay) * meX + (smZ * ax - smX * az) * meY +
    (smX * ay - smY * ax) * meZ;
  const cFrom = Math.sqrt((1 + cosFrom) / 2);
  const sFrom = Math.sqrt((1 - cosFrom) / 2) * (bent < 0 ? -1 : 1);
  const sinDiff = sTo * cFrom - cTo * sFrom;
  mx = ax * sinDiff; my = ay * sinDiff; mz = az * sinDiff;
  mw = cTo * cFrom + sTo * sFrom;

  rotate(mx, my, mz, mw, meX, meY, meZ);
  toModelDirection(m, vx, vy, vz);
  toStartDirection(vx, vy, vz);
  let pX = msX + vx, pY = msY + vy, pZ = msZ + vz;
  fromVectors(pX, pY, pZ, tX, tY, tZ);
  if (ltsq > 0) {
    toModelDirection(m, ax, ay, az);
    toStartDirection(vx, vy, vz);
    rotate(sx, sy, sz, sw, vx, vy, vz);
    turnPlane(job, tX, tY, tZ, ltsq, vx, vy, vz, 1);
  }
  weigh(false, weight);
  weigh(true, weight);

  if (weight < 1) {
    rotate(mx, my, mz, mw, meX, meY, meZ);
    toModelDirection(m, vx, vy, vz);
    toStartDirection(vx, vy, vz);
    pX = msX + vx; pY = msY + vy; pZ = msZ + vz;
  }
  rotate(sx, sy, sz, sw, pX, pY, pZ);
  toModelDirection(s, vx, vy, vz);
  vx += f(s, 12); vy += f(s, 28); vz += f(s, 44);
  return 1;
}

/** Aim IK of the row at `job` into s, and its reach; as {@link twoBone}. */
function aim(job: usize): i32 {
  const j = <usize>load<u32>(job + MODEL) + <usize>load<u32>(job + START) * MATRIX_BYTES;
  sx = 0; sy = 0; sz = 0; sw = 1;
  mx = 0; my = 0; mz = 0; mw = 1;
  if (!invert(j, false)) {
    reach(job, f(j, 12), f(j, 28), f(j, 44), 0);
    return 0;
  }
  toStart(f(job, TARGET), f(job, TARGET + 4), f(job, TARGET + 8));
  const tX = vx, tY = vy, tZ = vz;
  const t2 = tX * tX + tY * tY + tZ * tZ;
  const fx = f(job, AXIS), fy = f(job, AXIS + 4), fz = f(job, AXIS + 8);
  const ox = f(job, OFFSET), oy = f(job, OFFSET + 4), oz = f(job, OFFSET + 8);
  const weight = f(job, WEIGHT);
  const along = fx * ox + fy * oy + fz * oz;
  const across2 = ox * ox + oy * oy + oz * oz - along * along;
  const solved = weight > 0 && !(across2 > t2) && t2 > 0 && t2 < Infinity;
  if (solved) {
    const k = Math.sqrt(t2 - across2) - along;
    fromVectors(ox + fx * k, oy + fy * k, oz + fz * k, tX, tY, tZ);
    rotate(sx, sy, sz, sw, f(job, UP), f(job, UP + 4), f(job, UP + 8));
    turnPlane(job, tX, tY, tZ, t2, vy * tZ - vz * tY, vz * tX - vx * tZ, vx * tY - vy * tX, -1);
    weigh(false, weight);
  }
  rotate(sx, sy, sz, sw, ox, oy, oz);
  const rX = vx, rY = vy, rZ = vz;
  rotate(sx, sy, sz, sw, fx, fy, fz);
  const wX = tX - rX, wY = tY - rY, wZ = tZ - rZ;
  const k = Math.max(0, wX * vx + wY * vy + wZ * vz);
  const nX = rX + vx * k, nY = rY + vy * k, nZ = rZ + vz * k;
  toModelDirection(j, wX, wY, wZ);
  const length = Math.sqrt(vx * vx + vy * vy + vz * vz);
  toModelDirection(j, nX, nY, nZ);
  reach(job, f(j, 12) + vx, f(j, 28) + vy, f(j, 44) + vz, length);
  return solved ? 1 : 0;
}

/**
 * For each of `count` IK job rows (`IK_JOB_BYTES` each): solves the chain,
 * writes how far from its target it ends and whether it reached it into the
 * row, applies the corrections to the local matrices and re-transforms
 * joints start..last.
 */
export function solveIKBatch(jobs: usize, count: i32): void {
  for (let i = 0; i < count; i++, jobs += IK_JOB_BYTES) {
    const isAim = load<u32>(jobs + KIND) == IK_AIM;
    const applied = isAim ? aim(jobs) : twoBone(jobs);
    store<u32>(jobs + REACHED, reached);
    store<f32>(jobs + DISTANCE, <f32>distance);
    if (applied == 0) continue;
    const local = <usize>load<u32>(jobs + LOCAL);
    const start = load<u32>(jobs + START);
    rotateLocal(local + <usize>start * MATRIX_BYTES, sx, sy, sz, sw);
    if (!isAim) {
      rotateLocal(local + <usize>load<u32>(jobs + MID) * MATRIX_BYTES, mx, my, mz, mw);
    }
    localToModel(
      local,
      <usize>load<u32>(jobs + MODEL),
      <usize>load<u32>(jobs + PARENTS),
      <i32>start,
      load<i32>(jobs + LAST),
    );
  }
}
