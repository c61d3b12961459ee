/**
 * The Skin component: a shared {@linkcode SkinAsset} and the entity's own
 * skinned output streams in the core's memory (4 floats per vertex, in the
 * asset's output vertex order).
 *
 * Output views can go straight to a GPU buffer or a physics engine without
 * a copy. A view is valid until the world's core next allocates (adding a
 * component, creating an asset); read it again each frame rather than keep
 * it. Where the runtime exposes WebAssembly memory as a resizable buffer,
 * views also survive growth, but do not rely on it.
 *
 * @module
 */

import { addComponent, removeComponent } from "bitecs";
import { VERTEX_FLOATS } from "../simd/layout.ts";
import { checkEntity, requireSkeleton, stateOf, withAdding } from "./_world.ts";
import { ComponentError } from "./errors.ts";
import { SkinAsset } from "../animation/skin_asset.ts";

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
 * already has a Skin, its skeleton is not the asset's, or a stream is asked
 * for that the asset does not have.
 */
export function addSkin(
  world: object,
  eid: number,
  asset: SkinAsset,
  streams: SkinStreams = {},
): void {
  const state = stateOf(world, "addSkin");
  checkEntity(state, eid, "Skin");
  const skeleton = requireSkeleton(state, eid, "Skin");
  if (!(asset instanceof SkinAsset)) throw new ComponentError(eid, "Skin", "expected a SkinAsset");
  if (!state.matrices.has(eid)) {
    throw new ComponentError(eid, "Skin", "the entity needs a JointMat first (addJointMat)");
  }
  if (state.skins.has(eid)) throw new ComponentError(eid, "Skin", "the entity already has a Skin");
  if (asset.skeleton !== skeleton) {
    throw new ComponentError(
      eid,
      "Skin",
      `the skin is bound to a skeleton of ${asset.skeleton.jointCount} joints, not to the entity's (${skeleton.jointCount} joints)`,
    );
  }
  const normals = streams.normals ?? asset.hasNormals;
  const tangents = streams.tangents ?? asset.hasTangents;
  if (normals && !asset.hasNormals) {
    throw new ComponentError(eid, "Skin", "normals requested, but the skin has no normals");
  }
  if (tangents && !asset.hasTangents) {
    throw new ComponentError(eid, "Skin", "tangents requested, but the skin has no tangents");
  }
  withAdding(state, "Skin", () => addComponent(world, eid, state.components.Skin));
  const stream = asset.vertexCount * VERTEX_FLOATS * 4;
  const block = state.memory.alloc(stream * (1 + +normals + +tangents));
  const record = {
    asset,
    block,
    positions: block,
    normals: normals ? block + stream : 0,
    tangents: tangents ? block + stream * (1 + +normals) : 0,
  };
  state.skins.set(eid, record);
  const c = state.components.Skin;
  c.asset[eid] = asset;
  c.positionsByteOffset[eid] = record.positions;
  c.normalsByteOffset[eid] = record.normals;
  c.tangentsByteOffset[eid] = record.tangents;
}

/** Removes entity `eid`'s Skin; a {@linkcode ComponentError} if it has none. */
export function removeSkin(world: object, eid: number): void {
  const state = stateOf(world, "removeSkin");
  if (!state.skins.has(eid)) {
    throw new ComponentError(eid, "Skin", "the entity has no Skin (removed twice?)");
  }
  removeComponent(world, eid, state.components.Skin);
}

/** Entity `eid`'s skinned positions `(x, y, z, 1)` per output vertex. */
export function getSkinnedPositions(world: object, eid: number): Float32Array {
  return output(world, eid, "positions");
}

/** Entity `eid`'s skinned normals, or undefined when its skin has none. */
export function getSkinnedNormals(world: object, eid: number): Float32Array | undefined {
  return output(world, eid, "normals");
}

/** Entity `eid`'s skinned tangents (w = handedness), or undefined. */
export function getSkinnedTangents(world: object, eid: number): Float32Array | undefined {
  return output(world, eid, "tangents");
}

function output(world: object, eid: number, stream: "positions"): Float32Array;
function output(
  world: object,
  eid: number,
  stream: "normals" | "tangents",
): Float32Array | undefined;
function output(
  world: object,
  eid: number,
  stream: "positions" | "normals" | "tangents",
): Float32Array | undefined {
  const state = stateOf(world, "getSkinned");
  const record = state.skins.get(eid);
  if (!record) throw new ComponentError(eid, "Skin", "the entity has no Skin");
  const ptr = record[stream];
  if (!ptr) return undefined;
  return state.memory.f32.subarray(ptr >> 2, (ptr >> 2) + record.asset.vertexCount * VERTEX_FLOATS);
}
