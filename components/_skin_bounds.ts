/**
 * @internal Per-world storage of skinned bounds: 8 floats per entity (min
 * xyzw, max xyzw), written by the skinning systems after each batch and
 * read by `getSkinnedBounds`. NaN until an entity is first skinned.
 *
 * @module
 */

const stores = new WeakMap<object, { floats: Float32Array }>();

/**
 * The world's bounds, 8 floats per entity, grown to hold entity `maxEid`
 * (one lookup for a whole batch; a view is valid until the next growth).
 */
export function boundsFloats(state: object, maxEid: number): Float32Array {
  let store = stores.get(state);
  if (!store) stores.set(state, store = { floats: new Float32Array(0) });
  if ((maxEid + 1) * 8 > store.floats.length) {
    const grown = new Float32Array(Math.max((maxEid + 1) * 8, store.floats.length * 2)).fill(NaN);
    grown.set(store.floats);
    store.floats = grown;
  }
  return store.floats;
}

/** The entity's last skinned bounds, or undefined when never skinned. */
export function storedBounds(state: object, eid: number): Float32Array | undefined {
  const floats = stores.get(state)?.floats;
  if (!floats || (eid + 1) * 8 > floats.length || Number.isNaN(floats[eid * 8])) return undefined;
  return floats.subarray(eid * 8, eid * 8 + 8);
}

/**
 * Copies the entity's last skinned bounds into `min` and `max` (x, y, z);
 * false, and nothing written, when it was never skinned. Allocates nothing.
 */
export function copyStoredBounds(
  state: object,
  eid: number,
  min: number[],
  max: number[],
): boolean {
  const floats = stores.get(state)?.floats;
  if (!floats || (eid + 1) * 8 > floats.length || Number.isNaN(floats[eid * 8])) return false;
  const at = eid * 8;
  min[0] = floats[at], min[1] = floats[at + 1], min[2] = floats[at + 2];
  max[0] = floats[at + 4], max[1] = floats[at + 5], max[2] = floats[at + 6];
  return true;
}

/** Forgets entity `eid`'s bounds (its Skin was removed). */
export function forgetBounds(state: object, eid: number): void {
  const floats = stores.get(state)?.floats;
  if (floats && (eid + 1) * 8 <= floats.length) floats.fill(NaN, eid * 8, eid * 8 + 8);
}
