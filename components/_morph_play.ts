/**
 * What an entity with MorphWeights keeps so that its clips drive its
 * weights: the weights the game set (the base where no clip animates a
 * target), the glTF node of each mesh of its skin, and per clip the
 * binding of the clip's `morphChannels` to the skin's targets, made the
 * first time the entity plays the clip and kept with the clip.
 *
 * @module
 */

import type { Clip } from "../animation/clip.ts";
import { type MorphWeightsChannel, playedMorphChannels } from "../animation/morph.ts";
import type { MorphedStreams } from "../animation/internal.ts";

/** @internal A clip's morph channels bound to one entity's skin targets. */
export interface MorphBinding {
  /** The channels that drive at least one target. */
  readonly channels: readonly MorphWeightsChannel[];
  /** Per channel, where its sample goes: a view of `samples`. */
  readonly views: readonly Float32Array[];
  /** The channels' weights at the time last sampled, channel after channel. */
  readonly samples: Float32Array;
  /** Per target of the skin, its index in `samples`, or -1 when the clip does not animate it. */
  readonly source: Int32Array;
}

/** @internal An entity's morph weights as its clips drive them. */
export class MorphPlay {
  /** The weights the game set (`setMorphWeights`): what a target no clip animates shows. */
  readonly base: Float32Array;
  /** The morphed streams, whose `weights` are the weights shown. */
  readonly held: MorphedStreams;
  /** The glTF node of each mesh of the skin, when the game named them. */
  readonly nodes: Int32Array | undefined;
  /** The frame's weights and blend totals, a float64 per target. */
  readonly value: Float64Array;
  readonly total: Float64Array;
  readonly pair: Float64Array;
  readonly reference: Float64Array;
  /** Per target: 1 when the playback (pair) just sampled animates it. */
  readonly animated: Uint8Array;
  /** The player's time this frame (a field: a double argument would be boxed). */
  time = 0.5;
  /** Whether clips wrote the shown weights in the last frame sampled. */
  driven = false;
  readonly #bindings = new WeakMap<Clip, MorphBinding | null>();
  /** Per mesh of the skin: its first target and its target count. */
  readonly #firstTarget: Uint32Array;
  readonly #targetCount: Uint32Array;

  constructor(held: MorphedStreams, base: Float32Array, nodes: Int32Array | undefined) {
    this.held = held, this.base = base, this.nodes = nodes;
    const count = base.length;
    this.value = new Float64Array(count), this.total = new Float64Array(count);
    this.pair = new Float64Array(count), this.reference = new Float64Array(count);
    this.animated = new Uint8Array(count);
    const meshes = held.prepared.meshes;
    const meshCount = held.asset.meshes.length;
    this.#firstTarget = new Uint32Array(meshCount).fill(count);
    this.#targetCount = new Uint32Array(meshCount);
    for (let t = count - 1; t >= 0; t--) {
      this.#firstTarget[meshes[t]] = t, this.#targetCount[meshes[t]]++;
    }
  }

  /** `clip`'s binding to the skin's targets, or null when it animates none of them. */
  bindingOf(clip: Clip): MorphBinding | null {
    if (clip.morphChannels === undefined) return null;
    let binding = this.#bindings.get(clip);
    if (binding === undefined) this.#bindings.set(clip, binding = this.#bind(clip));
    return binding;
  }

  /**
   * Each mesh of the skin takes the channel of its node (`nodes`), or
   * without `nodes` the first channel, if the channel keys as many targets
   * as the mesh has. The channels are the clip's as first played
   * (`playedMorphChannels`): the frame reads only those copies.
   */
  #bind(clip: Clip): MorphBinding | null {
    const all = playedMorphChannels(clip);
    const meshes = this.held.prepared.meshes, count = this.base.length;
    const source = new Int32Array(count).fill(-1);
    const channels: MorphWeightsChannel[] = [], offsets: number[] = [];
    let size = 0;
    for (let m = 0; m < this.#targetCount.length; m++) {
      const targets = this.#targetCount[m];
      if (targets === 0) continue;
      const node = this.nodes?.[m];
      const channel = all.find((c) =>
        c !== undefined && c.targetCount === targets && (node === undefined || c.node === node)
      );
      if (channel === undefined) continue;
      let c = channels.indexOf(channel);
      if (c < 0) c = channels.push(channel) - 1, offsets.push(size), size += channel.targetCount;
      const first = this.#firstTarget[m];
      for (let t = first; t < count && meshes[t] === m; t++) source[t] = offsets[c] + t - first;
    }
    if (channels.length === 0) return null;
    const samples = new Float32Array(size);
    const views = channels.map((c, i) => samples.subarray(offsets[i], offsets[i] + c.targetCount));
    return { channels, views, samples, source };
  }
}
