/**
 * Argument checks shared by the core's buffers and the assets built on
 * them. Each throws a `RangeError` naming the argument and index of the
 * first bad value, before anything is allocated or written.
 *
 * @module
 */

/** Most influences one vertex may have (the core stores counts as bytes). */
export const MAX_INFLUENCES = 255;
/** Most joints a skeleton may have (parents are stored as `i16`). */
const MAX_JOINTS = 32767;
// The largest magnitude of a bind-mesh coordinate is the core's (the morph
// kernel clamps to it), so it is defined with the core's constants.
export { MAX_MESH_MAGNITUDE } from "../abi.ts";

/** `value` must be a whole number >= 0. */
export function checkCount(name: string, value: number): void {
  if (!Number.isInteger(value) || value < 0) {
    throw new RangeError(`${name}: expected a whole number >= 0, got ${value}`);
  }
}

/** `value` must be a whole number in `0..length-1`. */
export function checkIndex(name: string, value: number, length: number): void {
  if (!Number.isInteger(value) || value < 0 || value >= length) {
    throw new RangeError(`${name}: expected 0..${length - 1}, got ${value}`);
  }
}

/** Parents must be -1 (a root) or an earlier joint, so one forward pass works. */
export function checkParents(parents: ArrayLike<number>): void {
  if (parents.length > MAX_JOINTS) {
    throw new RangeError(`parents: at most ${MAX_JOINTS} joints, got ${parents.length}`);
  }
  for (let i = 0; i < parents.length; i++) {
    const p = parents[i];
    if (!Number.isInteger(p) || p < -1 || p >= i) {
      throw new RangeError(
        `parents[${i}]: expected -1 (root) or a joint before ${i}, got ${p}` +
          (Number.isInteger(p) && p >= i ? " (parents must come before their children)" : ""),
      );
    }
  }
}

/**
 * The first `length` values must be finite and below `limit` in magnitude;
 * `stride` names elements and components in the message.
 */
export function checkFinite(
  name: string,
  values: ArrayLike<number>,
  stride: number,
  length: number,
  limit = Infinity,
): void {
  if (!values || typeof values.length !== "number" || values.length < length) {
    throw new RangeError(`${name}: expected at least ${length} values, got ${values?.length}`);
  }
  for (let i = 0; i < length; i++) {
    if (!(Math.abs(values[i]) < limit)) {
      throw new RangeError(
        `${name}[${i}] (element ${Math.floor(i / stride)}, component ${i % stride}) is ${
          values[i]
        }${Number.isFinite(values[i]) ? `, beyond ±${limit}` : ""}`,
      );
    }
  }
}

/** What {@linkcode checkInfluences} found. */
interface InfluenceTotals {
  /** Number of vertices. */
  readonly vertexCount: number;
  /** Sum of the influence counts. */
  readonly influenceCount: number;
  /** Highest joint used + 1. */
  readonly jointCount: number;
  /** Most influences of any vertex. */
  readonly maxInfluences: number;
}

/**
 * The one validator of skin influences. `counts` gives each vertex's
 * influences (1..255); `joints` and `weights` list them vertex by vertex.
 * Joints must be whole numbers below `jointLimit`, weights finite and
 * >= 0, and, with `positiveSums`, each vertex's weights must sum above 0.
 * Names use `where` (for example `"joints"` or `"mesh 2: joints"`).
 */
export function checkInfluences(
  counts: ArrayLike<number>,
  joints: ArrayLike<number>,
  weights: ArrayLike<number>,
  jointLimit: number,
  options: {
    readonly positiveSums?: boolean;
    readonly where?: string;
    readonly countsName?: string;
  } = {},
): InfluenceTotals {
  const where = options.where ? `${options.where}: ` : "";
  const countsName = options.countsName ?? "counts";
  if (!counts || typeof counts.length !== "number") {
    throw new RangeError(`${where}influence counts: expected an array of counts`);
  }
  let influenceCount = 0, maxInfluences = 0;
  for (let v = 0; v < counts.length; v++) {
    const n = counts[v];
    if (!Number.isInteger(n) || n < 1 || n > MAX_INFLUENCES) {
      throw new RangeError(
        `${where}${countsName}[${v}]: influences per vertex must be 1..${MAX_INFLUENCES}, got ${n}`,
      );
    }
    influenceCount += n;
    if (n > maxInfluences) maxInfluences = n;
  }
  for (const [name, list] of [["joints", joints], ["weights", weights]] as const) {
    if (!list || typeof list.length !== "number" || list.length < influenceCount) {
      throw new RangeError(
        `${where}${name}: expected at least ${influenceCount} values, got ${list?.length}`,
      );
    }
  }
  let maxJoint = -1;
  for (let v = 0, k = 0; v < counts.length; v++) {
    let sum = 0;
    for (let i = 0; i < counts[v]; i++, k++) {
      const j = joints[k], w = weights[k];
      if (!Number.isInteger(j) || j < 0 || j >= jointLimit) {
        throw new RangeError(
          `${where}joints[${k}]: expected a joint index 0..${
            jointLimit - 1
          }, got ${j} (vertex ${v} influence ${i})`,
        );
      }
      if (!Number.isFinite(w) || w < 0) {
        throw new RangeError(
          `${where}weights[${k}]: expected a finite weight >= 0, got ${w} (vertex ${v} influence ${i})`,
        );
      }
      sum += w;
      if (j > maxJoint) maxJoint = j;
    }
    if (options.positiveSums && !(sum > 0)) {
      throw new RangeError(`${where}weights: vertex ${v}: weights sum to zero`);
    }
  }
  return {
    vertexCount: counts.length,
    influenceCount,
    jointCount: maxJoint + 1,
    maxInfluences,
  };
}

/**
 * Copies the first `count` values of `source` (already checked) into `target`
 * at element `at`, through a view of exactly `count` elements, so that no
 * source, however it answers `length` or `subarray`, writes past its section;
 * typed arrays copy without a boxed number per element.
 */
export function copyChecked(
  target: Float32Array | Uint16Array | Uint32Array,
  at: number,
  source: ArrayLike<number>,
  count: number,
): void {
  const section = target.subarray(at, at + count);
  if (section.length !== count) throw new RangeError(`copy: ${count} values do not fit at ${at}`);
  if (ArrayBuffer.isView(source) && !(source instanceof DataView)) {
    section.set((source as Float32Array).subarray(0, count));
  } else {
    for (let i = 0; i < count; i++) section[i] = source[i];
  }
}
