/**
 * Foot planting for a retargeted clip (`plantFeet`): where the source's
 * toes touch the ground, the target's leg is bent by two-bone IK (thigh and
 * knee, in model space, the foot keeping its model-space rotation) so that
 * its toes are at their rest height too.
 *
 * Contact: the source's toes within 1 % of the source hips' rest height of
 * their own rest height plant fully; the weight falls to nothing at 3 %, so
 * that a foot lifting off is not snapped. Bone lengths are kept (only
 * rotations change); a goal out of reach stretches the leg straight.
 *
 * @module
 */

import { JOINT_STRIDE, multiply, normalize, Q, rotate, T } from "./_retarget_math.ts";
import { type RetargetPlan, ROTATE_REST } from "./_retarget_setup.ts";
import { findLegs, heightAbove, type RestSkeleton } from "./_retarget_skeleton.ts";

/** One target leg the build plants, with the source toes that say when. */
interface PlantedLeg {
  readonly thigh: number;
  readonly knee: number;
  readonly ankle: number;
  readonly toe: number;
  readonly sourceToe: number;
}

/** Lift (as a fraction of the hips' height) up to which a foot plants fully, and beyond which not at all. */
const FULL_CONTACT = 0.01, NO_CONTACT = 0.03;

/**
 * The target's legs whose thigh, knee and ankle the build rotates (each
 * mapped: they have rotation channels), with the toes planted: the lowest
 * mapped joint below the ankle and its source joint, else the lowest
 * joints below the ankle and its source joint.
 */
export function plantedLegs(plan: RetargetPlan): PlantedLeg[] {
  const { source, target, sourceOf, hips } = plan;
  const legs: PlantedLeg[] = [];
  for (const { toe, ankle } of findLegs(target, hips)) {
    const knee = target.parents[ankle], thigh = knee > hips ? target.parents[knee] : -1;
    if (!(thigh > hips)) continue;
    if (![thigh, knee, ankle].every((j) => plan.rotation[j] !== ROTATE_REST && sourceOf[j] >= 0)) {
      continue;
    }
    // The toes planted are the lowest mapped joint below the ankle, where the source's are.
    const mapped = lowestUnder(target, ankle, (j) => sourceOf[j] >= 0);
    if (mapped !== ankle) {
      legs.push({ thigh, knee, ankle, toe: mapped, sourceToe: sourceOf[mapped] });
    } else legs.push({ thigh, knee, ankle, toe, sourceToe: lowestUnder(source, sourceOf[ankle]) });
  }
  return legs;
}

/** The lowest joint at rest of the subtree of `root` (of those `counts`, else `root`). */
function lowestUnder(
  skeleton: RestSkeleton,
  root: number,
  counts: (j: number) => boolean = () => true,
): number {
  const inside = new Uint8Array(skeleton.parents.length);
  inside[root] = 1;
  let lowest = root;
  const y = (j: number) => skeleton.model[j * JOINT_STRIDE + T + 1];
  for (let j = root + 1; j < skeleton.parents.length; j++) {
    const p = skeleton.parents[j];
    if (p < 0 || !inside[p]) continue;
    inside[j] = 1;
    if (counts(j) && (lowest === root || y(j) < y(lowest))) lowest = j;
  }
  return lowest;
}

/** Scratch for one leg's solve. */
const v = new Float64Array(12), turn = new Float64Array(8);

/**
 * Plants each leg of `legs` in the target's local rows (model rows as the
 * sweep left them), from the source's model rows at the same time.
 */
export function plantFeet(
  legs: readonly PlantedLeg[],
  plan: RetargetPlan,
  sourceHeight: number,
  sourceModel: Float64Array,
  targetLocal: Float64Array,
  targetModel: Float64Array,
): void {
  const { source, target } = plan;
  const y = (rows: Float64Array, j: number) => rows[j * JOINT_STRIDE + T + 1];
  for (const { thigh, knee, ankle, toe, sourceToe } of legs) {
    const lift = Math.abs(y(sourceModel, sourceToe) - y(source.model, sourceToe)) / sourceHeight;
    const weight = Math.min(1, Math.max(0, (NO_CONTACT - lift) / (NO_CONTACT - FULL_CONTACT)));
    const rise = weight * (y(target.model, toe) - y(targetModel, toe));
    if (weight === 0 || rise === 0) continue;
    const h = thigh * JOINT_STRIDE + T, k = knee * JOINT_STRIDE + T, a = ankle * JOINT_STRIDE + T;
    // v[0..3) hip → knee reversed (u = hip - knee), v[3..6) ankle - knee, v[6..9) goal - hip.
    for (let c = 0; c < 3; c++) {
      v[c] = targetModel[h + c] - targetModel[k + c];
      v[3 + c] = targetModel[a + c] - targetModel[k + c];
      v[6 + c] = targetModel[a + c] + (c === 1 ? rise : 0) - targetModel[h + c];
    }
    const l1 = Math.hypot(v[0], v[1], v[2]), l2 = Math.hypot(v[3], v[4], v[5]);
    const reach = Math.hypot(v[6], v[7], v[8]);
    const d = Math.min(Math.max(reach, Math.abs(l1 - l2) * (1 + 1e-9)), (l1 + l2) * (1 - 1e-9));
    const now = Math.acos(clamp((v[0] * v[3] + v[1] * v[4] + v[2] * v[5]) / (l1 * l2)));
    const wanted = Math.acos(clamp((l1 * l1 + l2 * l2 - d * d) / (2 * l1 * l2)));
    // The knee turns in the leg's bend plane (about u × v); a straight leg has none.
    const nx = v[1] * v[5] - v[2] * v[4],
      ny = v[2] * v[3] - v[0] * v[5],
      nz = v[0] * v[4] - v[1] * v[3];
    const n = Math.hypot(nx, ny, nz);
    if (!(n > 1e-9 * l1 * l2)) continue;
    const half = (wanted - now) / 2, s = Math.sin(half) / n;
    turn[4] = nx * s, turn[5] = ny * s, turn[6] = nz * s, turn[7] = Math.cos(half);
    rotate(turn, 4, v, 3);
    // The thigh turns the new hip → ankle onto hip → goal.
    for (let c = 0; c < 3; c++) v[9 + c] = v[3 + c] - v[c];
    arc(v, 9, 6, turn, 0);
    const tq = thigh * JOINT_STRIDE + Q,
      kq = knee * JOINT_STRIDE + Q,
      aq = ankle * JOINT_STRIDE + Q;
    multiply(turn, 4, targetModel, kq, targetModel, kq);
    multiply(turn, 0, targetModel, kq, targetModel, kq);
    multiply(turn, 0, targetModel, tq, targetModel, tq);
    const parent = target.parents[thigh] * JOINT_STRIDE + Q;
    multiply(targetModel, parent, targetModel, tq, targetLocal, tq, true);
    multiply(targetModel, tq, targetModel, kq, targetLocal, kq, true);
    multiply(targetModel, kq, targetModel, aq, targetLocal, aq, true);
    for (const o of [tq, kq, aq]) normalize(targetLocal, o);
  }
}

function clamp(x: number): number {
  return Math.min(1, Math.max(-1, x));
}

/** The shortest rotation turning direction `v[from..]` onto `v[to..]`, into `out[o..]`. */
function arc(v: Float64Array, from: number, to: number, out: Float64Array, o: number): void {
  const la = Math.hypot(v[from], v[from + 1], v[from + 2]);
  const lb = Math.hypot(v[to], v[to + 1], v[to + 2]);
  const ax = v[from] / la, ay = v[from + 1] / la, az = v[from + 2] / la;
  const bx = v[to] / lb, by = v[to + 1] / lb, bz = v[to + 2] / lb;
  // (a × b, 1 + a · b), normalized: half the angle between them.
  out[o] = ay * bz - az * by, out[o + 1] = az * bx - ax * bz, out[o + 2] = ax * by - ay * bx;
  out[o + 3] = 1 + ax * bx + ay * by + az * bz;
  normalize(out, o);
}

/** The source hips' rest height above its ground, the contact's scale. */
export function contactHeight(plan: RetargetPlan): number {
  return heightAbove(plan.source, plan.sourceOf[plan.hips]);
}
