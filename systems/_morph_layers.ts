/**
 * The morph stage of the sample clips system: for an entity with
 * MorphWeights whose clips have morph channels (`Clip.morphChannels`) for
 * meshes of its skin, samples them at each playback's clock (wrapped as
 * the playback wraps its joints; `STEP`, `LINEAR`, `CUBICSPLINE` by the
 * one key sampler, `sampleKeysAt`) and blends the weights as the entity's
 * joints blend:
 *
 * - a cross-fade (and a locomotion layer's pair of clips) lerps the two
 *   clips' weights by the fade; of two clips, one that does not animate a
 *   target gives the game's weight for it, as the rest pose stands in for
 *   a joint;
 * - blend layers (layer 0 among them) average by layer weight, the game's
 *   weights filling in below the blend threshold as the rest pose does for
 *   joints (threshold 1: three.js's mixer, whose original value fills up
 *   to a total weight of 1);
 * - override layers then replace by their weight, additive layers add
 *   weight × (the weights − the weights at their reference time; 0 s for
 *   a reference pose), in layer order;
 * - a layer's joint mask weighs joints only: a layer drives the targets
 *   its clips animate by its weight alone (blend shapes belong to no
 *   joint; Unity's avatar masks leave blend-shape curves alone too);
 * - a layer affects only the targets its clips animate, and targets no
 *   clip animates show the weights the game set (`setMorphWeights`), as
 *   three.js's AnimationMixer binds only the `morphTargetInfluences[i]` a
 *   track names. When the entity's clips stop animating a target, it shows
 *   the game's weight again.
 *
 * Weights are clamped to ±`MAX_MORPH_WEIGHT`; NaN (a clip's keys changed
 * after it was checked) becomes 0. Nothing is allocated, except an
 * entity's binding of a clip the first time it plays the clip.
 *
 * @module
 */

import type {
  Layer,
  LayerStack,
  MorphBinding,
  MorphPlay,
  Playback,
  PlayerState,
} from "../components/internal.ts";
import { sampleKeysAt, wrapTimeAt } from "../animation/clip.ts";
import { MAX_MORPH_WEIGHT } from "../components/morph_weights.ts";

/** The pair's clip times (0, 1) and the second clip's weight (2): doubles not passed as arguments. */
const clock = new Float64Array(3);
/** A clip time and the clip's duration, for `wrapTimeAt`. */
const wrapping = new Float64Array(2);

/** Samples `binding`'s channels (of `playback`'s clip) at time `clock[k]`, wrapped. */
function sampleChannels(binding: MorphBinding | null, playback: Playback, k: number) {
  if (binding === null) return undefined;
  wrapping[0] = clock[k], wrapping[1] = playback.compact.duration;
  wrapTimeAt(wrapping, 0, 1, playback.wrap);
  const { channels, views } = binding;
  for (let c = 0; c < channels.length; c++) {
    const { times, values, interpolation, targetCount } = channels[c];
    sampleKeysAt(times, values, interpolation, targetCount, false, wrapping, 0, views[c]);
  }
  return binding.samples;
}

/**
 * The weights of playback `a` at `clock[0]`, lerped toward `b`'s at
 * `clock[1]` by `clock[2]` when `b` is given, into `out`, the game's
 * weight where a clip does not animate a target; `play.animated` says
 * which targets either animates. False (nothing written) when neither
 * clip animates any target.
 */
function pairWeights(play: MorphPlay, a: Playback, b: Playback | undefined, out: Float64Array) {
  const bindingA = play.bindingOf(a.clip),
    bindingB = b === undefined ? null : play.bindingOf(b.clip);
  if (bindingA === null && bindingB === null) return false;
  const sourceA = bindingA?.source, sourceB = bindingB?.source;
  const base = play.base, animated = play.animated, max = MAX_MORPH_WEIGHT;
  const samplesA = sampleChannels(bindingA, a, 0);
  for (let t = 0; t < base.length; t++) {
    const s = sourceA === undefined ? -1 : sourceA[t];
    const w = s < 0 ? base[t] : samplesA![s];
    // NaN to 0, beyond the bound clamped.
    out[t] = w >= -max ? (w <= max ? w : max) : w < 0 ? -max : 0;
    animated[t] = s < 0 ? 0 : 1;
  }
  if (b === undefined) return true;
  // Sampled after `a`'s weights were read: `b` may play the same clip.
  const samplesB = sampleChannels(bindingB, b, 1), share = clock[2];
  for (let t = 0; t < base.length; t++) {
    const s = sourceB === undefined ? -1 : sourceB[t];
    let w = s < 0 ? base[t] : samplesB![s];
    w = w >= -max ? (w <= max ? w : max) : w < 0 ? -max : 0;
    out[t] += (w - out[t]) * share;
    if (s >= 0) animated[t] = 1;
  }
  return true;
}

/** Layer `i`'s weights into `out` (see {@linkcode pairWeights}); false when it animates none. */
function layerWeights(
  play: MorphPlay,
  player: PlayerState,
  layer: Layer,
  i: number,
  out: Float64Array,
): boolean {
  if (i === 0) {
    const next = player.next;
    clock[0] = play.time;
    if (next !== undefined) clock[1] = next.time, clock[2] = player.fade;
    return pairWeights(play, player.current, next, out);
  }
  if (layer.playback !== undefined) {
    clock[0] = layer.playback.time;
    return pairWeights(play, layer.playback, undefined, out);
  }
  const blend = layer.blend!, points = blend.points, k = blend.lower;
  const a = points[k].playback, b = points[Math.min(k + 1, points.length - 1)].playback;
  clock[0] = a.time, clock[1] = b.time, clock[2] = blend.alpha;
  return pairWeights(play, a, b, out);
}

/** The layers' weights blended into `play.value`; false when no layer animates a target. */
function blendStack(play: MorphPlay, player: PlayerState, stack: LayerStack): boolean {
  const { value, total, pair, reference, animated, base } = play;
  const layers = stack.layers, count = base.length;
  value.fill(0), total.fill(0);
  let driven = false;
  for (let i = 0; i < layers.length; i++) {
    const layer = layers[i], w = layer.weight;
    if (layer.mode !== "blend" || w === 0 || !layerWeights(play, player, layer, i, pair)) continue;
    driven = true;
    for (let t = 0; t < count; t++) {
      if (animated[t] !== 0) value[t] += pair[t] * w, total[t] += w;
    }
  }
  const threshold = stack.threshold;
  for (let t = 0; t < count; t++) {
    const sum = total[t];
    value[t] = sum === 0
      ? base[t]
      : sum < threshold
      ? (value[t] + (threshold - sum) * base[t]) / threshold
      : value[t] / sum;
  }
  for (let i = 0; i < layers.length; i++) {
    const layer = layers[i], w = layer.weight;
    if (layer.mode === "blend" || w === 0 || !layerWeights(play, player, layer, i, pair)) continue;
    driven = true;
    if (layer.mode === "override") {
      for (let t = 0; t < count; t++) if (animated[t] !== 0) value[t] += (pair[t] - value[t]) * w;
      continue;
    }
    // Additive (one clip): relative to its weights at the reference time; same targets animated.
    clock[0] = layer.referenceTime;
    pairWeights(play, layer.playback!, undefined, reference);
    for (let t = 0; t < count; t++) {
      if (animated[t] !== 0) value[t] += (pair[t] - reference[t]) * w;
    }
  }
  return driven;
}

/**
 * Writes the weights `player`'s clips (at `play.time` for the playing
 * clip) give the entity of `play` into the weights its mesh shows; returns
 * whether they changed (the morph must run again).
 */
export function writeMorphWeights(play: MorphPlay, player: PlayerState): boolean {
  let driven: boolean;
  if (player.stack === undefined) {
    const next = player.next;
    clock[0] = play.time;
    if (next !== undefined) clock[1] = next.time, clock[2] = player.fade;
    driven = pairWeights(play, player.current, next, play.value);
  } else {
    driven = blendStack(play, player, player.stack);
  }
  // Not driven now nor last frame: the game's weights show already.
  if (!driven && !play.driven) return false;
  play.driven = driven;
  const from = driven ? play.value : play.base, shown = play.held.weights;
  const max = MAX_MORPH_WEIGHT;
  let changed = false;
  for (let t = 0; t < shown.length; t++) {
    const v = from[t], w = Math.fround(v >= -max ? (v <= max ? v : max) : v < 0 ? -max : 0);
    if (shown[t] !== w) shown[t] = w, changed = true;
  }
  return changed;
}
