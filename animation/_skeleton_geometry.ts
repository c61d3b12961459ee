/**
 * A skeleton's rest geometry for compact clip builds, computed once per
 * skeleton in work linear in its joints (each joint's reach over its
 * descendants, its parent's scale, the skeleton's size), and the per-channel
 * tolerances it gives: ozz-animation's hierarchical pass, so that no
 * channel's tolerance looks at the joints below it again.
 *
 * @module
 */

import type { Clip } from "./clip.ts";
import type { SkeletonAsset } from "./skeleton_asset.ts";
import { localToModel, quatToMat } from "../simd/scalar/mod.ts";
import { MATRIX_FLOATS } from "../simd/memory/layout.ts";

/** The skeleton's rest geometry that the tolerances need. */
export interface SkeletonGeometry {
  readonly jointCount: number;
  readonly parents: Int16Array;
  readonly restPose: Float32Array;
  /** Diagonal of the rest joints' bounding box (1 when it is 0). */
  readonly size: number;
  /** Per joint: the largest rest distance to a descendant. */
  readonly reach: Float64Array;
  /** Per joint: the scale of its parent's model matrix (largest axis). */
  readonly parentScale: Float64Array;
  /** Ancestor steps walked to compute `reach` (at most {@linkcode EXACT_REACH_STEPS}). */
  readonly reachSteps: number;
}

/** Model matrices of `pose` (scalar twin), into `model`. */
export function modelMatrices(
  pose: Float32Array,
  parents: Int16Array,
  local = new Float32Array(parents.length * MATRIX_FLOATS),
  model = new Float32Array(parents.length * MATRIX_FLOATS),
): Float32Array {
  const n = parents.length;
  quatToMat(pose, local, n);
  localToModel(local, model, parents, 0, n - 1);
  return model;
}

/** Length of axis (column) `c` of the 3x4 row-major matrix at `m[o..]`; 1 when 0. */
export function axisLength(m: Float32Array, o: number, c: number): number {
  // Not Math.hypot: three times slower, and the lengths divide a distance
  // compared with a tolerance (a rounding in the last bit does not matter).
  const x = m[o + c], y = m[o + 4 + c], z = m[o + 8 + c];
  return Math.sqrt(x * x + y * y + z * z) || 1;
}

/** Largest axis length of the 3x4 row-major matrix at `m[o..]`. */
function axisScale(m: Float32Array, o: number): number {
  let s = 0;
  for (let c = 0; c < 3; c++) s = Math.max(s, Math.hypot(m[o + c], m[o + 4 + c], m[o + 8 + c]));
  return s;
}

/**
 * Most ancestor steps {@linkcode skeletonGeometry} walks for exact reaches
 * (the sum of the joints' depths); deeper skeletons (long chains) take the
 * bound of each joint's subtree box instead, in one pass.
 */
export const EXACT_REACH_STEPS = 1 << 20;

/** The rest geometry of a skeleton, in work linear in its joints. */
export function skeletonGeometry(parents: Int16Array, restPose: Float32Array): SkeletonGeometry {
  const n = parents.length;
  const model = modelMatrices(restPose, parents);
  const at = (j: number, c: number) => model[j * MATRIX_FLOATS + c * 4 + 3];
  const min = [Infinity, Infinity, Infinity], max = [-Infinity, -Infinity, -Infinity];
  const reach = new Float64Array(n), parentScale = new Float64Array(n);
  const depth = new Int32Array(n);
  let steps = 0;
  for (let j = 0; j < n; j++) {
    for (let c = 0; c < 3; c++) {
      min[c] = Math.min(min[c], at(j, c)), max[c] = Math.max(max[c], at(j, c));
    }
    const p = parents[j];
    parentScale[j] = p >= 0 ? axisScale(model, p * MATRIX_FLOATS) : 1;
    depth[j] = p >= 0 ? depth[p] + 1 : 0;
    steps += depth[j];
  }
  const exact = steps <= EXACT_REACH_STEPS;
  if (exact) {
    for (let j = 0; j < n; j++) {
      for (let a = parents[j]; a >= 0; a = parents[a]) {
        reach[a] = Math.max(
          reach[a],
          Math.hypot(at(j, 0) - at(a, 0), at(j, 1) - at(a, 1), at(j, 2) - at(a, 2)),
        );
      }
    }
  } else {
    // Children after parents: one backward pass gathers each joint's
    // subtree box; its farthest corner bounds the reach from above, so
    // tolerances stay safe.
    const box = new Float64Array(n * 6);
    for (let j = 0; j < n; j++) {
      for (let c = 0; c < 3; c++) box[j * 6 + c] = box[j * 6 + 3 + c] = at(j, c);
    }
    for (let j = n - 1; j >= 0; j--) {
      let far = 0;
      for (let c = 0; c < 3; c++) {
        const d = Math.max(at(j, c) - box[j * 6 + c], box[j * 6 + 3 + c] - at(j, c));
        far += d * d;
      }
      reach[j] = Math.sqrt(far);
      const p = parents[j];
      if (p < 0) continue;
      for (let c = 0; c < 3; c++) {
        box[p * 6 + c] = Math.min(box[p * 6 + c], box[j * 6 + c]);
        box[p * 6 + 3 + c] = Math.max(box[p * 6 + 3 + c], box[j * 6 + 3 + c]);
      }
    }
  }
  const size = Math.hypot(max[0] - min[0], max[1] - min[1], max[2] - min[2]) || 1;
  return {
    jointCount: n,
    parents,
    restPose,
    size,
    reach,
    parentScale,
    reachSteps: exact ? steps : 0,
  };
}

/** Each skeleton's rest geometry, computed once (linear in its joints). */
const geometries = new WeakMap<SkeletonAsset, SkeletonGeometry>();

export function geometryOf(skeleton: SkeletonAsset): SkeletonGeometry {
  let geometry = geometries.get(skeleton);
  if (!geometry) {
    geometry = skeletonGeometry(skeleton.parentIndices, skeleton.restPose);
    geometries.set(skeleton, geometry);
  }
  return geometry;
}

/**
 * Per channel of `clip`, the tolerance on its values (vector or quaternion
 * distance) that keeps points within `tolerance` in model space.
 */
export function channelTolerances(
  clip: Clip,
  geometry: SkeletonGeometry,
  tolerance: number,
  virtualDistance: number,
): Float64Array {
  const animated = new Int32Array(geometry.jointCount);
  for (const c of clip.channels) animated[c.joint]++;
  return Float64Array.from(clip.channels, (channel) => {
    const j = channel.joint;
    const share = tolerance / animated[j];
    const lever = virtualDistance + geometry.reach[j];
    if (channel.path === "translation") return share / geometry.parentScale[j];
    // The lever is in model space already: the parent's scale is in it.
    const perUnit = (channel.path === "rotation" ? 2 : 1) * lever;
    return perUnit > 0 ? share / perUnit : Infinity;
  });
}
