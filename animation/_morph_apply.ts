/**
 * An entity's morph: its weights of its skin's morph targets, the core
 * kernel that writes its morphed bind streams ({@linkcode applyMorphToStreams}),
 * and the joint boxes that bound them ({@linkcode morphedJointBoxes}).
 *
 * @module
 */

import type { SkinAsset } from "./skin_asset.ts";
import type { PreparedMorph } from "./_morph_prepare.ts";
import { skinInternals } from "./_asset_internals.ts";

/** One entity's morph: its weights, and where its bind streams come from and go. */
export interface MorphedStreams {
  /** The skin whose targets these are. */
  readonly asset: SkinAsset;
  readonly prepared: PreparedMorph;
  /** One weight per target, finite. */
  readonly weights: Float32Array;
  /** The entity's block of morphed streams in the core. */
  readonly block: number;
  /** Byte offsets of the entity's morphed positions, normals and tangents (0: not morphed). */
  readonly outputs: readonly number[];
  /** Scratch for the entity's joint boxes at its weights: 6 floats per joint. */
  readonly boxes: Float32Array;
}

/**
 * The joints' bind-space boxes of `morph`'s entity at its weights (into
 * `morph.boxes`): each joint's box of the skin's bind positions `base`
 * plus the weighted displacement boxes of the active targets, so that it
 * holds the joint's morphed vertices.
 */
export function morphedJointBoxes(morph: MorphedStreams, base: Float32Array): Float32Array {
  const { boxes, weights } = morph, displaced = morph.prepared.jointBoxes;
  boxes.set(base);
  const size = boxes.length;
  for (let t = 0; t < weights.length; t++) {
    const w = weights[t];
    if (w === 0) continue;
    // A negative weight swaps a box's ends.
    const lo = w > 0 ? 0 : 3, hi = 3 - lo;
    for (let b = 0, d = t * size; b < size; b += 6, d += 6) {
      for (let r = 0; r < 3; r++) {
        boxes[b + r] += w * displaced[d + lo + r];
        boxes[b + 3 + r] += w * displaced[d + hi + r];
      }
    }
  }
  return boxes;
}

/**
 * Morphs every displaced stream of `morph` that its entity skins, in place
 * in the core (the skin's bind stream in, the entity's block out), with
 * the core's `morphVertices` kernel; its checks bound every access.
 */
export function applyMorphToStreams(morph: MorphedStreams): void {
  const { targets } = morph.prepared, mesh = skinInternals(morph.asset).mesh;
  for (let s = 0; s < 3; s++) {
    const out = morph.outputs[s];
    if (out !== 0 && targets.displaces(s)) targets.morph(s, mesh, out, morph.block, morph.weights);
  }
}
