/**
 * The Skeleton component: which shared {@linkcode SkeletonAsset} an entity
 * animates. Add it first: JointQuat, JointMat, Skin and ClipPlayer need it,
 * and go with it when it is removed.
 *
 * @module
 */

import { hasComponent } from "bitecs";
import { SkeletonAsset } from "../animation/skeleton_asset.ts";
import { lifetimeOf } from "../animation/internal.ts";
import { checkEntity, stateOf } from "./_machinery.ts";
import {
  addWithData,
  defineComponent,
  missing,
  removeOwn,
  type StoreOf,
  tampered,
} from "./_component.ts";
import { objects } from "./_stores.ts";
import type { WorldBase } from "./_world.ts";
import { ComponentError } from "./errors.ts";

/**
 * The Skeleton component: which shared skeleton an entity animates. Needs
 * nothing; JointQuat, JointMat, Skin and ClipPlayer need it.
 */
export interface SkeletonComponent {
  /** The entity's skeleton (object references cannot live in typed arrays). */
  readonly asset: readonly (SkeletonAsset | undefined)[];
  /** Its joint count. */
  readonly jointCount: Uint16Array;
}

/** The Skeleton's public store, typed: the hot paths read it by name, not through `store`. */
type SkeletonStore = StoreOf<typeof SKELETON>;

/** @internal The Skeleton's definition. */
export const SKELETON = defineComponent({
  name: "Skeleton",
  needs: [],
  shape: { asset: objects<SkeletonAsset>(), jointCount: Uint16Array },
  record: { skeleton: objects<SkeletonAsset>() },
  addedBy: "addSkeleton",
  addWith: "addSkeleton(world, eid, skeleton)",
  has: (state: WorldBase, eid: number): boolean =>
    SKELETON.recordOf(state).skeleton[eid] !== undefined,
  allocate(state: WorldBase, eid: number, asset: SkeletonAsset | undefined): void {
    const store = state.components.Skeleton as SkeletonStore;
    lifetimeOf(asset!).acquire();
    SKELETON.recordOf(state).skeleton[eid] = store.asset[eid] = asset;
    store.jointCount[eid] = asset!.jointCount;
  },
  release(resources, eid): void {
    const o = SKELETON.recordOf(resources);
    resources.owned.generation[eid]++;
    if (o.skeleton[eid]) lifetimeOf(o.skeleton[eid]!).release();
    o.skeleton[eid] = undefined;
  },
  check(state: WorldBase, eid: number): void {
    if (SKELETON.recordOf(state).skeleton[eid]) checkedSkeleton(state, eid);
  },
});

/** @internal The entity's skeleton, its store fields checked. */
export function checkedSkeleton(state: WorldBase, eid: number): SkeletonAsset {
  const skeleton = SKELETON.recordOf(state).skeleton[eid];
  if (!skeleton) throw missing(eid, "Skeleton");
  const c = state.components.Skeleton as SkeletonStore;
  if (c.asset[eid] !== skeleton) {
    throw tampered(eid, "Skeleton", "asset", c.asset[eid], "its skeleton");
  }
  if (c.jointCount[eid] !== skeleton.jointCount) {
    throw tampered(eid, "Skeleton", "jointCount", c.jointCount[eid], skeleton.jointCount);
  }
  return skeleton;
}

/** @internal The entity's skeleton, unchecked (undefined without a Skeleton). */
export function skeletonOf(state: WorldBase, eid: number): SkeletonAsset | undefined {
  return SKELETON.recordOf(state).skeleton[eid];
}

/**
 * Gives entity `eid` the Skeleton component, referencing `skeleton` (which
 * must live in the world's core). Throws a {@linkcode ComponentError} if the
 * entity does not exist or already has one (remove it first: its
 * dependents go with it), or if the skeleton was disposed.
 */
export function addSkeleton(world: object, eid: number, skeleton: SkeletonAsset): void {
  const state = stateOf(world, "addSkeleton", eid);
  checkEntity(world, eid, "Skeleton");
  if (hasComponent(world, eid, state.components.Skeleton)) {
    throw new ComponentError(eid, "Skeleton", "the entity already has a Skeleton");
  }
  if (!(skeleton instanceof SkeletonAsset)) {
    throw new ComponentError(eid, "Skeleton", "expected a SkeletonAsset");
  }
  if (skeleton.disposed) throw new ComponentError(eid, "Skeleton", "the skeleton was disposed");
  if (skeleton.core !== state.core) {
    throw new ComponentError(eid, "Skeleton", "the skeleton lives in another core than the world");
  }
  addWithData(world, state, SKELETON, eid, skeleton);
}

/**
 * Removes entity `eid`'s Skeleton, and with it the JointQuat, JointMat,
 * Skin and ClipPlayer that need it. bitecs' `removeComponent` does the
 * same. Throws a {@linkcode ComponentError} if it has none.
 */
export function removeSkeleton(world: object, eid: number): void {
  removeOwn(world, "removeSkeleton", SKELETON, eid);
}
