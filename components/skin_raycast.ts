/**
 * Ray casts against an entity's skinned triangles, in the space of its
 * skinned positions (the skeleton's model space).
 *
 * @example
 * ```ts ignore
 * const indices = skin.remapIndices(sourceIndices); // once, in output order
 * const hit = raycastSkin(world, eid, indices, [0, 5, -10], [0, 0, 1]);
 * if (hit) console.log(hit.distance, hit.triangle, hit.u, hit.v);
 * ```
 * @module
 */

import { checkedSkeleton } from "./skeleton.ts";
import { checkedSkin } from "./skin.ts";
import { stateOf } from "./_lifecycle.ts";
import { storedBounds } from "./_skin_bounds.ts";
import { VERTEX_FLOATS } from "../simd/memory/layout.ts";
import { describeValue } from "../simd/memory/internal.ts";

/** The nearest triangle a ray hits. */
export interface SkinRayHit {
  /** Distance along the ray, in units of the direction's length (`origin + distance * direction`). */
  readonly distance: number;
  /** Triangle index: vertices `indices[3 * triangle .. 3 * triangle + 2]`. */
  readonly triangle: number;
  /** Barycentric weight of the triangle's second vertex. */
  readonly u: number;
  /** Barycentric weight of its third vertex (the first has `1 - u - v`). */
  readonly v: number;
}

/** Options of {@linkcode raycastSkin}. */
export interface SkinRaycastOptions {
  /** Ignore hits farther than this (in direction lengths). Default Infinity. */
  readonly maxDistance?: number;
}

/**
 * The nearest triangle of entity `eid`'s skinned positions hit by the ray
 * `origin + t * direction`, `0 <= t <= maxDistance`, both faces, or
 * undefined. `indices` are triangles in the skin's output vertex order
 * ({@linkcode SkinAsset.remapIndices}, plus the mesh's `firstVertex` for
 * meshes after the first). The skinned bounds ({@linkcode getSkinnedBounds})
 * reject a ray that misses the box before any triangle is tested. Reads the
 * positions the skin system last wrote: valid after it ran for the entity
 * this frame. Throws a `RangeError` naming the first index outside the
 * skin or an origin/direction that is not three finite numbers.
 */
export function raycastSkin(
  world: object,
  eid: number,
  indices: ArrayLike<number>,
  origin: ArrayLike<number>,
  direction: ArrayLike<number>,
  options: SkinRaycastOptions = {},
): SkinRayHit | undefined {
  const state = stateOf(world, "raycastSkin", eid);
  checkedSkeleton(state, eid);
  const skin = checkedSkin(state, eid);
  const vertexCount = skin.asset.vertexCount;
  for (const [name, v] of [["origin", origin], ["direction", direction]] as const) {
    if (!(v?.length === 3 && Array.from(v).every(Number.isFinite))) {
      throw new RangeError(`raycastSkin: ${name}: expected three finite numbers`);
    }
  }
  if (!(indices?.length % 3 === 0)) {
    throw new RangeError(
      `raycastSkin: indices: expected a multiple of 3, got ${describeValue(indices?.length)}`,
    );
  }
  for (let i = 0; i < indices.length; i++) {
    const v = indices[i];
    if (!(Number.isInteger(v) && v >= 0 && v < vertexCount)) {
      throw new RangeError(
        `raycastSkin: indices[${i}]: vertex ${v} is out of range 0..${vertexCount - 1}`,
      );
    }
  }
  const ox = origin[0], oy = origin[1], oz = origin[2];
  const dx = direction[0], dy = direction[1], dz = direction[2];
  let best = options.maxDistance ?? Infinity;
  const box = storedBounds(state, eid);
  if (box && !rayHitsBox(box, ox, oy, oz, dx, dy, dz, best)) return undefined;
  const p = state.memory.f32.subarray(
    skin.positions >> 2,
    (skin.positions >> 2) + vertexCount * VERTEX_FLOATS,
  );
  let hit: SkinRayHit | undefined;
  for (let t = 0; t < indices.length; t += 3) {
    const a = indices[t] * 4, b = indices[t + 1] * 4, c = indices[t + 2] * 4;
    // Möller–Trumbore, both faces.
    const e1x = p[b] - p[a], e1y = p[b + 1] - p[a + 1], e1z = p[b + 2] - p[a + 2];
    const e2x = p[c] - p[a], e2y = p[c + 1] - p[a + 1], e2z = p[c + 2] - p[a + 2];
    const px = dy * e2z - dz * e2y, py = dz * e2x - dx * e2z, pz = dx * e2y - dy * e2x;
    const det = e1x * px + e1y * py + e1z * pz;
    if (det === 0) continue;
    const inv = 1 / det;
    const sx = ox - p[a], sy = oy - p[a + 1], sz = oz - p[a + 2];
    const u = (sx * px + sy * py + sz * pz) * inv;
    if (!(u >= 0 && u <= 1)) continue;
    const qx = sy * e1z - sz * e1y, qy = sz * e1x - sx * e1z, qz = sx * e1y - sy * e1x;
    const v = (dx * qx + dy * qy + dz * qz) * inv;
    if (!(v >= 0 && u + v <= 1)) continue;
    const distance = (e2x * qx + e2y * qy + e2z * qz) * inv;
    if (distance >= 0 && distance <= best) {
      best = distance;
      hit = { distance, triangle: t / 3, u, v };
    }
  }
  return hit;
}

/** Whether the ray meets the box (min at 0..2, max at 4..6) within `far` (slab test). */
function rayHitsBox(
  box: Float32Array,
  ox: number,
  oy: number,
  oz: number,
  dx: number,
  dy: number,
  dz: number,
  far: number,
): boolean {
  let near = 0;
  const o = [ox, oy, oz], d = [dx, dy, dz];
  for (let i = 0; i < 3; i++) {
    // Widened so that rounding cannot reject a triangle lying on the box.
    const pad = 1e-6 * (Math.abs(box[i]) + Math.abs(box[4 + i])) + 1e-30;
    const lo = box[i] - pad, hi = box[4 + i] + pad;
    if (d[i] === 0) {
      if (o[i] < lo || o[i] > hi) return false;
      continue;
    }
    let t0 = (lo - o[i]) / d[i], t1 = (hi - o[i]) / d[i];
    if (t0 > t1) [t0, t1] = [t1, t0];
    if (t0 > near) near = t0;
    if (t1 < far) far = t1;
    if (near > far) return false;
  }
  return true;
}
