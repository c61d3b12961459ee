/**
 * Clip validation: {@linkcode validateClip} checks a {@linkcode Clip} made
 * in code or read from a file, and {@linkcode createClip} builds one from
 * its channels. `playClip` validates every clip it is given, and the glTF
 * importer every clip it produces, so a bad clip is refused when it is
 * made or first played, never discovered frames later as a bad pose.
 *
 * @example Making a clip in code
 * ```ts
 * import { createClip } from "@marrow/anim";
 *
 * const spin = createClip({
 *   name: "spin",
 *   channels: [{
 *     joint: 0,
 *     path: "rotation",
 *     interpolation: "LINEAR",
 *     times: new Float32Array([0, 1]),
 *     values: new Float32Array([0, 0, 0, 1, 0, 1, 0, 0]),
 *   }],
 * });
 * console.log(spin.duration); // 1
 * ```
 * @module
 */

import type { ChannelPath, Clip, ClipChannel, Interpolation } from "./clip.ts";
import type { MorphWeightsChannel } from "./morph.ts";
import { describeValue, readOnce, typedArrayKind } from "../simd/memory/internal.ts";

/**
 * A clip that cannot be played: `clip`, `channel` and `key` say where
 * (`channel` and `key` are -1 when the problem is the clip's or the
 * channel's as a whole).
 */
export class ClipError extends RangeError {
  /** Name of the clip. */
  readonly clip: string;
  /** Index of the channel at fault, or -1. */
  readonly channel: number;
  /** Index of the key at fault, or -1. */
  readonly key: number;

  /** Creates the error; the message starts with the clip, channel and key. */
  constructor(clip: string, channel: number, key: number, message: string) {
    const where = `clip "${clip}"` + (channel >= 0 ? ` channel ${channel}` : "") +
      (key >= 0 ? ` key ${key}` : "");
    super(`${where}: ${message}`);
    this.name = "ClipError";
    this.clip = clip;
    this.channel = channel;
    this.key = key;
  }
}

/** The animated paths a clip channel may have (glTF morph `weights` are not joint channels). */
const CHANNEL_PATHS: readonly ChannelPath[] = ["translation", "rotation", "scale"];
/** The interpolations a clip channel may have. */
const INTERPOLATIONS: readonly Interpolation[] = ["STEP", "LINEAR", "CUBICSPLINE"];

/** Largest joint index a clip may name (the largest skeleton has 32767 joints). */
const MAX_JOINT = 32766;
/** Largest magnitude of a key value: what a pose can hold without overflowing a palette. */
export const MAX_VALUE = 1e18;
/** How far a LINEAR or STEP rotation key may be from unit length. */
const UNIT_TOLERANCE = 1e-3;
/**
 * Least time between consecutive keys, in seconds. The samplers divide by
 * key intervals (and by intervals cut into up to 64 pieces) in float32;
 * keys 1e-37 s apart or closer overflowed it, and compacted clips sampled
 * poses far from their keys, or NaN (a fuzzed file's, 5.8e-39 s apart).
 */
export const MIN_KEY_INTERVAL = 1e-30;

const validated = new WeakSet<Clip>();

/**
 * Checks `clip` and throws a {@linkcode ClipError} naming the clip, channel
 * and key of the first problem: a duration or start that is not finite (or a
 * negative duration); a joint that is not a whole number in `0..32766`; a
 * path other than translation, rotation or scale; an unknown
 * interpolation; no keys; key times that are not finite and strictly
 * increasing, or closer than {@linkcode MIN_KEY_INTERVAL} (1e-30 s); values
 * that are not `Float32Array`s of 3 (translation, scale) or 4 (rotation)
 * components per key, three elements per key for
 * `CUBICSPLINE`; a value that is not finite or beyond ±1e18; a `LINEAR` or
 * `STEP` rotation that is not a unit quaternion (within 1e-3); two
 * channels for the same joint and path. A clip that passed is remembered
 * (clips are treated as immutable once played); building its compact form
 * for a skeleton validates it again, so a clip changed since is refused
 * then with the key it changed.
 */
export function validateClip(clip: Clip): void {
  // The check of a clip played before stays apart from the closures below,
  // which would make every call allocate their context.
  if (!validated.has(clip)) validateNewClip(clip);
}

function validateNewClip(clip: Clip): void {
  if (!clip || typeof clip !== "object") {
    throw new ClipError(describeValue(clip), -1, -1, "expected a Clip object");
  }
  const name = typeof clip.name === "string" ? clip.name : describeValue(clip.name);
  const fail = (channel: number, key: number, message: string): never => {
    throw new ClipError(name, channel, key, message);
  };
  if (typeof clip.name !== "string") fail(-1, -1, "name must be a string");
  if (!Array.isArray(clip.channels)) fail(-1, -1, "channels must be an array");
  const seen = new Set<string>();
  clip.channels.forEach((channel, c) => {
    validateChannel(channel, c, fail);
    const key = `${channel.joint}/${channel.path}`;
    if (seen.has(key)) fail(c, -1, `joint ${channel.joint} has a second ${channel.path} channel`);
    seen.add(key);
  });
  for (const field of ["duration", "start"] as const) {
    const value = clip[field];
    if (typeof value !== "number" || !Number.isFinite(value)) {
      fail(-1, -1, `${field} must be a finite number, got ${describeValue(value)}`);
    }
  }
  if (clip.duration < 0) fail(-1, -1, `duration must be >= 0, got ${describeValue(clip.duration)}`);
  validated.add(clip);
}

/** A copy of a genuine Float32Array (undefined for anything else, which validation refuses). */
function copyFloats(values: unknown): Float32Array | undefined {
  return typedArrayKind(values) === "Float32Array"
    ? readOnce("keys", values as Float32Array, Float32Array, {})
    : undefined;
}

/** A joint channel's fields read once, its keys copied. */
function copyChannel(channel: ClipChannel): ClipChannel {
  if (!channel || typeof channel !== "object") return channel;
  const { joint, path, interpolation, times, values, node } = channel;
  return {
    joint,
    path,
    interpolation,
    times: copyFloats(times)!,
    values: copyFloats(values)!,
    node,
  };
}

/** A morph weights channel's fields read once, its keys copied. */
function copyMorphChannel(channel: MorphWeightsChannel): MorphWeightsChannel {
  if (!channel || typeof channel !== "object") return channel;
  const { node, mesh, targetCount, interpolation, times, values } = channel;
  return {
    node,
    mesh,
    targetCount,
    interpolation,
    times: copyFloats(times)!,
    values: copyFloats(values)!,
  };
}

/** Most channels a clip may have: one per joint and path. */
const MAX_CHANNELS = 3 * (MAX_JOINT + 1);

/**
 * @internal `clip` read once into a clip of its own (every field once, the
 * keys copied), then validated: what a build reads is what was checked,
 * however the caller's object or arrays answer from one read to the next.
 * Throws a `ClipError` as {@linkcode validateClip}.
 */
export function readClip(clip: Clip): Clip {
  if (!clip || typeof clip !== "object") {
    throw new ClipError(describeValue(clip), -1, -1, "expected a Clip object");
  }
  const { name, animation, start, duration, channels, morphChannels } = clip;
  for (const [field, list] of [["channels", channels], ["morphChannels", morphChannels]] as const) {
    if (Array.isArray(list) && list.length > MAX_CHANNELS) {
      throw new ClipError(
        describeValue(name),
        -1,
        -1,
        `${field}: more than ${MAX_CHANNELS} channels`,
      );
    }
  }
  const copy: Clip = {
    name,
    animation,
    start,
    duration,
    channels: Array.isArray(channels) ? Array.from(channels, copyChannel) : channels,
    ...(morphChannels === undefined ? {} : {
      morphChannels: Array.isArray(morphChannels)
        ? Array.from(morphChannels, copyMorphChannel)
        : morphChannels,
    }),
  };
  validateClip(copy);
  return copy;
}

/**
 * @internal {@linkcode validateClip} again, whatever it remembers: for a
 * clip that misbehaves after it passed (changed since).
 */
export function revalidateClip(clip: Clip): void {
  validated.delete(clip);
  validateClip(clip);
}

function validateChannel(
  channel: ClipChannel,
  c: number,
  fail: (channel: number, key: number, message: string) => never,
): void {
  if (!channel || typeof channel !== "object") fail(c, -1, "expected a channel object");
  const { joint, path, interpolation, times, values } = channel;
  if (!Number.isInteger(joint) || joint < 0 || joint > MAX_JOINT) {
    fail(c, -1, `joint must be a whole number in 0..${MAX_JOINT}, got ${describeValue(joint)}`);
  }
  if (!CHANNEL_PATHS.includes(path)) {
    fail(
      c,
      -1,
      `path "${describeValue(path)}" is not a joint property (translation, rotation or scale)` +
        ((path as string) === "weights" ? "; morph weights are not joint channels" : ""),
    );
  }
  if (!INTERPOLATIONS.includes(interpolation)) {
    fail(
      c,
      -1,
      `unknown interpolation "${describeValue(interpolation)}" (STEP, LINEAR or CUBICSPLINE)`,
    );
  }
  if (!(times instanceof Float32Array) || !(values instanceof Float32Array)) {
    fail(c, -1, "times and values must be Float32Arrays");
  }
  if (times.length === 0) fail(c, -1, "has no keys");
  for (let k = 0; k < times.length; k++) {
    if (!Number.isFinite(times[k])) fail(c, k, `time is ${times[k]}`);
    if (k > 0 && !(times[k] > times[k - 1])) {
      fail(c, k, `time ${times[k]} does not come after ${times[k - 1]}`);
    }
    if (k > 0 && !(times[k] - times[k - 1] >= MIN_KEY_INTERVAL)) {
      fail(
        c,
        k,
        `time ${times[k]} is less than ${MIN_KEY_INTERVAL} s after ${times[k - 1]} ` +
          "(the samplers divide by key intervals)",
      );
    }
  }
  const size = path === "rotation" ? 4 : 3;
  const perKey = interpolation === "CUBICSPLINE" ? 3 : 1;
  const expected = times.length * perKey * size;
  if (values.length !== expected) {
    fail(
      c,
      -1,
      `${times.length} keys of ${interpolation} ${path} need ${expected} values ` +
        `(${times.length * perKey} elements of ${size}), got ${describeValue(values.length)}`,
    );
  }
  const keyFloats = perKey * size;
  for (let i = 0; i < values.length; i++) {
    if (!(Math.abs(values[i]) < MAX_VALUE)) {
      fail(c, Math.floor(i / keyFloats), `value ${values[i]} is not finite or beyond ±1e18`);
    }
  }
  if (path === "rotation" && perKey === 1) {
    for (let k = 0; k < times.length; k++) {
      const o = k * 4;
      // Not Math.hypot (a slow builtin, the most of a clip file's load): the
      // values were bounded by ±1e18 above, so the squares cannot overflow.
      const x = values[o], y = values[o + 1], z = values[o + 2], w = values[o + 3];
      const length = Math.sqrt(x * x + y * y + z * z + w * w);
      if (!(Math.abs(length - 1) <= UNIT_TOLERANCE)) {
        fail(c, k, `rotation is not a unit quaternion (length ${length})`);
      }
    }
  }
}

/** What {@linkcode createClip} needs: channels, and optionally the rest of a {@linkcode Clip}. */
export interface ClipInit {
  /** Name, for messages and `getPlayback`; default `""`. */
  readonly name?: string;
  /** The channels (`node` may be left out: it defaults to -1). */
  readonly channels: readonly (Omit<ClipChannel, "node"> & { readonly node?: number })[];
  /** Playing length in seconds; default the latest key time (0 without keys). */
  readonly duration?: number;
  /** Earliest key time; default the earliest key time of the channels (0 without keys). */
  readonly start?: number;
  /** Index of the glTF animation it came from; default -1 (made in code). */
  readonly animation?: number;
}

/**
 * Builds a validated, frozen {@linkcode Clip} from its channels; throws a
 * {@linkcode ClipError} as {@linkcode validateClip} does.
 */
export function createClip(init: ClipInit): Clip {
  if (!init || typeof init !== "object" || !Array.isArray(init.channels)) {
    throw new ClipError(describeValue(init?.name ?? ""), -1, -1, "expected { channels: [...] }");
  }
  let first = Infinity, last = -Infinity;
  for (const channel of init.channels) {
    const times = channel?.times;
    if (times?.length) {
      first = Math.min(first, times[0]);
      last = Math.max(last, times[times.length - 1]);
    }
  }
  const clip: Clip = Object.freeze({
    name: init.name ?? "",
    animation: init.animation ?? -1,
    start: init.start ?? (first === Infinity ? 0 : first),
    duration: init.duration ?? (last === -Infinity ? 0 : last),
    channels: Object.freeze(
      init.channels.map((channel) => Object.freeze({ ...channel, node: channel?.node ?? -1 })),
    ),
  });
  validateClip(clip);
  return clip;
}
