/**
 * Test helpers for layers on real characters: a mask's subtree, and the
 * pose an override layer should give, computed per joint from the two
 * poses it lies between.
 *
 * @module
 */

import { createWorld } from "bitecs";
import { type Clip, createAnimation, SkeletonAsset } from "../mod.ts";
import type { GltfSkeleton } from "../gltf/mod.ts";
import { jointMask } from "../layers.ts";
import { Core, type CoreBuild } from "../kernels.ts";
import { poseLane } from "../simd/memory/layout.ts";

/** A world animated on a core of `build`, `character`'s skeleton, and the mask of `subtree`. */
export function characterWorld(
  build: CoreBuild,
  character: GltfSkeleton,
  subtree: number,
): { world: object; skeleton: SkeletonAsset; mask: Float32Array } {
  const core = Core.create(build);
  const world = createWorld();
  createAnimation(world, { core });
  const skeleton = new SkeletonAsset(character.skeleton, core);
  return { world, skeleton, mask: jointMask(skeleton, { subtree }) };
}

/** The joint below the root whose subtree holds closest to half the joints. */
export function halfSubtree(parents: Int16Array): number {
  const size = new Int32Array(parents.length).fill(1);
  for (let j = parents.length - 1; j > 0; j--) if (parents[j] >= 0) size[parents[j]] += size[j];
  let best = 1;
  for (let j = 1; j < parents.length; j++) {
    if (Math.abs(size[j] - parents.length / 2) < Math.abs(size[best] - parents.length / 2)) {
      best = j;
    }
  }
  return best;
}

const PATHS = ["translation", "rotation", "scale"] as const;

/**
 * Per joint and property, the weight an override layer playing `clip` with
 * `weight` and `mask` has: weight × mask where the clip animates the
 * property, 0 elsewhere. Indexed `property * jointCount + joint`.
 */
export function overrideWeights(
  clip: Clip,
  jointCount: number,
  weight: number,
  mask?: ArrayLike<number>,
): Float64Array {
  const out = new Float64Array(3 * jointCount);
  for (const channel of clip.channels) {
    const k = PATHS.indexOf(channel.path);
    out[k * jointCount + channel.joint] = weight * (mask ? mask[channel.joint] : 1);
  }
  return out;
}

/**
 * Largest difference between `got` and the per-joint lerp (translation,
 * scale) and shortest-arc nlerp (rotation, computed in float64) from
 * `below` to `layer` by `weights` (from {@linkcode overrideWeights}).
 * Translations and scales are compared relative to their magnitude (at
 * least 1); rotations component by component, up to sign unless `signed`.
 */
export function overrideError(
  got: Float32Array,
  below: Float32Array,
  layer: Float32Array,
  weights: Float64Array,
  jointCount: number,
  signed: boolean,
): number {
  let worst = 0;
  for (let j = 0; j < jointCount; j++) {
    const g = poseLane(j);
    const at = (c: number) => g + c * 4;
    for (const [k, fields] of [[0, [0, 1, 2]], [2, [7, 8, 9]]] as const) {
      const w = weights[k * jointCount + j];
      for (const c of fields) {
        const a = below[at(c)], b = layer[at(c)];
        const expected = a + (b - a) * w;
        worst = Math.max(worst, Math.abs(got[at(c)] - expected) / Math.max(1, Math.abs(expected)));
      }
    }
    const w = weights[jointCount + j];
    let dot = 0;
    for (let c = 3; c < 7; c++) dot += below[at(c)] * layer[at(c)];
    const sign = dot < 0 ? -1 : 1;
    const q = [3, 4, 5, 6].map((c) => below[at(c)] * (1 - w) + sign * layer[at(c)] * w);
    const length = Math.hypot(...q);
    // Signed: w = 1 is the layer's rotation itself, w = 0 the one below, signs included.
    let flip = 1;
    if (signed && w === 1) flip = sign;
    if (!signed && q.reduce((s, v, i) => s + v * got[at(3 + i)], 0) < 0) flip = -1;
    for (let i = 0; i < 4; i++) {
      worst = Math.max(worst, Math.abs(got[at(3 + i)] - flip * q[i] / length));
    }
  }
  return worst;
}
