/**
 * The error metric of compact clips, as ACL measures it: distances in the
 * skeleton's model space, on each joint and on virtual points a fixed
 * distance from it along its three axes, through the hierarchy.
 *
 * The build turns the clip's tolerance into one per channel
 * (`channelTolerances` in `_skeleton_geometry.ts`), then measures the error
 * it made by sampling both clips densely, and tightens the split while it
 * is over the tolerance (errors along a chain add up).
 *
 * @module
 */

import type { Clip } from "./clip.ts";
import { sampleChannel, sampleClip } from "./clip.ts";
import { MATRIX_FLOATS, PoseField, poseFloats, poseIndex } from "../simd/memory/layout.ts";

const PATH_FIELDS = {
  translation: PoseField.TX,
  rotation: PoseField.QX,
  scale: PoseField.SX,
} as const;
import { sampleCompact, sampleMemory } from "../simd/scalar/sample.ts";
import type { ClipImage } from "./_clip_image.ts";
import { axisLength, modelMatrices, type SkeletonGeometry } from "./_skeleton_geometry.ts";
import { type ImagePlayer, playImage, type PoseMatrices } from "./_image_player.ts";
import { type KeyTimeSource, measurePlan, sortedUnique } from "./_measure_plan.ts";

/** Largest distance between the joints and virtual points of two poses. */
export function poseDistance(
  a: Float32Array,
  b: Float32Array,
  parents: Int16Array,
  virtualDistance: number,
): number {
  return matrixDistance(
    modelMatrices(a, parents),
    modelMatrices(b, parents),
    parents.length,
    virtualDistance,
  );
}

/** Floats of {@linkcode modelPoints} per joint: the joint and its three virtual points. */
const POINT_FLOATS = 12;

/**
 * The joints and virtual points of `joints` model matrices (3x4 row-major)
 * into `out`: per joint its origin, then a point `virtualDistance` along
 * each of its axes in model space, whatever the joint's scale (vertices lie
 * so).
 */
function modelPoints(
  m: Float32Array,
  joints: number,
  virtualDistance: number,
  out: Float64Array,
): Float64Array {
  for (let j = 0; j < joints; j++) {
    const o = j * MATRIX_FLOATS, p = j * POINT_FLOATS;
    const x = m[o + 3], y = m[o + 7], z = m[o + 11];
    out[p] = x, out[p + 1] = y, out[p + 2] = z;
    for (let axis = 0; axis < 3; axis++) {
      const l = virtualDistance / axisLength(m, o, axis), q = p + 3 + axis * 3;
      out[q] = x + m[o + axis] * l;
      out[q + 1] = y + m[o + 4 + axis] * l;
      out[q + 2] = z + m[o + 8 + axis] * l;
    }
  }
  return out;
}

/** Largest distance between the points of `a` and `b` (`joints` joints each). */
function pointDistance(a: Float64Array, b: Float64Array, joints: number): number {
  let worst = 0;
  for (let i = 0; i < joints * POINT_FLOATS; i += 3) {
    const dx = a[i] - b[i], dy = a[i + 1] - b[i + 1], dz = a[i + 2] - b[i + 2];
    const d = dx * dx + dy * dy + dz * dz;
    // NaN (matrices overflowed) is the measurement: the build refuses the clip.
    if (d !== d) return NaN;
    if (d > worst) worst = d;
  }
  return Math.sqrt(worst);
}

/** Largest distance between the joints and virtual points of two sets of model matrices. */
function matrixDistance(
  ma: Float32Array,
  mb: Float32Array,
  joints: number,
  virtualDistance: number,
): number {
  const points = () => new Float64Array(joints * POINT_FLOATS);
  return pointDistance(
    modelPoints(ma, joints, virtualDistance, points()),
    modelPoints(mb, joints, virtualDistance, points()),
    joints,
  );
}

/** The exact pose of `clip` at `time` over the rest pose. */
export function exactPose(clip: Clip, restPose: Float32Array, time: number): Float32Array {
  const pose = restPose.slice();
  sampleClip(clip, time, pose);
  return pose;
}

/**
 * Most floats of exact matrices a build keeps for its later measurements
 * (a build whose first layout measures over its tolerance measures
 * another at mostly the same times); past them, they are computed again.
 */
const EXACT_CACHE_FLOATS = 1 << 18;

/** Whether joints `valid` (all when undefined) include every joint of `wanted` (all when undefined). */
function covers(valid: Uint8Array | undefined, wanted: Uint8Array | undefined): boolean {
  if (!valid) return true;
  if (!wanted) return false;
  for (let j = 0; j < wanted.length; j++) if (wanted[j] && !valid[j]) return false;
  return true;
}

/**
 * What one build's measurements share: the clip, its key times by joint,
 * scratch poses and matrices, exact matrices at the times measured, and
 * the images measured.
 */
export class ExactPoses {
  readonly #pose: Float32Array<ArrayBuffer>;
  readonly #local: Float32Array<ArrayBuffer>;
  readonly #model: Float32Array<ArrayBuffer>;
  /** Per channel, its first float in a pose. */
  readonly #fields: Int32Array;
  readonly #value = new Float64Array(4);
  /** Exact matrices by time, and the joints valid in them (all when undefined). */
  readonly #kept = new Map<number, { matrices: Float32Array; need?: Uint8Array }>();
  #keptFloats = 0;
  /** The clip's channels' key times, each with its joint. */
  readonly sources: readonly KeyTimeSource[];
  /**
   * Images measured in this build, with their error (`complete` when not
   * stopped at a bound): attempts and layouts often lay out the same bytes.
   * At most one per measurement, and a build's measurements are bounded.
   */
  readonly measured: { image: ClipImage; error: number; complete: boolean }[] = [];

  /**
   * `player`: the core the image plays on, when the build has one (the
   * measurement then samples with its kernels; else with the scalar twin).
   */
  constructor(
    readonly clip: Clip,
    readonly geometry: SkeletonGeometry,
    readonly virtualDistance: number,
    readonly player?: ImagePlayer,
  ) {
    this.sources = clip.channels.map((c) => ({ times: c.times, joints: [c.joint] }));
    this.#fields = Int32Array.from(clip.channels, (c) => poseIndex(c.joint, PATH_FIELDS[c.path]));
    const n = geometry.jointCount;
    this.#pose = new Float32Array(geometry.restPose.length);
    this.#local = new Float32Array(n * MATRIX_FLOATS);
    this.#model = new Float32Array(n * MATRIX_FLOATS);
  }

  /**
   * The exact clip's model matrices at `time` (valid until the next call),
   * by `matricesOf` when given (the core's kernels), else the scalar twin's;
   * with `need`, only the channels of the joints it marks are sampled (the
   * other joints' matrices are not those of the clip).
   */
  at(time: number, matricesOf?: PoseMatrices, need?: Uint8Array): Float32Array {
    const kept = this.#kept.get(time);
    if (kept && covers(kept.need, need)) return kept.matrices;
    const model = this.#matrices(time, matricesOf, need);
    if (this.#keptFloats + model.length <= EXACT_CACHE_FLOATS) {
      this.#kept.set(time, { matrices: model.slice(), need: need?.slice() });
      this.#keptFloats += model.length;
    }
    return model;
  }

  #matrices(time: number, matricesOf?: PoseMatrices, need?: Uint8Array): Float32Array {
    const { parents, restPose } = this.geometry;
    const pose = this.#pose, fields = this.#fields, value = this.#value;
    pose.set(restPose);
    this.clip.channels.forEach((channel, i) => {
      if (need && !need[channel.joint]) return;
      sampleChannel(channel, time, value);
      const n = channel.path === "rotation" ? 4 : 3;
      for (let c = 0; c < n; c++) pose[fields[i] + c * 4] = value[c];
    });
    return matricesOf?.(this.#pose) ??
      modelMatrices(this.#pose, parents, this.#local, this.#model);
  }
}

/** Units of work of measuring a clip of `channels` channels at `times` times: per time, each channel sampled and each joint's matrices twice. */
function measureWork(times: number, joints: number, channels: number): number {
  return times * (3 * joints + channels);
}

/**
 * Largest distance between joint `j`'s origin and virtual points in the
 * model matrices `a` and `b` (NaN when matrices overflowed).
 */
function jointDistance(a: Float32Array, b: Float32Array, j: number, virtualDistance: number) {
  const o = j * MATRIX_FLOATS;
  const x = a[o + 3] - b[o + 3], y = a[o + 7] - b[o + 7], z = a[o + 11] - b[o + 11];
  let worst = x * x + y * y + z * z;
  for (let axis = 0; axis < 3; axis++) {
    const la = virtualDistance / axisLength(a, o, axis);
    const lb = virtualDistance / axisLength(b, o, axis);
    const dx = x + a[o + axis] * la - b[o + axis] * lb;
    const dy = y + a[o + 4 + axis] * la - b[o + 4 + axis] * lb;
    const dz = z + a[o + 8 + axis] * la - b[o + 8 + axis] * lb;
    const d = dx * dx + dy * dy + dz * dz;
    if (d > worst || d !== d) worst = d;
  }
  return worst;
}

/**
 * The largest distance between the joints and virtual points of `image`
 * (played forward by the core's kernels, `playImage`, or by the scalar
 * reference when the build has no core) and of the exact clip, each joint
 * at the times of its {@linkcode measurePlan} over the clip's and the
 * image's keys; undefined, having measured nothing, when `fits` refuses
 * its work ({@linkcode measureWork}, counted before it runs). It stops
 * once the error reaches `bound` (the caller keeps only images under it),
 * returning the error so far, at least `bound`.
 */
export function measureError(
  image: ClipImage,
  exact: ExactPoses,
  fits: (units: number) => boolean = () => true,
  bound = Infinity,
): number | undefined {
  const { clip, geometry, virtualDistance } = exact;
  const { parents } = geometry;
  const n = parents.length;
  const unique = sortedUnique([...clip.channels.map((c) => c.times), ...image.keyTimes]);
  const sources = [
    ...exact.sources,
    ...image.keyTimes.map((times, i) => ({ times, joints: image.keyJoints[i] })),
  ];
  const plan = measurePlan(unique, sources, parents, image.pieceTimes);
  if (!fits(measureWork(plan.times.length, n, clip.channels.length))) return undefined;
  const known = exact.measured.find((m) => sameImage(m.image, image));
  if (known && (known.complete || known.error >= bound)) return known.error;
  // Only the times where some joint is measured; float32, as a playback
  // samples (the exact clip at the same times).
  const { mask } = plan;
  const rows: number[] = [];
  for (let i = 0; i < plan.times.length; i++) {
    let any = !mask;
    for (let j = i * n; !any && j < (i + 1) * n; j++) any = mask![j] === 1;
    if (any) rows.push(i);
  }
  const times = Float32Array.from(rows, (i) => plan.times[i]);
  let worst = 0;
  const boundSquared = bound * bound;
  // The joints measured at a time and their ancestors: the channels sampled.
  const need = new Uint8Array(n);
  const visit = (sampled: Float32Array, i: number, matricesOf?: PoseMatrices) => {
    const row = rows[i] * n;
    if (mask) {
      for (let j = 0; j < n; j++) need[j] = mask[row + j];
      for (let j = n - 1; j > 0; j--) if (need[j] && parents[j] >= 0) need[parents[j]] = 1;
    }
    const exactModel = exact.at(times[i], matricesOf, mask && need);
    for (let j = 0; j < n; j++) {
      if (mask && !mask[row + j]) continue;
      const d = jointDistance(sampled, exactModel, j, virtualDistance);
      // NaN (matrices overflowed) is the measurement: the build refuses the clip.
      if (d !== d) return (worst = NaN), false;
      if (d > worst) worst = d;
    }
    return worst < boundSquared;
  };
  if (!exact.player || !playImage(exact.player, image, times, visit)) {
    const floats = poseFloats(n);
    const cacheAt = image.bytes.length, poseAt = cacheAt + image.template.length;
    const buffer = new ArrayBuffer(poseAt + floats * 4);
    new Uint8Array(buffer).set(image.bytes);
    new Uint8Array(buffer).set(image.template, cacheAt);
    const memory = sampleMemory(buffer), pose = new Float32Array(buffer, poseAt, floats);
    const local = new Float32Array(n * MATRIX_FLOATS), model = new Float32Array(n * MATRIX_FLOATS);
    const groups = Math.ceil(n / 4);
    for (let i = 0; i < times.length; i++) {
      sampleCompact(memory, 0, cacheAt, poseAt, groups, times[i]);
      // The exact clip's matrices go to ExactPoses' own arrays: these stay.
      if (!visit(modelMatrices(pose, parents, local, model), i)) break;
    }
  }
  worst = Math.sqrt(worst);
  const complete = !(worst >= bound);
  if (known) known.error = worst, known.complete = complete;
  else exact.measured.push({ image, error: worst, complete });
  return worst;
}

/** Whether two images sample alike: the same bytes and cache template. */
function sameImage(a: ClipImage, b: ClipImage): boolean {
  return equalBytes(a.bytes, b.bytes) && equalBytes(a.template, b.template);
}

function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
