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
import { ChannelCursor } from "./_channel_cursor.ts";
import { MATRIX_FLOATS, PoseField, poseFloats, poseIndex } from "../simd/memory/layout.ts";
import { sampleCompact, sampleMemory } from "../simd/scalar/sample.ts";
import { standaloneCache } from "./_playback_cache.ts";
import { type ClipImage, sameBytes } from "./_clip_image.ts";
import { axisLength, modelMatrices, type SkeletonGeometry } from "./_skeleton_geometry.ts";
import { type ImagePlayer, playImage, type PoseMatrices } from "./_image_player.ts";
import { type KeyTimeSource, measurePlan, sortedUnique, withTimes } from "./_measure_plan.ts";

const PATH_FIELDS = {
  translation: PoseField.TX,
  rotation: PoseField.QX,
  scale: PoseField.SX,
} as const;

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

/** Whether joints `valid[at..at + n)` include every joint of `wanted` (all when undefined). */
function covers(valid: Uint8Array, at: number, n: number, wanted: Uint8Array | undefined): boolean {
  for (let j = 0; j < n; j++) if (!valid[at + j] && (!wanted || wanted[j])) return false;
  return true;
}

/** Exact matrices at ascending times, and per time the joints valid in them. */
interface KeptPoses {
  times: Float32Array;
  matrices: Float32Array;
  need: Uint8Array;
  /** Times it holds, and the most it may hold for its current owner. */
  count: number;
  slots: number;
  /** The build whose measurements it holds. */
  owner?: ExactPoses;
}

/** No kept poses (a build before its first measurement). */
const NO_POSES: KeptPoses = {
  times: new Float32Array(0),
  matrices: new Float32Array(0),
  need: new Uint8Array(0),
  count: 0,
  slots: 0,
};

/**
 * The two stores of kept poses, shared by every build (builds are
 * synchronous; a build claims them at its first measurement, and a store
 * another build claimed since is no longer its own): a build's own
 * arrays, up to a megabyte each, were allocated and zeroed for every clip
 * measured once. Grown as needed up to {@linkcode EXACT_CACHE_FLOATS}.
 */
const keptStores: KeptPoses[] = [0, 1].map(() => ({ ...NO_POSES }));

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
  /** Per channel, a cursor (measured times go forward). */
  readonly #cursors: ChannelCursor[];
  /** The exact matrices of the measurement before (reused) and of this one (kept for the next). */
  #previous: KeptPoses = NO_POSES;
  #current: KeptPoses = NO_POSES;
  /** The first of `#previous`'s times not before the time asked last. */
  #walk = 0;
  /** Whether {@linkcode at} keeps its matrices for the next measurement (see `measureError`). */
  keep = true;
  /** The clip's channels' key times, each with its joint. */
  readonly sources: readonly KeyTimeSource[];
  /** The clip's distinct key times, ascending. */
  readonly keyTimes: Float64Array;
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
    this.keyTimes = sortedUnique(clip.channels.map((c) => c.times));
    this.#fields = Int32Array.from(clip.channels, (c) => poseIndex(c.joint, PATH_FIELDS[c.path]));
    this.#cursors = clip.channels.map((c) => new ChannelCursor(c));
    const n = geometry.jointCount;
    // The rest pose once: a time writes the channels of the joints it
    // needs, and the others' matrices are not the clip's anyway.
    this.#pose = geometry.restPose.slice();
    this.#local = new Float32Array(n * MATRIX_FLOATS);
    this.#model = new Float32Array(n * MATRIX_FLOATS);
  }

  /**
   * The exact clip's model matrices at `time` (valid until the next call),
   * by `matricesOf` when given (the core's kernels), else the scalar twin's;
   * with `need`, only the channels of the joints it marks are sampled (the
   * other joints' matrices are not those of the clip).
   */
  at(time: number, matricesOf?: PoseMatrices, need?: Uint8Array, last?: number): Float32Array {
    const n = this.geometry.jointCount, floats = n * MATRIX_FLOATS;
    const previous = this.#previous, current = this.#current;
    let w = this.#walk;
    while (w < previous.count && previous.times[w] < time) w++;
    this.#walk = w;
    const model = w < previous.count && previous.times[w] === time &&
        covers(previous.need, w * n, n, need)
      ? previous.matrices.subarray(w * floats, w * floats + floats)
      : this.#matrices(time, matricesOf, need, last);
    const slot = current.count;
    if (this.keep && slot < current.slots) {
      current.times[slot] = time;
      current.matrices.set(model, slot * floats);
      if (need) current.need.set(need, slot * n);
      else current.need.fill(1, slot * n, slot * n + n);
      current.count++;
    }
    return model;
  }

  /**
   * Starts a measurement at `times` ascending times: the exact matrices of
   * the last one that kept any are what {@linkcode at} reuses, and this
   * one keeps up to {@linkcode EXACT_CACHE_FLOATS} of its own.
   */
  begin(times: number): void {
    if (this.#current.owner !== this) this.#current = NO_POSES;
    if (this.#previous.owner !== this) this.#previous = NO_POSES;
    if (this.#current.count > 0) this.#previous = this.#current;
    const store = keptStores[this.#previous === keptStores[0] ? 1 : 0];
    const n = this.geometry.jointCount, floats = n * MATRIX_FLOATS;
    const slots = Math.min(times, Math.floor(EXACT_CACHE_FLOATS / floats));
    if (store.times.length < slots || store.matrices.length < slots * floats) {
      const most = Math.floor(EXACT_CACHE_FLOATS / floats);
      const grown = Math.min(most, Math.max(slots, 2 * store.times.length));
      store.times = new Float32Array(grown);
      store.matrices = new Float32Array(Math.max(grown * floats, store.matrices.length));
    }
    if (store.need.length < slots * n) store.need = new Uint8Array(slots * n);
    store.count = 0, store.slots = slots, store.owner = this;
    this.#current = store;
    this.#walk = 0;
  }

  #matrices(
    time: number,
    matricesOf?: PoseMatrices,
    need?: Uint8Array,
    last?: number,
  ): Float32Array {
    const { parents } = this.geometry;
    const pose = this.#pose, fields = this.#fields, value = this.#value;
    const channels = this.clip.channels, cursors = this.#cursors;
    for (let i = 0; i < channels.length; i++) {
      const channel = channels[i];
      if (need && !need[channel.joint]) continue;
      cursors[i].at(time, value);
      const n = channel.path === "rotation" ? 4 : 3;
      for (let c = 0; c < n; c++) pose[fields[i] + c * 4] = value[c];
    }
    return matricesOf?.(this.#pose, last) ??
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
  // The three axes unrolled, their lengths as `axisLength` computes them
  // (this is the measurement's innermost loop).
  for (let axis = 0; axis < 3; axis++) {
    const ax = a[o + axis], ay = a[o + 4 + axis], az = a[o + 8 + axis];
    const bx = b[o + axis], by = b[o + 4 + axis], bz = b[o + 8 + axis];
    const la = virtualDistance / (Math.sqrt(ax * ax + ay * ay + az * az) || 1);
    const lb = virtualDistance / (Math.sqrt(bx * bx + by * by + bz * bz) || 1);
    const dx = x + ax * la - bx * lb;
    const dy = y + ay * la - by * lb;
    const dz = z + az * la - bz * lb;
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
 * returning the error so far, at least `bound`. It keeps its exact matrices
 * for the next measurement once its error passes `keepAbove` (the build's
 * tolerance: within it, none follows).
 */
export function measureError(
  image: ClipImage,
  exact: ExactPoses,
  fits: (units: number) => boolean = () => true,
  bound = Infinity,
  keepAbove = 0,
): number | undefined {
  const { clip, geometry, virtualDistance } = exact;
  const { parents } = geometry;
  const n = parents.length;
  const unique = withTimes(exact.keyTimes, image.keyTimes);
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
  // With the last joint measured at each (the kernels compute joints 0 to it).
  const rows: number[] = [], lastOf: number[] = [];
  for (let i = 0; i < plan.times.length; i++) {
    let last = mask ? -1 : n - 1;
    for (let j = (i + 1) * n - 1; last < 0 && j >= i * n; j--) if (mask![j] === 1) last = j - i * n;
    if (last >= 0) rows.push(i), lastOf.push(last);
  }
  const lasts = new Int32Array(lastOf);
  const times = new Float32Array(rows.length);
  for (let i = 0; i < rows.length; i++) times[i] = plan.times[rows[i]];
  exact.begin(times.length);
  let worst = 0;
  const boundSquared = bound * bound, keepSquared = keepAbove * keepAbove;
  exact.keep = !(keepSquared > 0);
  // The joints measured at a time and their ancestors: the channels sampled.
  const need = new Uint8Array(n);
  const visit = (sampled: Float32Array, i: number, matricesOf?: PoseMatrices) => {
    const row = rows[i] * n;
    if (mask) {
      for (let j = 0; j < n; j++) need[j] = mask[row + j];
      for (let j = n - 1; j > 0; j--) if (need[j] && parents[j] >= 0) need[parents[j]] = 1;
    }
    const last = lasts[i];
    const exactModel = exact.at(times[i], matricesOf, mask && need, last);
    for (let j = 0; j <= last; j++) {
      if (mask && !mask[row + j]) continue;
      const d = jointDistance(sampled, exactModel, j, virtualDistance);
      // NaN (matrices overflowed) is the measurement: the build refuses the clip.
      if (d !== d) return (worst = NaN), false;
      if (d > worst) worst = d;
    }
    if (worst > keepSquared) exact.keep = true;
    return worst < boundSquared;
  };
  if (!exact.player || !playImage(exact.player, image, times, visit, lasts)) {
    const floats = poseFloats(n), groups = Math.ceil(n / 4);
    const cache = standaloneCache(image.template, groups), cacheAt = image.bytes.length;
    const poseAt = cacheAt + cache.length, buffer = new ArrayBuffer(poseAt + floats * 4);
    new Uint8Array(buffer).set(image.bytes);
    new Uint8Array(buffer).set(cache, cacheAt);
    const memory = sampleMemory(buffer), pose = new Float32Array(buffer, poseAt, floats);
    const local = new Float32Array(n * MATRIX_FLOATS), model = new Float32Array(n * MATRIX_FLOATS);
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
  return sameBytes(a.bytes, b.bytes) && sameBytes(a.template, b.template);
}
