/**
 * The Skin component: a shared {@linkcode SkinAsset} (one or more meshes)
 * and the entity's own skinned output streams in the core's memory (4
 * floats per vertex, in the asset's output vertex order). Needs a Skeleton
 * (the skin's) and a JointMat.
 *
 * Output views can go straight to a GPU buffer or a physics engine without
 * a copy. A view is valid until the world's core next grows (adding a
 * component, creating an asset) unless `core.viewsSurviveGrowth`; read it
 * again each frame rather than keep it.
 *
 * @module
 */

import { addComponent, hasComponent, removeComponent } from "bitecs";
import { SkinAsset } from "../animation/skin_asset.ts";
import { VERTEX_FLOATS } from "../simd/layout.ts";
import { checkedSkeleton, checkedSkin } from "./_access.ts";
import { checkEntity, stateOf } from "./_lifecycle.ts";
import { ComponentError } from "./errors.ts";

/** Which output streams an entity's skin computes. */
export interface SkinStreams {
  /** Skin normals. Default: when the asset has them. */
  readonly normals?: boolean;
  /** Skin tangents. Default: when the asset has them. */
  readonly tangents?: boolean;
}

/**
 * Gives entity `eid` a Skin of `asset`, with output streams for positions
 * and, per `streams`, normals and tangents. Throws a
 * {@linkcode ComponentError} when the entity lacks a Skeleton or JointMat,
 * already has a Skin, its skeleton is not the asset's, the asset was
 * disposed, or a stream is asked for that the asset does not have.
 */
export function addSkin(
  world: object,
  eid: number,
  asset: SkinAsset,
  streams: SkinStreams = {},
): void {
  const state = stateOf(world, "addSkin");
  checkEntity(world, eid, "Skin");
  const c = state.components;
  if (hasComponent(world, eid, c.Skin)) {
    throw new ComponentError(eid, "Skin", "the entity already has a Skin");
  }
  if (!(asset instanceof SkinAsset)) throw new ComponentError(eid, "Skin", "expected a SkinAsset");
  if (asset.disposed) throw new ComponentError(eid, "Skin", "the skin was disposed");
  const skeleton = state.owned.skeleton[eid];
  if (!skeleton) {
    throw new ComponentError(eid, "Skin", "the entity needs a Skeleton first (addSkeleton)");
  }
  if (asset.skeleton !== skeleton) {
    throw new ComponentError(
      eid,
      "Skin",
      "the skin is bound to another skeleton than the entity's (build the SkinAsset with the entity's SkeletonAsset)",
    );
  }
  if (!hasComponent(world, eid, c.JointMat)) {
    throw new ComponentError(eid, "Skin", "the entity needs a JointMat first (addJointMat)");
  }
  const normals = streams?.normals ?? asset.hasNormals;
  const tangents = streams?.tangents ?? asset.hasTangents;
  if (normals && !asset.hasNormals) {
    throw new ComponentError(eid, "Skin", "normals requested, but the skin has no normals");
  }
  if (tangents && !asset.hasTangents) {
    throw new ComponentError(eid, "Skin", "tangents requested, but the skin has no tangents");
  }
  state.pending.Skin = { asset, normals: !!normals, tangents: !!tangents };
  try {
    addComponent(world, eid, c.Skin);
  } finally {
    state.pending.Skin = undefined;
  }
}

/** Removes entity `eid`'s Skin; a {@linkcode ComponentError} if it has none. */
export function removeSkin(world: object, eid: number): void {
  const state = stateOf(world, "removeSkin");
  checkEntity(world, eid, "Skin");
  if (!hasComponent(world, eid, state.components.Skin)) {
    throw new ComponentError(eid, "Skin", "the entity has no Skin (removed twice?)");
  }
  removeComponent(world, eid, state.components.Skin);
}

/**
 * Entity `eid`'s skinned positions `(x, y, z, 1)` per output vertex, all
 * meshes; mesh `m` is `asset.meshes[m]`'s vertex range.
 */
export function getSkinnedPositions(world: object, eid: number): Float32Array {
  return output(world, eid, "positions")!;
}

/** Entity `eid`'s skinned normals, or undefined when its skin has none. */
export function getSkinnedNormals(world: object, eid: number): Float32Array | undefined {
  return output(world, eid, "normals");
}

/** Entity `eid`'s skinned tangents (w = handedness), or undefined. */
export function getSkinnedTangents(world: object, eid: number): Float32Array | undefined {
  return output(world, eid, "tangents");
}

function output(
  world: object,
  eid: number,
  stream: "positions" | "normals" | "tangents",
): Float32Array | undefined {
  const state = stateOf(world, "getSkinned");
  checkedSkeleton(state, eid);
  const record = checkedSkin(state, eid);
  const ptr = record[stream];
  if (!ptr) return undefined;
  return state.memory.f32.subarray(ptr >> 2, (ptr >> 2) + record.asset.vertexCount * VERTEX_FLOATS);
}
