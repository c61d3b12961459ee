/**
 * The retargeting sweep: the source clip sampled once at each key time of
 * the retargeted clip, each target joint's rotation and translation
 * computed from the source pose in model space by the plan's rules, and
 * written as keys.
 *
 * Key times: the union of the source channels' key times (between equal
 * rest-relative hierarchies, the retargeted rotation is the source's
 * local rotation multiplied by constants on both sides, so slerp between
 * the same keys gives the same curve); plus, where the clip mixes `STEP`
 * with other channels, the float32 time just before each step (the jump
 * stays a jump), and, where it has `CUBICSPLINE` channels or the feet are
 * planted, seven points in each interval. Every channel is `LINEAR`, or `STEP` when the source's
 * are all `STEP`. The compact build then drops the keys it does not need.
 *
 * @module
 */

import { type Clip, type Interpolation, sampleChannel } from "./clip.ts";
import { MAX_VALUE, MIN_KEY_INTERVAL } from "./clip_validation.ts";
import {
  composeJoint,
  JOINT_STRIDE,
  multiply,
  normalize,
  Q,
  rotate,
  S,
  T,
  toModel,
} from "./_retarget_math.ts";
import {
  MOVE_OFFSET,
  MOVE_REST,
  MOVE_ROOT,
  MOVE_SOURCE,
  type RetargetPlan,
  ROTATE_LOCAL,
  ROTATE_MODEL,
  ROTATE_REST,
} from "./_retarget_setup.ts";
import { RetargetError } from "./retarget_options.ts";
import { contactHeight, plantedLegs, plantFeet } from "./_retarget_feet.ts";

/** A retargeted channel's arrays, filled key by key. */
interface BuiltChannel {
  readonly joint: number;
  readonly path: "translation" | "rotation";
  readonly interpolation: Interpolation;
  readonly times: Float32Array;
  readonly values: Float32Array;
}

const PATH_OFFSET = { translation: T, rotation: Q, scale: S } as const;

/**
 * Pieces each key interval is cut into where the clip has `CUBICSPLINE`
 * channels (a smooth curve, keys 0.1 to 0.3 s and up to 0.3 rad apart,
 * then stays within 0.1 % of the size between the keys), or feet are
 * planted.
 */
const CUBIC_PIECES = 8;

/** The float32 just below `t` (finite). */
function floatBelow(t: number): number {
  const bits = new Float32Array([t]);
  const int = new Int32Array(bits.buffer);
  if (t === 0) return -1.4e-45;
  int[0] += t > 0 ? -1 : 1;
  return bits[0];
}

/** Key times of the retargeted clip (see the module doc), checked against `maxValues`. */
function keyTimes(
  clip: Clip,
  maxValues: number,
  feet: boolean,
): { times: Float32Array; step: boolean } {
  const channels = clip.channels;
  let total = 0;
  const step = channels.every((c) => c.interpolation === "STEP");
  // Planted feet bend the legs by IK at the keys only: between them, finer keys.
  const cubic = feet || channels.some((c) => c.interpolation === "CUBICSPLINE");
  for (const channel of channels) total += channel.times.length * (step ? 1 : 2);
  if (cubic) total *= CUBIC_PIECES;
  if (total > maxValues) {
    throw new RetargetError("clip", `its key times alone pass maxValues (${maxValues})`);
  }
  const all = new Float64Array(total);
  let n = 0;
  for (const channel of channels) {
    const times = channel.times;
    for (let k = 0; k < times.length; k++) {
      all[n++] = times[k];
      if (!step && channel.interpolation === "STEP" && k > 0) all[n++] = floatBelow(times[k]);
    }
  }
  let union = unique(all.subarray(0, n).sort());
  if (cubic) {
    const dense = new Float64Array(union.length * CUBIC_PIECES);
    let m = 0;
    for (let k = 0; k < union.length; k++) {
      dense[m++] = union[k];
      if (k + 1 === union.length) break;
      for (let i = 1; i < CUBIC_PIECES; i++) {
        dense[m++] = Math.fround(union[k] + (union[k + 1] - union[k]) * i / CUBIC_PIECES);
      }
    }
    union = unique(dense.subarray(0, m));
  }
  return { times: Float32Array.from(union), step };
}

/** The sorted `times` without those too close to the one before. */
function unique(times: Float64Array): Float64Array {
  let m = 0;
  for (let k = 0; k < times.length; k++) {
    if (m > 0 && !(times[k] - times[m - 1] >= MIN_KEY_INTERVAL)) continue;
    times[m++] = times[k];
  }
  return times.slice(0, m);
}

/** The retargeted channels of `clip` under `plan`, the feet planted if `feet`. */
export function retargetChannels(
  clip: Clip,
  plan: RetargetPlan,
  maxValues: number,
  feet: boolean,
): BuiltChannel[] {
  const { source, target, sourceOf, rotation, translation, right, facing } = plan;
  for (const [c, channel] of clip.channels.entries()) {
    if (!(channel.joint < source.parents.length)) {
      throw new RetargetError(
        "clip",
        `channel ${c} animates joint ${channel.joint}; the source skeleton has ${source.parents.length}`,
      );
    }
  }
  const { times, step } = keyTimes(clip, maxValues, feet);
  if (times.length === 0) return [];
  const interpolation: Interpolation = step ? "STEP" : "LINEAR";
  const count = target.parents.length;
  const rotated: number[] = [], moved: number[] = [];
  const translated = new Set(
    clip.channels.flatMap((c) => c.path === "translation" ? [c.joint] : []),
  );
  for (let j = 0; j < count; j++) {
    if (rotation[j] !== ROTATE_REST || right[j * 4 + 3] !== 1) rotated.push(j);
    // The offset rule without a source translation channel is the rest translation.
    const offset = translation[j] === MOVE_OFFSET;
    if (translation[j] !== MOVE_REST && (!offset || translated.has(sourceOf[j]))) moved.push(j);
  }
  const values = times.length * (1 + 4 * rotated.length + 3 * moved.length);
  // The sweep's work: every channel sampled and every target joint composed at every key.
  const work = times.length * (clip.channels.length + count);
  if (work > maxValues) {
    throw new RetargetError(
      "clip",
      `retargeting would sample ${work} channels and joints, more than maxValues (${maxValues})`,
    );
  }
  if (values > maxValues) {
    throw new RetargetError(
      "clip",
      `the retargeted clip needs ${values} numbers, more than maxValues (${maxValues})`,
    );
  }
  const channels: BuiltChannel[] = [
    ...rotated.map((joint) => built(joint, "rotation", 4)),
    ...moved.map((joint) => built(joint, "translation", 3)),
  ];
  function built(joint: number, path: "rotation" | "translation", size: number): BuiltChannel {
    return { joint, path, interpolation, times, values: new Float32Array(times.length * size) };
  }

  const sourceLocal = source.local.slice(), sourceModel = new Float64Array(source.local.length);
  const targetLocal = target.local.slice(), targetModel = new Float64Array(target.local.length);
  const value = new Float64Array(4), point = new Float64Array(3);
  const legs = feet ? plantedLegs(plan) : [], contact = feet ? contactHeight(plan) : 1;
  for (let k = 0; k < times.length; k++) {
    for (const channel of clip.channels) {
      sampleChannel(channel, times[k], value);
      const o = channel.joint * JOINT_STRIDE + PATH_OFFSET[channel.path];
      const size = channel.path === "rotation" ? 4 : 3;
      for (let c = 0; c < size; c++) sourceLocal[o + c] = value[c];
      if (size === 4) normalize(sourceLocal, o);
    }
    toModel(source.parents, sourceLocal, sourceModel);
    for (let j = 0; j < count; j++) {
      const parent = target.parents[j], s = sourceOf[j] * JOINT_STRIDE;
      const o = j * JOINT_STRIDE, p = parent * JOINT_STRIDE;
      const rule = rotation[j];
      if (rule === ROTATE_MODEL) {
        // facing · sourceModel · right, then into the parent's frame.
        multiply(facing, 0, sourceModel, s + Q, targetLocal, o + Q);
        multiply(targetLocal, o + Q, right, j * 4, targetLocal, o + Q);
        if (parent >= 0) {
          multiply(targetModel, p + Q, targetLocal, o + Q, targetLocal, o + Q, true);
        }
      } else {
        const from = rule === ROTATE_LOCAL ? sourceLocal : target.local;
        multiply(from, (rule === ROTATE_LOCAL ? s : o) + Q, right, j * 4, targetLocal, o + Q);
      }
      normalize(targetLocal, o + Q);
      const move = translation[j];
      if (move === MOVE_SOURCE) {
        for (let c = 0; c < 3; c++) targetLocal[o + T + c] = sourceLocal[s + T + c];
      } else if (move === MOVE_OFFSET) {
        offsetTranslation(plan, j, sourceLocal, point);
        for (let c = 0; c < 3; c++) targetLocal[o + T + c] = point[c];
      } else if (move === MOVE_ROOT) {
        rootTranslation(plan, j, sourceModel, targetModel, point);
        for (let c = 0; c < 3; c++) targetLocal[o + T + c] = point[c];
      }
      composeJoint(parent, j, targetLocal, targetModel);
    }
    if (legs.length) plantFeet(legs, plan, contact, sourceModel, targetLocal, targetModel);
    for (const channel of channels) write(channel, k, targetLocal, target.names);
  }
  return channels;
}

/**
 * Local translation of target joint `j` under the root rule: its rest
 * model position plus the source joint's model-space motion from rest,
 * turned and scaled, brought into its parent's frame.
 */
function rootTranslation(
  plan: RetargetPlan,
  j: number,
  sourceModel: Float64Array,
  targetModel: Float64Array,
  out: Float64Array,
): void {
  const { source, target, facing, rootScale } = plan;
  const s = plan.sourceOf[j] * JOINT_STRIDE, o = j * JOINT_STRIDE;
  for (let c = 0; c < 3; c++) out[c] = sourceModel[s + T + c] - source.model[s + T + c];
  rotate(facing, 0, out, 0);
  for (let c = 0; c < 3; c++) out[c] = target.model[o + T + c] + out[c] * rootScale;
  const parent = target.parents[j];
  if (parent < 0) return;
  const p = parent * JOINT_STRIDE;
  for (let c = 0; c < 3; c++) out[c] -= targetModel[p + T + c];
  rotate(targetModel, p + Q, out, 0, true);
  for (let c = 0; c < 3; c++) out[c] /= targetModel[p + S + c];
}

/**
 * Local translation of target joint `j` under the offset rule: its rest
 * translation plus the source joint's offset from its rest translation,
 * through the source parent's rest frame (scale, rotation), turned, scaled
 * by the root scale and back through the target parent's.
 */
function offsetTranslation(
  plan: RetargetPlan,
  j: number,
  sourceLocal: Float64Array,
  out: Float64Array,
) {
  const { source, target, offsetTurn, rootScale } = plan;
  const js = plan.sourceOf[j], ps = source.parents[js], pt = target.parents[j];
  const s = js * JOINT_STRIDE, o = j * JOINT_STRIDE;
  for (let c = 0; c < 3; c++) {
    out[c] = (sourceLocal[s + T + c] - source.local[s + T + c]) *
      (ps >= 0 ? source.model[ps * JOINT_STRIDE + S + c] : 1);
  }
  rotate(offsetTurn, j * 4, out, 0);
  for (let c = 0; c < 3; c++) {
    out[c] = target.local[o + T + c] +
      out[c] * rootScale / (pt >= 0 ? target.model[pt * JOINT_STRIDE + S + c] : 1);
  }
}

/** Key `k` of `channel` from the target's local rows, checked, rotations kept in one hemisphere. */
function write(
  channel: BuiltChannel,
  k: number,
  local: Float64Array,
  names: readonly string[],
): void {
  const size = channel.path === "rotation" ? 4 : 3;
  const o = channel.joint * JOINT_STRIDE + PATH_OFFSET[channel.path];
  const out = channel.values, at = k * size;
  let sign = 1;
  if (size === 4 && k > 0) {
    let dot = 0;
    for (let c = 0; c < 4; c++) dot += out[at - 4 + c] * local[o + c];
    if (dot < 0) sign = -1;
  }
  for (let c = 0; c < size; c++) {
    const v = sign * local[o + c];
    if (!(Math.abs(v) <= MAX_VALUE)) {
      throw new RetargetError(
        "clip",
        `the ${channel.path} at ${channel.times[k]} s is ${v}, not finite or beyond ±${MAX_VALUE}`,
        names[channel.joint],
      );
    }
    out[at + c] = v;
  }
}
