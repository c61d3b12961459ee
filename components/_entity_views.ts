/**
 * The views the view functions return (`getPose`, `getModelMatrices`,
 * `getSkinningPalette`, `getSkinnedPositions` and the other streams), kept
 * per world, entity and kind, so that a game reading them every frame
 * allocates nothing.
 *
 * A kept view is returned only when it is exactly the view a new one would
 * be: the caller has checked the entity's component and found its block at
 * `ptr`, `floats` long; the kept view is over the same buffer (the memory's
 * views have not been replaced since: `CoreMemory.generation`), starts at
 * `ptr` and is `floats` long. Anything else (the component removed and
 * added again elsewhere, the entity's skeleton or skin changed, the memory
 * grown into a new buffer, the world reset) makes a new view. So a view
 * from this cache never reaches memory the entity does not own at the call.
 *
 * @module
 */

import type { CoreMemory } from "../simd/memory/internal.ts";

/** What a view shows of an entity: each kind is kept apart. */
export const enum ViewKind {
  Pose,
  ModelMatrices,
  Palette,
  Positions,
  Normals,
  Tangents,
}
const KINDS = 6;

/** One world's kept views. */
interface Kept {
  generation: number;
  readonly views: Map<number, Float32Array>;
}

const kept = new WeakMap<object, Kept>();

/**
 * The view of `floats` floats at byte `ptr` of `memory` (current: the
 * caller's `state.memory`), entity `eid`'s block of kind `kind` in world
 * `state`: the one kept from an earlier call when it is that same view,
 * else a new one, kept.
 */
export function entityView(
  state: object,
  memory: CoreMemory,
  eid: number,
  kind: ViewKind,
  ptr: number,
  floats: number,
): Float32Array {
  let world = kept.get(state);
  if (world === undefined) kept.set(state, world = { generation: -1, views: new Map() });
  if (world.generation !== memory.generation) {
    world.views.clear();
    world.generation = memory.generation;
  }
  const key = eid * KINDS + kind;
  let view = world.views.get(key);
  if (view === undefined || view.byteOffset !== ptr || view.length !== floats) {
    view = memory.f32.subarray(ptr >> 2, (ptr >> 2) + floats);
    world.views.set(key, view);
  }
  return view;
}
