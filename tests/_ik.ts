/**
 * Helpers of the IK tests: random joint chains (parents before children,
 * uniformly scaled joints), IK job rows in a core's memory, and the
 * geometry the invariants are stated in.
 *
 * @module
 */

import fc from "fast-check";
import { IK_AIM, IK_JOB_WORDS, IK_TWO_BONE, IK_TWO_BONE_POSE } from "../simd/abi.ts";
import { coreKernels, coreMemory } from "../simd/memory/_instance.ts";
import type { Core } from "../kernels.ts";
import { MATRIX_FLOATS } from "../kernels.ts";
import { IKField } from "../simd/scalar/_ik_solve.ts";
import { solveIKJobs } from "../simd/scalar/ik.ts";
import { subtreeLast } from "../components/_ik_chain.ts";

export { subtreeLast };
import * as ref from "../simd/scalar/mod.ts";
import { normalizeQuat, quatArb, type Vec3 } from "./_arbitrary.ts";

/** The legs and arms of a Mixamo skeleton (Xbot, Soldier): start, mid and end joints. */
export const MIXAMO_LIMBS: readonly (readonly [string, string, string])[] = ["Left", "Right"]
  .flatMap((side) => [
    [`mixamorig:${side}UpLeg`, `mixamorig:${side}Leg`, `mixamorig:${side}Foot`] as const,
    [`mixamorig:${side}Arm`, `mixamorig:${side}ForeArm`, `mixamorig:${side}Hand`] as const,
  ]);

/** `a - b`. */
export function sub(a: readonly number[], b: readonly number[]): Vec3 {
  return [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
}
/** `a . b`. */
export function dot(a: readonly number[], b: readonly number[]): number {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}
/** `a x b`. */
export function cross(a: readonly number[], b: readonly number[]): Vec3 {
  return [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
}
/** `|a|`. */
export function norm(a: readonly number[]): number {
  return Math.hypot(a[0], a[1], a[2]);
}
/** Angle between two vectors, radians (accurate near 0). */
export function angle(a: readonly number[], b: readonly number[]): number {
  return Math.atan2(norm(cross(a, b)), dot(a, b));
}
/** Joint `j`'s translation in `matrices`. */
export function position(matrices: ArrayLike<number>, j: number): Vec3 {
  const m = j * MATRIX_FLOATS;
  return [matrices[m + 3], matrices[m + 7], matrices[m + 11]];
}
/** Joint `j`'s 3x3 part applied to `d`. */
export function direction(matrices: ArrayLike<number>, j: number, d: readonly number[]): Vec3 {
  const m = j * MATRIX_FLOATS;
  return [0, 4, 8].map((r) =>
    matrices[m + r] * d[0] + matrices[m + r + 1] * d[1] + matrices[m + r + 2] * d[2]
  ) as Vec3;
}
/** `inverse(3x3 of joint j) * d`. */
export function intoJoint(matrices: ArrayLike<number>, j: number, d: readonly number[]): Vec3 {
  const m = j * MATRIX_FLOATS;
  const r0 = [matrices[m], matrices[m + 1], matrices[m + 2]];
  const r1 = [matrices[m + 4], matrices[m + 5], matrices[m + 6]];
  const r2 = [matrices[m + 8], matrices[m + 9], matrices[m + 10]];
  const k0 = cross(r1, r2), k1 = cross(r2, r0), k2 = cross(r0, r1);
  const det = dot(r0, k0);
  return [0, 1, 2].map((i) => (k0[i] * d[0] + k1[i] * d[1] + k2[i] * d[2]) / det) as Vec3;
}
/** Unit vector. */
export function unit(a: readonly number[]): Vec3 {
  const n = norm(a);
  return [a[0] / n, a[1] / n, a[2] / n];
}

/** A random skeleton and a two-bone chain in it (start, mid, end ancestors in order). */
export interface RandomChain {
  readonly parents: Int16Array;
  /** Local matrices. */
  readonly local: Float32Array;
  /** Model matrices (`localToModel` of `local`). */
  readonly model: Float32Array;
  readonly start: number;
  readonly mid: number;
  readonly end: number;
}

function ancestors(parents: ArrayLike<number>, j: number): number[] {
  const list: number[] = [];
  for (let p = parents[j]; p >= 0; p = parents[p]) list.push(p);
  return list;
}

const unitVec = fc.tuple(
  fc.double({ min: -1, max: 1, noNaN: true }),
  fc.double({ min: -1, max: 1, noNaN: true }),
  fc.double({ min: -1, max: 1, noNaN: true }),
).filter((v) => norm(v) > 0.2).map(unit);

/** Random skeletons of 3..10 joints with a chain of depth >= 2 (bones 0.3..2 long). */
export const chainArb: fc.Arbitrary<RandomChain> = fc.integer({ min: 3, max: 10 }).chain((n) =>
  fc.record({
    parentPicks: fc.array(fc.double({ min: 0, max: 1, noNaN: true, maxExcluded: true }), {
      minLength: n,
      maxLength: n,
    }),
    joints: fc.array(
      fc.record({
        q: quatArb,
        dir: unitVec,
        length: fc.double({ min: 0.3, max: 2, noNaN: true }),
        scale: fc.double({ min: 0.7, max: 1.4, noNaN: true }),
      }),
      { minLength: n, maxLength: n },
    ),
    pick: fc.tuple(fc.nat(), fc.nat(), fc.nat()),
  }).map(({ parentPicks, joints, pick }) => {
    // Joint 1 is a child of joint 0, so a chain of depth 2 exists.
    const parents = Int16Array.from(
      parentPicks,
      (r, i) => i === 0 ? -1 : i <= 2 ? i - 1 : Math.floor(r * i),
    );
    const local = new Float32Array(n * MATRIX_FLOATS);
    joints.forEach(({ q, dir, length, scale }, j) => {
      const [x, y, z, w] = normalizeQuat(q);
      const m = local.subarray(j * MATRIX_FLOATS);
      m.set([
        (1 - 2 * (y * y + z * z)) * scale,
        2 * (x * y - z * w) * scale,
        2 * (x * z + y * w) * scale,
        dir[0] * length,
        2 * (x * y + z * w) * scale,
        (1 - 2 * (x * x + z * z)) * scale,
        2 * (y * z - x * w) * scale,
        dir[1] * length,
        2 * (x * z - y * w) * scale,
        2 * (y * z + x * w) * scale,
        (1 - 2 * (x * x + y * y)) * scale,
        dir[2] * length,
      ]);
    });
    const model = new Float32Array(local.length);
    ref.localToModel(local, model, parents, 0, n - 1);
    const deep = [...Array(n).keys()].filter((j) => ancestors(parents, j).length >= 2);
    const end = deep[pick[0] % deep.length];
    const up = ancestors(parents, end);
    const midAt = pick[1] % (up.length - 1);
    const mid = up[midAt];
    const start = up[midAt + 1 + pick[2] % (up.length - 1 - midAt)];
    return { parents, local, model, start, mid, end };
  })
);

/**
 * The hinge axis of a chain's current pose, in the mid joint's space (unit):
 * `(end - mid) x (mid - start)`, about which a positive turn opens the
 * joint (ozz's convention: the current bend is the valid side).
 */
export function hingeAxis(model: ArrayLike<number>, chain: RandomChain): Vec3 {
  const s = position(model, chain.start), m = position(model, chain.mid);
  const e = position(model, chain.end);
  return unit(intoJoint(model, chain.mid, cross(sub(e, m), sub(m, s))));
}

/** One IK job row's settings. */
export interface ChainJob {
  kind: "twoBone" | "aim";
  start: number;
  mid?: number;
  end?: number;
  target: Vec3;
  weight?: number;
  pole?: Vec3;
  soften?: number;
  /** Two-bone: mid axis; aim: forward. */
  axis?: Vec3;
  /** Two-bone: bend in the plane of the pose (`IK_TWO_BONE_POSE`), `axis` serving a straight limb. */
  poseAxis?: boolean;
  twist?: number;
  up?: Vec3;
  offset?: Vec3;
}

/** Writes job `job` as the row at word `r`; `blocks` are the model, local and parents offsets. */
function writeRow(
  u32: Uint32Array,
  f32: Float32Array,
  r: number,
  job: ChainJob,
  [model, local, parentsAt]: readonly [number, number, number],
  parents: Int16Array,
): void {
  u32.fill(0, r, r + IK_JOB_WORDS);
  u32[r + IKField.MODEL] = model;
  u32[r + IKField.LOCAL] = local;
  u32[r + IKField.PARENTS] = parentsAt;
  u32[r + IKField.KIND] = job.kind === "aim"
    ? IK_AIM
    : job.poseAxis
    ? IK_TWO_BONE_POSE
    : IK_TWO_BONE;
  u32[r + IKField.START] = job.start;
  u32[r + IKField.MID] = job.mid ?? 0;
  u32[r + IKField.END] = job.end ?? 0;
  u32[r + IKField.LAST] = subtreeLast(parents, job.start);
  f32.set(job.target, r + IKField.TARGET);
  f32[r + IKField.WEIGHT] = job.weight ?? 1;
  f32.set(job.pole ?? [0, 0, 0], r + IKField.POLE);
  f32[r + IKField.SOFTEN] = job.soften ?? 1;
  f32.set(job.axis ?? (job.kind === "aim" ? [1, 0, 0] : [0, 0, 1]), r + IKField.AXIS);
  f32[r + IKField.TWIST_COS] = Math.cos((job.twist ?? 0) / 2);
  f32[r + IKField.TWIST_SIN] = Math.sin((job.twist ?? 0) / 2);
  f32.set(job.up ?? [0, 1, 0], r + IKField.UP);
  f32.set(job.offset ?? [0, 0, 0], r + IKField.OFFSET);
}

/** A skeleton's matrices, parents and job rows in a core's memory. */
export class IKScene {
  readonly core: Core;
  readonly n: number;
  readonly local: number;
  readonly model: number;
  readonly parents: number;
  readonly jobs: number;
  readonly jobCount: number;

  constructor(core: Core, chain: RandomChain, jobs: readonly ChainJob[]) {
    this.core = core;
    const n = this.n = chain.parents.length;
    const memory = coreMemory(core);
    this.local = memory.alloc(n * 48);
    this.model = memory.alloc(n * 48);
    this.parents = memory.alloc(n * 2 + 2);
    this.jobs = memory.alloc(Math.max(1, jobs.length) * IK_JOB_WORDS * 4);
    this.jobCount = jobs.length;
    const v = memory.views();
    v.f32.set(chain.local, this.local >> 2);
    v.f32.set(chain.model, this.model >> 2);
    v.i16.set(chain.parents, this.parents >> 1);
    jobs.forEach((job, i) => {
      const r = (this.jobs >> 2) + i * IK_JOB_WORDS;
      const views = memory.views();
      writeRow(views.u32, views.f32, r, job, [this.model, this.local, this.parents], chain.parents);
    });
  }

  /** Runs the core's `solveIKBatch` on the rows. */
  solve(): void {
    coreKernels(this.core).solveIKBatch(this.jobs, this.jobCount);
  }

  /** Copies of the model and local matrices. */
  matrices(): { model: Float32Array; local: Float32Array } {
    const f = coreMemory(this.core).views().f32;
    return {
      model: f.slice(this.model >> 2, (this.model >> 2) + this.n * MATRIX_FLOATS),
      local: f.slice(this.local >> 2, (this.local >> 2) + this.n * MATRIX_FLOATS),
    };
  }

  /** Row `i`'s reported distance to its target. */
  distance(i: number): number {
    return coreMemory(this.core).views().f32[
      (this.jobs >> 2) + i * IK_JOB_WORDS + IKField.DISTANCE
    ];
  }

  /** Whether row `i` reached its target. */
  reached(i: number): boolean {
    return coreMemory(this.core).views().u32[
      (this.jobs >> 2) + i * IK_JOB_WORDS +
      IKField.REACHED
    ] === 1;
  }

  free(): void {
    const memory = coreMemory(this.core);
    for (const p of [this.local, this.model, this.parents, this.jobs]) memory.free(p);
  }
}

/**
 * The scalar reference's IK batch (`solveIKJobs`) on plain arrays: `local`
 * and `model` of a skeleton with `parents`, corrected in place by `jobs`
 * in order. For tests that predict a frame's output independently of the
 * core's memory.
 */
export function solveReferenceIK(
  local: Float32Array,
  model: Float32Array,
  parents: Int16Array,
  jobs: readonly ChainJob[],
): void {
  const n = parents.length, bytes = n * 48;
  const buffer = new ArrayBuffer(2 * bytes + 4 * n + jobs.length * IK_JOB_WORDS * 4 + 64);
  const f32 = new Float32Array(buffer), u32 = new Uint32Array(buffer);
  const i16 = new Int16Array(buffer);
  f32.set(local, 0);
  f32.set(model, bytes >> 2);
  i16.set(parents, bytes);
  const table = 2 * bytes + 4 * n;
  jobs.forEach((job, i) => {
    writeRow(u32, f32, (table >> 2) + i * IK_JOB_WORDS, job, [bytes, 0, 2 * bytes], parents);
  });
  solveIKJobs(f32, u32, i16, table, jobs.length);
  local.set(f32.subarray(0, n * 12));
  model.set(f32.subarray(bytes >> 2, (bytes >> 2) + n * 12));
}
