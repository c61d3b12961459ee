/**
 * Morph targets (blend shapes) as plain data: a mesh's targets
 * ({@linkcode MorphTargetDefinition}) and the animation channels that key
 * their weights ({@linkcode MorphWeightsChannel}), with the channels'
 * sampling ({@linkcode sampleMorphWeights}).
 *
 * A morphed vertex is `base + sum_i w_i * d_i` for positions, normals and
 * tangents (xyz; a tangent's handedness is not displaced), the glTF 2.0
 * formula. A target that has no displacement for an attribute displaces
 * that attribute by nothing: three.js's loader instead fills the missing
 * attribute with the base one and, as its shaders add `w * target`, draws
 * `p * (1 + w)`; Marrow does not copy that.
 *
 * @module
 */

import { checkSampling, type Clip, type Interpolation, sampleKeysAt } from "./clip.ts";
import { ClipError } from "./clip_validation.ts";
import { describeValue } from "../simd/memory/internal.ts";

/**
 * One attribute's displacements of one morph target, in the mesh's source
 * vertex order: every vertex (`vertices` absent) or only those listed.
 */
export interface MorphDisplacements {
  /**
   * The displaced vertices, strictly increasing, each below the mesh's
   * vertex count; absent when every vertex is displaced, in order.
   */
  readonly vertices?: Uint32Array;
  /** 3 floats (x, y, z) per displaced vertex. */
  readonly deltas: Float32Array;
}

/** One morph target of a mesh: what it adds to each stream at weight 1. */
export interface MorphTargetDefinition {
  /** The target's name (glTF `mesh.extras.targetNames`), or `""`. */
  readonly name: string;
  /** Position displacements, if the target moves positions. */
  readonly positions?: MorphDisplacements;
  /** Normal displacements, if the target has them and the mesh has normals. */
  readonly normals?: MorphDisplacements;
  /** Tangent displacements (xyz), if the target has them and the mesh has tangents. */
  readonly tangents?: MorphDisplacements;
}

/**
 * A glTF `weights` channel: the weights of every morph target of the mesh
 * that one node instances, keyed over time.
 */
export interface MorphWeightsChannel {
  /** glTF index of the animated node. */
  readonly node: number;
  /** glTF index of the node's mesh. */
  readonly mesh: number;
  /** The mesh's morph targets: weights per key. */
  readonly targetCount: number;
  /** How weights between keys are computed. */
  readonly interpolation: Interpolation;
  /** Key times in seconds, strictly increasing. */
  readonly times: Float32Array;
  /**
   * `targetCount` weights per key; for `CUBICSPLINE` each key holds the
   * in-tangents of every target, then the values, then the out-tangents,
   * as in glTF.
   */
  readonly values: Float32Array;
}

/** The time {@linkcode sampleMorphWeights} samples at, passed unboxed. */
const sampledTime = new Float64Array(1);

/**
 * Samples `channel` at `time` (seconds; the first key's weights before it,
 * the last key's after it) into `out[0..targetCount)`: `STEP` holds key
 * `i` on `[t_i, t_(i+1))`, `LINEAR` interpolates linearly, `CUBICSPLINE`
 * is the glTF Hermite spline with tangents scaled by the key interval,
 * grouped as three.js's `GLTFCubicSplineInterpolant`.
 */
export function sampleMorphWeights(
  channel: MorphWeightsChannel,
  time: number,
  out: Float32Array | Float64Array | number[],
): void {
  checkSampling("sampleMorphWeights", channel, time, out);
  const { times, values, targetCount, interpolation } = channel;
  if (!Number.isInteger(targetCount) || targetCount < 1) {
    throw new TypeError(
      `sampleMorphWeights: channel.targetCount: expected a whole number >= 1, got ${
        describeValue(targetCount)
      }`,
    );
  }
  sampledTime[0] = time;
  sampleKeysAt(times, values, interpolation, targetCount, false, sampledTime, 0, out);
}

/** Clips whose morph channels passed {@linkcode validateMorphChannels}. */
const validatedMorphs = new WeakSet<Clip>();

/**
 * Throws a {@linkcode ClipError} naming the clip and `morphChannels[i]`
 * unless every morph channel of `clip` is one the sample clips system can
 * play: a node and mesh index, 1 to 65535 targets, a known interpolation,
 * finite strictly increasing `Float32Array` times and a `Float32Array` of
 * finite values, as many as the keys need. A clip that passed is not
 * checked again.
 */
export function validateMorphChannels(clip: Clip): void {
  // The check of a clip played before stays apart from the closure below,
  // which would make every call allocate its context (`validateClip` too).
  if (clip.morphChannels !== undefined && !validatedMorphs.has(clip)) {
    validateNewMorphChannels(clip);
  }
}

function validateNewMorphChannels(clip: Clip): void {
  const channels = clip.morphChannels!;
  const fail = (where: string, message: string): never => {
    throw new ClipError(clip.name, -1, -1, `morphChannels${where}: ${message}`);
  };
  if (!Array.isArray(channels)) fail("", "expected an array");
  channels.forEach((channel, i) => {
    const problem = morphChannelProblem(channel);
    if (problem !== undefined) fail(`[${i}]`, problem);
  });
  validatedMorphs.add(clip);
}

/** Each clip's morph channels as {@linkcode playedMorphChannels} copied them. */
const playedChannels = new WeakMap<Clip, readonly (MorphWeightsChannel | undefined)[]>();

/**
 * The morph channels of `clip` that playing samples: copies made the first
 * time it is asked (keys included, shared by every entity), so that the
 * game changing the clip's arrays later changes nothing the frame reads;
 * undefined in place of a channel {@linkcode validateMorphChannels} would
 * refuse. Empty when the clip has none.
 */
export function playedMorphChannels(clip: Clip): readonly (MorphWeightsChannel | undefined)[] {
  let played = playedChannels.get(clip);
  if (played === undefined) {
    const given: unknown = clip.morphChannels;
    played = Array.isArray(given) ? given.map(snapshotMorphChannel) : [];
    playedChannels.set(clip, played);
  }
  return played;
}

/** A copy of `channel`, keys included, or undefined when it is not a valid morph channel. */
function snapshotMorphChannel(channel: MorphWeightsChannel): MorphWeightsChannel | undefined {
  if (morphChannelProblem(channel) !== undefined) return undefined;
  const { node, mesh, targetCount, interpolation } = channel;
  return Object.freeze({
    node,
    mesh,
    targetCount,
    interpolation,
    times: channel.times.slice(),
    values: channel.values.slice(),
  });
}

/** What is wrong with `channel` as a morph channel, in one sentence, or undefined. */
function morphChannelProblem(channel: MorphWeightsChannel): string | undefined {
  if (!channel || typeof channel !== "object") return "expected a channel object";
  const { node, mesh, targetCount, interpolation, times, values } = channel;
  for (const [field, value] of [["node", node], ["mesh", mesh]] as const) {
    if (!Number.isInteger(value) || value < 0) {
      return `${field} must be a whole number >= 0, got ${describeValue(value)}`;
    }
  }
  if (!Number.isInteger(targetCount) || targetCount < 1 || targetCount > MAX_MORPH_TARGETS) {
    return `targetCount must be a whole number in 1..${MAX_MORPH_TARGETS}, got ${
      describeValue(targetCount)
    }`;
  }
  if (!INTERPOLATIONS.includes(interpolation)) {
    return `interpolation must be STEP, LINEAR or CUBICSPLINE, got ${describeValue(interpolation)}`;
  }
  if (!(times instanceof Float32Array) || times.length === 0) {
    return "times must be a non-empty Float32Array";
  }
  for (let k = 0; k < times.length; k++) {
    if (!Number.isFinite(times[k]) || (k > 0 && !(times[k] > times[k - 1]))) {
      return `times[${k}] is ${times[k]}: times must be finite and strictly increasing`;
    }
  }
  const expected = times.length * targetCount * (interpolation === "CUBICSPLINE" ? 3 : 1);
  if (!(values instanceof Float32Array) || values.length !== expected) {
    return `values must be a Float32Array of ${expected} weights, got ${
      describeValue((values as Float32Array | undefined)?.length)
    }`;
  }
  for (let k = 0; k < values.length; k++) {
    if (!Number.isFinite(values[k])) return `values[${k}] is ${values[k]}`;
  }
  return undefined;
}

/** Most targets a morph channel may key (glTF sets no limit; Marrow's skins hold far fewer). */
const MAX_MORPH_TARGETS = 65535;

const INTERPOLATIONS: readonly Interpolation[] = ["STEP", "LINEAR", "CUBICSPLINE"];
