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
import { sampleClip } from "./clip.ts";
import { MATRIX_FLOATS, poseFloats } from "../simd/memory/layout.ts";
import { sampleCompact } from "../simd/scalar/sample.ts";
import type { ClipImage } from "./_clip_image.ts";
import { axisLength, modelMatrices, type SkeletonGeometry } from "./_skeleton_geometry.ts";
import { type ImagePlayer, playImage, type PoseMatrices } from "./_image_player.ts";

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

/** The distinct values of `lists`, ascending (the first of equal ones kept, in list order). */
function sortedUnique(lists: Iterable<ArrayLike<number>>): number[] {
  const all: number[] = [];
  for (const times of lists) for (let i = 0; i < times.length; i++) all.push(times[i]);
  all.sort((x, y) => x - y);
  return all.filter((t, i) => i === 0 || t !== all[i - 1]);
}

/**
 * Times to measure a clip's error at: every key time of `keyTimes` (the
 * original and the kept ones), halfway between neighbours, at most
 * `limit` of them (evenly picked). `sortedBase`, distinct ascending times
 * (the clip's, computed once per build), joins them ahead of `keyTimes`.
 */
function measureTimes(
  keyTimes: Iterable<ArrayLike<number>>,
  limit = 4096,
  sortedBase: readonly number[] = [],
): Float64Array {
  const added = sortedUnique(keyTimes);
  // Merge: of equal times the base's is kept, as a sort of the base's
  // times ahead of the others keeps it.
  const unique: number[] = [];
  for (let i = 0, k = 0; i < sortedBase.length || k < added.length;) {
    const t = k >= added.length || (i < sortedBase.length && sortedBase[i] <= added[k])
      ? sortedBase[i++]
      : added[k++];
    if (unique.length === 0 || t !== unique[unique.length - 1]) unique.push(t);
  }
  const out: number[] = [];
  unique.forEach((t, i) => {
    out.push(t);
    if (i + 1 < unique.length) {
      for (const f of [0.25, 0.5, 0.75]) out.push(t + (unique[i + 1] - t) * f);
    }
  });
  if (out.length <= limit) return Float64Array.from(out);
  return Float64Array.from({ length: limit }, (_, i) => out[Math.floor((i * out.length) / limit)]);
}

/** The exact pose of `clip` at `time` over the rest pose. */
export function exactPose(clip: Clip, restPose: Float32Array, time: number): Float32Array {
  const pose = restPose.slice();
  sampleClip(clip, time, pose);
  return pose;
}

/** Most floats of exact model matrices a build keeps between its measurements. */
const EXACT_CACHE_FLOATS = 1 << 21;

/**
 * What one build's measurements share: the exact clip's model matrices at
 * the times measured (a build measures several layouts and attempts at
 * mostly the same times), up to {@linkcode EXACT_CACHE_FLOATS}.
 */
export class ExactPoses {
  readonly #points = new Map<number, Float64Array<ArrayBuffer>>();
  #floats = 0;
  readonly #pose: Float32Array<ArrayBuffer>;
  readonly #local: Float32Array<ArrayBuffer>;
  readonly #model: Float32Array<ArrayBuffer>;
  readonly #scratch: Float64Array<ArrayBuffer>;
  /** The clip's distinct key times, ascending. */
  readonly keyTimes: readonly number[];
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
    this.keyTimes = sortedUnique(clip.channels.map((c) => c.times));
    const n = geometry.jointCount;
    this.#pose = new Float32Array(geometry.restPose.length);
    this.#local = new Float32Array(n * MATRIX_FLOATS);
    this.#model = new Float32Array(n * MATRIX_FLOATS);
    this.#scratch = new Float64Array(n * POINT_FLOATS);
  }

  /**
   * The exact clip's joints and virtual points at `time` (`modelPoints`;
   * valid until the next call when not kept), its model matrices by
   * `matricesOf` when given (the core's kernels), else the scalar twin's.
   */
  at(time: number, matricesOf?: PoseMatrices): Float64Array {
    const kept = this.#points.get(time);
    if (kept) return kept;
    const { parents, restPose } = this.geometry;
    this.#pose.set(restPose);
    sampleClip(this.clip, time, this.#pose);
    // Doubles: two floats each.
    const floats = parents.length * POINT_FLOATS * 2;
    const keep = this.#floats + floats <= EXACT_CACHE_FLOATS;
    const points = keep ? new Float64Array(parents.length * POINT_FLOATS) : this.#scratch;
    const model = matricesOf?.(this.#pose) ??
      modelMatrices(this.#pose, parents, this.#local, this.#model);
    modelPoints(model, parents.length, this.virtualDistance, points);
    if (keep) this.#points.set(time, points), this.#floats += floats;
    return points;
  }
}

/** Units of work of measuring a clip of `channels` channels at `times` times: per time, each channel sampled and each joint's matrices twice. */
function measureWork(times: number, joints: number, channels: number): number {
  return times * (3 * joints + channels);
}

/**
 * The largest distance between the joints and virtual points of `image`
 * (played forward by the core's kernels, `playImage`, or by the scalar
 * reference when the build has no core) and of the exact clip, at the
 * times of {@linkcode measureTimes} over the clip's and the image's keys;
 * undefined, having measured nothing, when `fits` refuses its work
 * ({@linkcode measureWork}, counted before it runs). It stops once the
 * error reaches `bound` (the caller keeps only images under it), returning
 * the error so far, at least `bound`.
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
  // Float32 times, as a playback samples (the exact clip at the same times).
  const times = Float32Array.from(measureTimes(image.keyTimes, undefined, exact.keyTimes));
  if (!fits(measureWork(times.length, n, clip.channels.length))) return undefined;
  const known = exact.measured.find((m) => sameImage(m.image, image));
  if (known && (known.complete || known.error >= bound)) return known.error;
  let worst = 0;
  const points = new Float64Array(n * POINT_FLOATS);
  const visit = (sampled: Float32Array, i: number, matricesOf?: PoseMatrices) => {
    modelPoints(sampled, n, virtualDistance, points);
    worst = Math.max(worst, pointDistance(points, exact.at(times[i], matricesOf), n));
    return worst < bound;
  };
  if (!exact.player || !playImage(exact.player, image, times, visit)) {
    const floats = poseFloats(n);
    const cacheAt = image.bytes.length, poseAt = cacheAt + image.template.length;
    const buffer = new ArrayBuffer(poseAt + floats * 4);
    new Uint8Array(buffer).set(image.bytes);
    new Uint8Array(buffer).set(image.template, cacheAt);
    const view = new DataView(buffer), pose = new Float32Array(buffer, poseAt, floats);
    const local = new Float32Array(n * MATRIX_FLOATS), model = new Float32Array(n * MATRIX_FLOATS);
    const groups = Math.ceil(n / 4);
    for (let i = 0; i < times.length; i++) {
      sampleCompact(view, 0, cacheAt, poseAt, groups, times[i]);
      if (!visit(modelMatrices(pose, parents, local, model), i)) break;
    }
  }
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
