/**
 * Animation clips as plain data, and their scalar sampling.
 *
 * A {@linkcode Clip} is the part of one glTF animation that drives one
 * skeleton: its channels name skeleton joints by index (the importer's
 * parents-before-children numbering), and their keys are kept as the file
 * gives them, so that sampling reproduces the glTF specification and
 * three.js to float precision:
 *
 * - `STEP` holds key `i` on `[t_i, t_(i+1))`.
 * - `LINEAR` lerps translation and scale, and slerps rotation exactly as
 *   three.js `Quaternion.slerpFlat` does (shortest arc; below an angle of
 *   about 3.6° (`dot >= 0.9995`) it lerps and renormalizes instead).
 * - `CUBICSPLINE` is the glTF Hermite spline (tangents scaled by the key
 *   interval); a rotation is normalized afterwards.
 *
 * Times before the first key give the first key's value, times after the
 * last key the last key's value.
 *
 * @example Sampling a clip over the rest pose
 * ```ts
 * import { importGltf } from "@marrow/anim/gltf";
 * import { sampleClip, wrapTime } from "@marrow/anim/clips";
 *
 * // A path, file: URL or bytes; here a test asset beside the repository.
 * const file = new URL("../../shared/assets/gltf/Fox.glb", import.meta.url);
 * const [character] = (await importGltf(file)).skeletons;
 * const pose = character.skeleton.restPose.slice();
 * const clip = character.clips[0];
 * sampleClip(clip, wrapTime(4.2, clip.duration, "loop"), pose);
 * ```
 * @module
 */

import { POSE_GROUP_FLOATS, PoseField } from "../simd/memory/layout.ts";
import type { MorphWeightsChannel } from "./morph.ts";
import { describeValue, typedArrayKind } from "../simd/memory/internal.ts";

/** Which joint property a channel animates. */
export type ChannelPath = "translation" | "rotation" | "scale";

/** glTF sampler interpolation. */
export type Interpolation = "STEP" | "LINEAR" | "CUBICSPLINE";

/** One animated property of one joint. */
export interface ClipChannel {
  /** Skeleton joint index (parents-before-children numbering). */
  readonly joint: number;
  /** The animated property: 3 components, or 4 (x, y, z, w) for rotation. */
  readonly path: ChannelPath;
  /** How values between keys are computed. */
  readonly interpolation: Interpolation;
  /** Key times in seconds, strictly increasing. */
  readonly times: Float32Array;
  /**
   * Key values, `times.length` elements of 3 or 4 components. For
   * `CUBICSPLINE` each key holds three elements, in-tangent, value,
   * out-tangent, as in glTF. `LINEAR` and `STEP` rotations are unit
   * quaternions (the importer normalizes them).
   */
  readonly values: Float32Array;
  /** Index of the glTF node the channel targets, for diagnostics. */
  readonly node: number;
}

/** The channels of one glTF animation that drive one skeleton. */
export interface Clip {
  /** Animation name from the file (may be empty). */
  readonly name: string;
  /** Index of the animation in the glTF file. */
  readonly animation: number;
  /**
   * Time of the earliest key over all channels of the glTF animation (also
   * those of other skeletons and morph weights). Often 0, but not always.
   */
  readonly start: number;
  /**
   * Time of the latest key over all channels of the glTF animation: the
   * clip plays over `[0, duration]`, as three.js `AnimationClip` does, so
   * every skeleton of a file stays in step with the others.
   */
  readonly duration: number;
  /** Channels, at most one per (joint, path). May be empty. */
  readonly channels: readonly ClipChannel[];
  /**
   * The animation's morph `weights` channels of the meshes that go with the
   * skeleton, at most one per node; absent when there are none.
   */
  readonly morphChannels?: readonly MorphWeightsChannel[];
}

/** How a playback time outside `[0, duration]` is brought inside. */
export type WrapMode = "loop" | "clamp";

/** Components of each path's value. */
function pathSize(path: ChannelPath): 3 | 4 {
  return path === "rotation" ? 4 : 3;
}

/** Pose field of a path's first component. */
function pathField(path: ChannelPath): number {
  return path === "translation" ? PoseField.TX : path === "rotation" ? PoseField.QX : PoseField.SX;
}

/**
 * Index `i` of the key interval `[times[i], times[i + 1])` that holds
 * `time = at[k]`, for `times[0] < time < times[n - 1]`.
 */
function findInterval(times: Float32Array, at: Float64Array, k: number): number {
  const time = at[k];
  let lo = 0, hi = times.length - 1;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (times[mid] <= time) lo = mid;
    else hi = mid;
  }
  return lo;
}

// Scratch for one sampled value; sampling is synchronous, so sharing is safe.
const scratch = new Float64Array(4);
/** A sample's time (0) and interpolation weight (1), passed unboxed. */
const timeScratch = new Float64Array(2);

/**
 * Samples one channel at `time` into `out[0..n)` (n = 3, or 4 for
 * rotation), clamping outside the key range.
 */
export function sampleChannel(
  channel: ClipChannel,
  time: number,
  out: Float64Array | Float32Array | number[],
): void {
  checkSampling("sampleChannel", channel, time, out);
  timeScratch[0] = time;
  sampleChannelAt(channel, timeScratch, 0, out);
}

/**
 * @internal What a sampler is given, checked for its kind only: a channel
 * whose keys are Float32Arrays, a numeric time, an array to write. A
 * channel inconsistent in itself samples to NaN (`validateClip` refuses
 * it).
 */
export function checkSampling(
  caller: string,
  channel: { readonly times: Float32Array; readonly values: Float32Array },
  time: number,
  out: unknown,
): void {
  if (
    !channel || typeof channel !== "object" ||
    typedArrayKind(channel.times) !== "Float32Array" ||
    typedArrayKind(channel.values) !== "Float32Array"
  ) {
    throw new TypeError(
      `${caller}: channel: expected times and values in Float32Arrays, got ${
        describeValue(channel)
      }`,
    );
  }
  if (typeof time !== "number") {
    throw new TypeError(`${caller}: time: expected a number, got ${describeValue(time)}`);
  }
  if (!out || typeof out !== "object") {
    throw new TypeError(`${caller}: out: expected an array, got ${describeValue(out)}`);
  }
}

/**
 * {@linkcode sampleChannel} at time `at[k]`: what runs every frame (root
 * motion) passes its times in an array, since a double passed to a
 * function the compiler does not inline is a new heap number.
 */
export function sampleChannelAt(
  channel: ClipChannel,
  at: Float64Array,
  k: number,
  out: Float64Array | Float32Array | number[],
): void {
  const { times, values, interpolation, path } = channel;
  sampleKeysAt(times, values, interpolation, pathSize(path), path === "rotation", at, k, out);
}

/**
 * Keys of `n` values each (`times`, `values`, glTF's layout: a cubic key
 * holds its in-tangents, values and out-tangents) sampled at time `at[k]`
 * into `out[0..n)`, clamping outside the key range: `STEP` holds a key,
 * `LINEAR` interpolates (slerp when `rotation`), `CUBICSPLINE` is glTF's
 * Hermite spline (normalized when `rotation`). Channels and morph weights
 * are sampled here.
 */
export function sampleKeysAt(
  times: Float32Array,
  values: Float32Array,
  interpolation: Interpolation,
  n: number,
  rotation: boolean,
  at: Float64Array,
  k: number,
  out: Float64Array | Float32Array | number[],
): void {
  const time = at[k];
  const last = times.length - 1;
  const cubic = interpolation === "CUBICSPLINE";
  // Cubic keys are (in-tangent, value, out-tangent): the value is the middle.
  const stride = cubic ? 3 * n : n;
  const valueOffset = cubic ? n : 0;
  if (!(time > times[0]) || last === 0) {
    for (let c = 0; c < n; c++) out[c] = values[valueOffset + c];
    return;
  }
  if (time >= times[last]) {
    for (let c = 0; c < n; c++) {
      out[c] = values[last * stride + valueOffset + c];
    }
    return;
  }
  const i = findInterval(times, at, k);
  const t0 = times[i], t1 = times[i + 1];
  const a = i * stride, b = a + stride;
  if (interpolation === "STEP") {
    for (let c = 0; c < n; c++) out[c] = values[a + c];
    return;
  }
  const u = (time - t0) / (t1 - t0);
  if (cubic) {
    const dt = t1 - t0;
    const u2 = u * u, u3 = u2 * u;
    // The same grouping as three.js GLTFCubicSplineInterpolant, so that the
    // results agree to the last bits.
    const s2 = -2 * u3 + 3 * u2;
    const s3 = u3 - u2;
    const s0 = 1 - s2;
    const s1 = s3 - u2 + u;
    for (let c = 0; c < n; c++) {
      const p0 = values[a + n + c], m0 = values[a + 2 * n + c] * dt;
      const p1 = values[b + n + c], m1 = values[b + c] * dt;
      out[c] = s0 * p0 + s1 * m0 + s2 * p1 + s3 * m1;
    }
    if (rotation) normalize4(out);
    return;
  }
  if (!rotation) {
    const s = 1 - u;
    for (let c = 0; c < n; c++) out[c] = values[a + c] * s + values[b + c] * u;
    return;
  }
  timeScratch[1] = u;
  slerp(values, a, values, b, timeScratch, out);
}

function normalize4(q: Float64Array | Float32Array | number[]): void {
  const len = Math.sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  const s = len > 0 ? 1 / len : 0;
  q[0] *= s, q[1] *= s, q[2] *= s, q[3] *= s;
}

/**
 * Shortest-arc slerp of `a[ia..ia+4)` to `b[ib..ib+4)` at `weight[1]`, the algorithm of
 * three.js `Quaternion.slerpFlat` (its quaternion tracks use it), including
 * its lerp-and-normalize fallback for nearly equal rotations, so that
 * results match three.js to rounding.
 */
function slerp(
  a: Float32Array,
  ia: number,
  b: Float32Array,
  ib: number,
  weight: Float64Array,
  out: Float64Array | Float32Array | number[],
): void {
  let t = weight[1];
  let x0 = a[ia], y0 = a[ia + 1], z0 = a[ia + 2], w0 = a[ia + 3];
  let x1 = b[ib], y1 = b[ib + 1], z1 = b[ib + 2], w1 = b[ib + 3];
  if (x0 !== x1 || y0 !== y1 || z0 !== z1 || w0 !== w1) {
    let dot = x0 * x1 + y0 * y1 + z0 * z1 + w0 * w1;
    if (dot < 0) {
      x1 = -x1, y1 = -y1, z1 = -z1, w1 = -w1;
      dot = -dot;
    }
    let s = 1 - t;
    // At 0 (a key: a build samples at every key) the weights are exactly
    // 1 and 0, and the key is the value, without the trigonometry.
    if (dot < 0.9995 && t !== 0) {
      const theta = Math.acos(dot);
      const sin = Math.sin(theta);
      s = Math.sin(s * theta) / sin;
      t = Math.sin(t * theta) / sin;
      x0 = x0 * s + x1 * t, y0 = y0 * s + y1 * t;
      z0 = z0 * s + z1 * t, w0 = w0 * s + w1 * t;
    } else if (!(dot < 0.9995)) {
      x0 = x0 * s + x1 * t, y0 = y0 * s + y1 * t;
      z0 = z0 * s + z1 * t, w0 = w0 * s + w1 * t;
      const f = 1 / Math.sqrt(x0 * x0 + y0 * y0 + z0 * z0 + w0 * w0);
      x0 *= f, y0 *= f, z0 *= f, w0 *= f;
    }
  }
  out[0] = x0, out[1] = y0, out[2] = z0, out[3] = w0;
}

/**
 * Samples every channel of `clip` at `time` (seconds, clamped to the key
 * range of each channel) into the SoA×4 `pose`, overwriting only the
 * animated fields: start from a copy of the skeleton's rest pose, since
 * glTF leaves non-animated properties at their node values.
 */
export function sampleClip(clip: Clip, time: number, pose: Float32Array): void {
  if (!clip || typeof clip !== "object" || !Array.isArray(clip.channels)) {
    throw new TypeError(`sampleClip: clip: expected a Clip, got ${describeValue(clip)}`);
  }
  if (typedArrayKind(pose) !== "Float32Array") {
    throw new TypeError(`sampleClip: pose: expected a Float32Array, got ${describeValue(pose)}`);
  }
  for (const channel of clip.channels) {
    sampleChannel(channel, time, scratch);
    const j = channel.joint;
    const base = (j >> 2) * POSE_GROUP_FLOATS + (j & 3) +
      pathField(channel.path) * 4;
    const n = pathSize(channel.path);
    for (let c = 0; c < n; c++) pose[base + c * 4] = scratch[c];
  }
}

/**
 * Brings a playback time into `[0, duration]`: `"loop"` wraps it (a
 * negative time wraps from the end), `"clamp"` holds the ends. This is
 * the clip time three.js `AnimationAction` uses with `LoopRepeat` and with
 * `LoopOnce` plus `clampWhenFinished`. A clip of zero duration, a NaN
 * time, and an infinite time looped give 0.
 */
export function wrapTime(
  time: number,
  duration: number,
  mode: WrapMode,
): number {
  if (typeof time !== "number" || typeof duration !== "number") {
    throw new TypeError(
      `wrapTime: expected a time and a duration in numbers, got ${describeValue(time)} and ${
        describeValue(duration)
      }`,
    );
  }
  timeScratch[0] = time;
  timeScratch[1] = duration;
  wrapTimeAt(timeScratch, 0, 1, mode);
  return timeScratch[0];
}

/**
 * {@linkcode wrapTime} of time `at[k]` and duration `at[d]`, in place: for
 * what runs every frame (root motion), whose doubles would be new heap
 * numbers as arguments and results of a call the compiler does not inline.
 */
export function wrapTimeAt(at: Float64Array, k: number, d: number, mode: WrapMode): void {
  const time = at[k], duration = at[d];
  if (!(duration > 0) || Number.isNaN(time)) {
    at[k] = 0;
  } else if (mode === "clamp") {
    at[k] = time < 0 ? 0 : time > duration ? duration : time;
  } else if (!Number.isFinite(time)) {
    // A time that overflowed (a huge speed times a huge delta) has no place
    // in the loop; the clip starts over rather than sampling at NaN.
    at[k] = 0;
  } else {
    const t = time % duration;
    at[k] = t < 0 ? t + duration : t;
  }
}
