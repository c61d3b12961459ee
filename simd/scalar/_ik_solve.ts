/**
 * The IK solvers' arithmetic, shared by the scalar reference's batch and
 * one-chain forms (`reference_ik.ts`): per job row, the corrections of ozz's
 * `IKTwoBoneJob` and `IKAimJob`, in f64, into {@linkcode out}. The
 * AssemblyScript kernel (`assembly/ik.ts`) is the same arithmetic.
 *
 * @module
 */

import {
  IK_AXIS,
  IK_DISTANCE,
  IK_END,
  IK_KIND,
  IK_LAST,
  IK_LOCAL,
  IK_MID,
  IK_MODEL,
  IK_OFFSET,
  IK_PARENTS,
  IK_POLE,
  IK_REACH_TOLERANCE,
  IK_REACHED,
  IK_SOFTEN,
  IK_START,
  IK_STRAIGHT_SINE,
  IK_TARGET,
  IK_TWIST_COS,
  IK_TWIST_SIN,
  IK_TWO_BONE_POSE,
  IK_UP,
  IK_WEIGHT,
} from "../abi.ts";

export { IK_REACH_TOLERANCE };
import { MATRIX_FLOATS } from "../memory/layout.ts";
import {
  clampUnit,
  fromVectors,
  invA,
  invB,
  invert,
  out,
  premultiply,
  rotate,
  toJoint,
  toJointDirection,
  toModelDirection,
  v,
  weigh,
} from "./_ik_math.ts";

export { out };

/** IK job row fields (word indices), shared with the AssemblyScript kernel. */
export const IKField = {
  MODEL: IK_MODEL,
  LOCAL: IK_LOCAL,
  PARENTS: IK_PARENTS,
  KIND: IK_KIND,
  START: IK_START,
  MID: IK_MID,
  END: IK_END,
  LAST: IK_LAST,
  TARGET: IK_TARGET,
  WEIGHT: IK_WEIGHT,
  POLE: IK_POLE,
  SOFTEN: IK_SOFTEN,
  AXIS: IK_AXIS,
  TWIST_COS: IK_TWIST_COS,
  UP: IK_UP,
  TWIST_SIN: IK_TWIST_SIN,
  OFFSET: IK_OFFSET,
  REACHED: IK_REACHED,
  DISTANCE: IK_DISTANCE,
} as const;
/**
 * Premultiplies `out[0..4]` by the rotation around `t` (not normalized, of
 * squared length `t2`) that turns plane normal `n` onto `sign * (t x pole)`
 * (the row's pole vector, in the first inverse's joint space), then by the
 * row's twist. A normal of length 0 (no pole, or a pole along the target)
 * leaves the plane as it is.
 */
function turnPlane(
  f32: ArrayLike<number>,
  r: number,
  tx: number,
  ty: number,
  tz: number,
  t2: number,
  nx: number,
  ny: number,
  nz: number,
  sign: number,
): void {
  toJointDirection(
    invA,
    f32[r + IKField.POLE],
    f32[r + IKField.POLE + 1],
    f32[r + IKField.POLE + 2],
  );
  const rx = (ty * v[2] - tz * v[1]) * sign;
  const ry = (tz * v[0] - tx * v[2]) * sign;
  const rz = (tx * v[1] - ty * v[0]) * sign;
  const rt = 1 / Math.sqrt(t2);
  const ax = tx * rt, ay = ty * rt, az = tz * rt;
  const n2 = nx * nx + ny * ny + nz * nz, r2 = rx * rx + ry * ry + rz * rz;
  if (n2 > 0 && r2 > 0) {
    const cos = clampUnit((nx * rx + ny * ry + nz * rz) / Math.sqrt(n2 * r2));
    // n × ref is along ±t: its sign is the direction of the turn.
    const side = (ny * rz - nz * ry) * tx + (nz * rx - nx * rz) * ty + (nx * ry - ny * rx) * tz;
    const s = Math.sqrt(Math.max(0, (1 - cos) / 2)) * (side < 0 ? -1 : 1);
    premultiply(0, ax * s, ay * s, az * s, Math.sqrt(Math.max(0, (1 + cos) / 2)));
  }
  const twistSin = f32[r + IKField.TWIST_SIN];
  if (twistSin !== 0) {
    premultiply(0, ax * twistSin, ay * twistSin, az * twistSin, f32[r + IKField.TWIST_COS]);
  }
}

/**
 * `out[8..10]`: the distance from model-space point (x, y, z) to the row's
 * target, and whether it is within {@linkcode IK_REACH_TOLERANCE} of `length`.
 */
function reach(
  f32: ArrayLike<number>,
  r: number,
  x: number,
  y: number,
  z: number,
  length: number,
): void {
  const dx = f32[r + IKField.TARGET] - x, dy = f32[r + IKField.TARGET + 1] - y;
  const dz = f32[r + IKField.TARGET + 2] - z;
  const distance = Math.sqrt(dx * dx + dy * dy + dz * dz);
  out[8] = distance;
  out[9] = distance <= IK_REACH_TOLERANCE * length ? 1 : 0;
}

/** Distance between the translations of the matrices at `a` and `b`. */
function between(f32: ArrayLike<number>, a: number, b: number): number {
  const x = f32[b + 3] - f32[a + 3], y = f32[b + 7] - f32[a + 7], z = f32[b + 11] - f32[a + 11];
  return Math.sqrt(x * x + y * y + z * z);
}

/**
 * Two-bone IK of the job row at float index `r` of `f32` (matrices read
 * from `f32` too): corrections into `out` (start at 0, mid at 4) and the
 * reach they achieve (`out[8..10]`). Returns 0 when nothing is to be applied
 * (weight 0, singular or degenerate joints: the reach is then the end
 * joint's as it is), else 1.
 *
 * The hinge axis is the row's (ozz's `mid_axis`) for an `IK_TWO_BONE`
 * row. For an `IK_TWO_BONE_POSE` row it is the normal of the plane
 * the bones make in the pose being solved, so that the axis is
 * perpendicular to both bones whatever the animation did to the joint, and
 * the law of cosines below is exact; the row's axis (the rest pose's bend)
 * serves only when the limb is straight, made perpendicular to the bones.
 */
export function twoBone(f32: ArrayLike<number>, u32: ArrayLike<number>, r: number): number {
  const model = u32[r + IKField.MODEL] >> 2;
  const s = model + u32[r + IKField.START] * MATRIX_FLOATS;
  const m = model + u32[r + IKField.MID] * MATRIX_FLOATS;
  const e = model + u32[r + IKField.END] * MATRIX_FLOATS;
  const bones = between(f32, s, m) + between(f32, m, e);
  if (solveTwoBone(f32, u32, r, s, m, e) === 0) {
    reach(f32, r, f32[e + 3], f32[e + 7], f32[e + 11], bones);
    return 0;
  }
  reach(f32, r, v[0], v[1], v[2], bones);
  return 1;
}

/**
 * {@linkcode twoBone} of the joints whose model matrices are at `s`, `m`,
 * `e`: 0 when nothing is to be applied, else 1, the corrections in `out`
 * and where they put the end joint (model space) in `v`.
 */
function solveTwoBone(
  f32: ArrayLike<number>,
  u32: ArrayLike<number>,
  r: number,
  s: number,
  m: number,
  e: number,
): number {
  const weight = f32[r + IKField.WEIGHT];
  if (!(weight > 0)) return 0;
  if (!invert(f32, s, invA) || !invert(f32, m, invB)) return 0;
  // Bones in the mid joint's space (_m) and the start joint's space (_s).
  toJoint(invB, f32[s + 3], f32[s + 7], f32[s + 11]);
  const smX = -v[0], smY = -v[1], smZ = -v[2];
  toJoint(invB, f32[e + 3], f32[e + 7], f32[e + 11]);
  const meX = v[0], meY = v[1], meZ = v[2];
  toJoint(invA, f32[m + 3], f32[m + 7], f32[m + 11]);
  const msX = v[0], msY = v[1], msZ = v[2];
  toJoint(invA, f32[e + 3], f32[e + 7], f32[e + 11]);
  const esX = v[0], esY = v[1], esZ = v[2];
  const l1sq = msX * msX + msY * msY + msZ * msZ;
  const dX = esX - msX, dY = esY - msY, dZ = esZ - msZ;
  const l2sq = dX * dX + dY * dY + dZ * dZ;
  const lesq = esX * esX + esY * esY + esZ * esZ;
  if (!(l1sq > 0 && l2sq > 0)) return 0;

  // Target in start space, softened beyond `soften` of the chain's length.
  toJoint(invA, f32[r + IKField.TARGET], f32[r + IKField.TARGET + 1], f32[r + IKField.TARGET + 2]);
  let tX = v[0], tY = v[1], tZ = v[2];
  const ltsq0 = tX * tX + tY * tY + tZ * tZ;
  // A target beyond float range in the joint's space (a joint scaled to
  // nothing): no correction rather than a NaN one.
  if (!(ltsq0 < Infinity)) return 0;
  const l1 = Math.sqrt(l1sq), l2 = Math.sqrt(l2sq), lt = Math.sqrt(ltsq0);
  const chain = l1 + l2;
  const soften = f32[r + IKField.SOFTEN];
  const da = chain * (soften < 0 ? 0 : soften > 1 ? 1 : soften);
  const ds = chain - da;
  let ltsq = ltsq0;
  if (lt > da && lt > 0 && ds > 0) {
    const alpha = (lt - da) / ds;
    const op = (alpha + 3) * (alpha + 3);
    const length = da + ds - ds * (81 / (op * op));
    ltsq = length * length;
    const k = length / lt;
    tX *= k;
    tY *= k;
    tZ *= k;
  }

  let ax = f32[r + IKField.AXIS], ay = f32[r + IKField.AXIS + 1], az = f32[r + IKField.AXIS + 2];
  if (u32[r + IKField.KIND] === IK_TWO_BONE_POSE) {
    // me x sm, as the rest axis is (end - mid) x (mid - start) taken into
    // the mid joint's space: a mirroring joint flips the cross product.
    const sign = invB[12] < 0 ? -1 : 1;
    const nX = (meY * smZ - meZ * smY) * sign, nY = (meZ * smX - meX * smZ) * sign;
    const nZ = (meX * smY - meY * smX) * sign;
    const n2 = nX * nX + nY * nY + nZ * nZ;
    const me2 = meX * meX + meY * meY + meZ * meZ;
    if (n2 > IK_STRAIGHT_SINE * IK_STRAIGHT_SINE * (smX * smX + smY * smY + smZ * smZ) * me2) {
      const k = 1 / Math.sqrt(n2);
      ax = nX * k;
      ay = nY * k;
      az = nZ * k;
    } else {
      // Straight: the rest bend's axis made perpendicular to the bones, or
      // any perpendicular when it lies along them.
      const along = (ax * meX + ay * meY + az * meZ) / me2;
      let pX = ax - along * meX, pY = ay - along * meY, pZ = az - along * meZ;
      let p2 = pX * pX + pY * pY + pZ * pZ;
      if (!(p2 > 1e-6)) {
        const aside = Math.abs(meX) > Math.abs(meZ);
        pX = aside ? -meY : 0;
        pY = aside ? meX : -meZ;
        pZ = aside ? 0 : meY;
        p2 = pX * pX + pY * pY + pZ * pZ;
      }
      const k = 1 / Math.sqrt(p2);
      ax = pX * k;
      ay = pY * k;
      az = pZ * k;
    }
  }

  // Mid joint: the angle the target needs minus the angle it has, both from
  // the law of cosines, as half-angle sines and cosines.
  const half = 0.5 / Math.sqrt(l1sq * l2sq);
  const cosTo = clampUnit((l1sq + l2sq - ltsq) * half);
  const cosFrom = clampUnit((l1sq + l2sq - lesq) * half);
  const cTo = Math.sqrt((1 + cosTo) / 2), sTo = Math.sqrt((1 - cosTo) / 2);
  // Bent against the hinge axis: the current angle counts as negative.
  const bent = (smY * az - smZ * ay) * meX + (smZ * ax - smX * az) * meY +
    (smX * ay - smY * ax) * meZ;
  const cFrom = Math.sqrt((1 + cosFrom) / 2);
  const sFrom = Math.sqrt((1 - cosFrom) / 2) * (bent < 0 ? -1 : 1);
  const sinDiff = sTo * cFrom - cTo * sFrom;
  out[4] = ax * sinDiff;
  out[5] = ay * sinDiff;
  out[6] = az * sinDiff;
  out[7] = cTo * cFrom + sTo * sFrom;

  // Start joint: turn the corrected end onto the target, then the chain's
  // plane (the hinge axis) onto the plane of target and pole vector.
  rotate(out, 4, meX, meY, meZ);
  toModelDirection(f32, m, v[0], v[1], v[2]);
  toJointDirection(invA, v[0], v[1], v[2]);
  // The end after the mid correction, start space.
  let pX = msX + v[0], pY = msY + v[1], pZ = msZ + v[2];
  fromVectors(0, pX, pY, pZ, tX, tY, tZ);
  if (ltsq > 0) {
    toModelDirection(f32, m, ax, ay, az);
    toJointDirection(invA, v[0], v[1], v[2]);
    rotate(out, 0, v[0], v[1], v[2]);
    turnPlane(f32, r, tX, tY, tZ, ltsq, v[0], v[1], v[2], 1);
  }
  weigh(0, weight);
  weigh(4, weight);

  // Where the weighted corrections put the end joint: the end after the
  // (weighted) mid correction, turned by the start correction.
  if (weight < 1) {
    rotate(out, 4, meX, meY, meZ);
    toModelDirection(f32, m, v[0], v[1], v[2]);
    toJointDirection(invA, v[0], v[1], v[2]);
    pX = msX + v[0];
    pY = msY + v[1];
    pZ = msZ + v[2];
  }
  rotate(out, 0, pX, pY, pZ);
  toModelDirection(f32, s, v[0], v[1], v[2]);
  v[0] += f32[s + 3];
  v[1] += f32[s + 7];
  v[2] += f32[s + 11];
  return 1;
}

/**
 * Aim IK of the job row at float index `r`: the correction into `out[0..4]`
 * and the reach it achieves: how far the target is from the corrected
 * aiming ray (from the offset along forward), against the ray origin's
 * distance to the target. Returns as {@linkcode twoBone}.
 */
export function aim(f32: ArrayLike<number>, u32: ArrayLike<number>, r: number): number {
  const j = (u32[r + IKField.MODEL] >> 2) + u32[r + IKField.START] * MATRIX_FLOATS;
  out[0] =
    out[1] =
    out[2] =
    out[4] =
    out[5] =
    out[6] =
      0;
  out[3] = out[7] = 1;
  if (!invert(f32, j, invA)) {
    reach(f32, r, f32[j + 3], f32[j + 7], f32[j + 11], 0);
    return 0;
  }
  toJoint(invA, f32[r + IKField.TARGET], f32[r + IKField.TARGET + 1], f32[r + IKField.TARGET + 2]);
  const tX = v[0], tY = v[1], tZ = v[2];
  const t2 = tX * tX + tY * tY + tZ * tZ;
  const fx = f32[r + IKField.AXIS], fy = f32[r + IKField.AXIS + 1], fz = f32[r + IKField.AXIS + 2];
  const ox = f32[r + IKField.OFFSET], oy = f32[r + IKField.OFFSET + 1];
  const oz = f32[r + IKField.OFFSET + 2];
  const weight = f32[r + IKField.WEIGHT];
  // The ray from the offset along forward meets the sphere of the target's
  // distance at the tip of the offsetted forward vector.
  const along = fx * ox + fy * oy + fz * oz;
  const across2 = ox * ox + oy * oy + oz * oz - along * along;
  const solved = weight > 0 && !(across2 > t2) && t2 > 0 && t2 < Infinity;
  if (solved) {
    const k = Math.sqrt(t2 - across2) - along;
    fromVectors(0, ox + fx * k, oy + fy * k, oz + fz * k, tX, tY, tZ);
    rotate(out, 0, f32[r + IKField.UP], f32[r + IKField.UP + 1], f32[r + IKField.UP + 2]);
    // The normals are u x t and pole x t = -(t x pole).
    turnPlane(
      f32,
      r,
      tX,
      tY,
      tZ,
      t2,
      v[1] * tZ - v[2] * tY,
      v[2] * tX - v[0] * tZ,
      v[0] * tY - v[1] * tX,
      -1,
    );
    weigh(0, weight);
  }
  // The point of the corrected ray nearest the target, in model space.
  rotate(out, 0, ox, oy, oz);
  const rX = v[0], rY = v[1], rZ = v[2];
  rotate(out, 0, fx, fy, fz);
  const wX = tX - rX, wY = tY - rY, wZ = tZ - rZ;
  const k = Math.max(0, wX * v[0] + wY * v[1] + wZ * v[2]);
  const nX = rX + v[0] * k, nY = rY + v[1] * k, nZ = rZ + v[2] * k;
  toModelDirection(f32, j, wX, wY, wZ);
  const length = Math.sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
  toModelDirection(f32, j, nX, nY, nZ);
  reach(f32, r, f32[j + 3] + v[0], f32[j + 7] + v[1], f32[j + 11] + v[2], length);
  return solved ? 1 : 0;
}
