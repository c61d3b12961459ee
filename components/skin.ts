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
import { MATRIX_FLOATS, VERTEX_FLOATS } from "../simd/layout.ts";
import { checkedMatrices, checkedSkeleton, checkedSkin } from "./_access.ts";
import { forgetBounds, storedBounds } from "./_skin_bounds.ts";
import { checkEntity, stateOf } from "./_lifecycle.ts";
import { ComponentError } from "./errors.ts";
import { skinInternals } from "../animation/_asset_internals.ts";

/**
 * A joint whose skinning palette matrix is not a rotation times a uniform
 * positive scale (non-uniform scale, shear, a mirror or a zero scale), on
 * an entity whose skin uses dual-quaternion skinning. Raised by the
 * skinning systems before they write anything.
 */
export class DualQuaternionError extends RangeError {
  /** The entity at fault. */
  readonly entity: number;
  /** The joint at fault. */
  readonly joint: number;

  /** Creates the error for `entity`'s `joint`. */
  constructor(entity: number, joint: number) {
    super(
      `entity ${entity}: JointMat palette joint ${joint} is not a rotation times a uniform scale, which dual-quaternion skinning needs`,
    );
    this.name = "DualQuaternionError";
    this.entity = entity;
    this.joint = joint;
  }
}

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
  forgetBounds(state, eid);
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

/** An axis-aligned box. An empty mesh's box has min +Infinity and max -Infinity. */
export interface Bounds {
  /** Smallest x, y, z. */
  readonly min: readonly [number, number, number];
  /** Largest x, y, z. */
  readonly max: readonly [number, number, number];
}

/**
 * The axis-aligned bounds of entity `eid`'s skinned positions, computed by
 * the skinning kernel while it writes them (no extra pass). Valid after
 * the skin system ran for the entity this frame: it is the box of the
 * positions the last run wrote. Undefined until the skin system has run
 * for the entity since its Skin was added.
 */
export function getSkinnedBounds(world: object, eid: number): Bounds | undefined {
  const state = stateOf(world, "getSkinnedBounds");
  checkedSkeleton(state, eid);
  checkedSkin(state, eid);
  const b = storedBounds(state, eid);
  return b && { min: [b[0], b[1], b[2]], max: [b[4], b[5], b[6]] };
}

/**
 * A box that contains entity `eid`'s skinned positions, from its joints'
 * bind-space boxes ({@linkcode SkinAsset.jointBounds}) and its current
 * model matrices, without skinning: for culling before the skin system
 * runs. Valid once the entity's model matrices are this frame's (after the
 * transform-skeleton system). Each skinned vertex is a weighted average of
 * its joints' transforms of it, so it lies in the union of the joints'
 * transformed boxes; the box is widened by a relative 1e-5 for float
 * rounding. Looser than {@linkcode getSkinnedBounds}.
 */
export function getJointSkinBounds(world: object, eid: number): Bounds {
  const state = stateOf(world, "getJointSkinBounds");
  const n = checkedSkeleton(state, eid).jointCount;
  const asset = checkedSkin(state, eid).asset;
  const model = state.memory.f32.subarray(checkedMatrices(state, eid, n) >> 2);
  const boxes = skinInternals(asset).jointBoxes;
  const lo = [Infinity, Infinity, Infinity], hi = [-Infinity, -Infinity, -Infinity];
  for (let j = 0; j < n; j++) {
    const b = j * 6;
    if (!(boxes[b] <= boxes[b + 3])) continue;
    const cx = (boxes[b] + boxes[b + 3]) / 2, ex = (boxes[b + 3] - boxes[b]) / 2;
    const cy = (boxes[b + 1] + boxes[b + 4]) / 2, ey = (boxes[b + 4] - boxes[b + 1]) / 2;
    const cz = (boxes[b + 2] + boxes[b + 5]) / 2, ez = (boxes[b + 5] - boxes[b + 2]) / 2;
    for (let r = 0; r < 3; r++) {
      const e = j * MATRIX_FLOATS + r * 4;
      const m0 = model[e], m1 = model[e + 1], m2 = model[e + 2];
      const c = m0 * cx + m1 * cy + m2 * cz + model[e + 3];
      const x = Math.abs(m0) * ex + Math.abs(m1) * ey + Math.abs(m2) * ez;
      // Float rounding of the kernel and of the stored boxes.
      const pad = 1e-5 * (Math.abs(c) + x + Math.abs(model[e + 3])) + 1e-30;
      if (c - x - pad < lo[r]) lo[r] = c - x - pad;
      if (c + x + pad > hi[r]) hi[r] = c + x + pad;
    }
  }
  return { min: [lo[0], lo[1], lo[2]], max: [hi[0], hi[1], hi[2]] };
}
