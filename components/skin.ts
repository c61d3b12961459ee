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

import { hasComponent } from "bitecs";
import { SkinAsset } from "../animation/skin_asset.ts";
import { lifetimeOf } from "../animation/internal.ts";
import { JOINT_COLUMN_BYTES } from "../simd/abi.ts";
import { MATRIX_FLOATS, VERTEX_FLOATS } from "../simd/memory/layout.ts";
import { copyStoredBounds, forgetBounds } from "./_skin_bounds.ts";
import { entityView, ViewKind } from "./_entity_views.ts";
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
import { skinInternals } from "../animation/internal.ts";
import { checkedSkeleton, SKELETON, skeletonOf } from "./skeleton.ts";
import { checkedMatrices, JOINT_MAT } from "./joint_mat.ts";
import { entityMorphBoxes } from "./_morph_boxes.ts";
import { describeValue, typedArrayKind } from "../simd/memory/internal.ts";

export { DualQuaternionError } from "./errors.ts";

/** The Skin component: the entity's shared meshes and skinned output. Needs Skeleton and JointMat. */
export interface SkinComponent {
  /** The entity's skin. */
  readonly asset: readonly (SkinAsset | undefined)[];
  /** Vertices of all its meshes. */
  readonly vertexCount: Uint32Array;
  /** Byte offset of the skinned positions. */
  readonly positionsByteOffset: Uint32Array;
  /** Byte offset of the skinned normals, 0 when not skinned. */
  readonly normalsByteOffset: Uint32Array;
  /** Byte offset of the skinned tangents, 0 when not skinned. */
  readonly tangentsByteOffset: Uint32Array;
  /**
   * Level of detail, yours to write: skin with at most this many influences
   * per vertex (the heaviest, rescaled to sum to one); 0 uses them all.
   */
  readonly maxInfluences: Uint8Array;
}

/** What addSkin hands to the Skin's add observer. */
interface SkinData {
  readonly asset: SkinAsset;
  readonly normals: boolean;
  readonly tangents: boolean;
}

/** The Skin's public store, typed: the hot paths read it by name, not through `store`. */
type SkinStore = StoreOf<typeof SKIN>;

/** @internal The Skin's definition. */
export const SKIN = defineComponent({
  name: "Skin",
  needs: [SKELETON, JOINT_MAT],
  shape: {
    asset: objects<SkinAsset>(),
    vertexCount: Uint32Array,
    positionsByteOffset: Uint32Array,
    normalsByteOffset: Uint32Array,
    tangentsByteOffset: Uint32Array,
    maxInfluences: Uint8Array,
  },
  record: {
    skin: objects<SkinAsset>(),
    skinBlock: Uint32Array,
    skinNormals: Uint32Array,
    skinTangents: Uint32Array,
    /**
     * Byte offset of the skinning kernel's scratch for the entity's palette
     * transposed, at the end of its skin block (0 for dual-quaternion skins).
     */
    skinColumns: Uint32Array,
  },
  addedBy: "addSkin",
  addWith: "addSkin(world, eid, skin)",
  has: (state: WorldBase, eid: number): boolean => SKIN.recordOf(state).skin[eid] !== undefined,
  allocate(state: WorldBase, eid: number, data: SkinData | undefined): void {
    const { asset, normals, tangents } = data!;
    const stream = asset.vertexCount * VERTEX_FLOATS * 4;
    const streams = stream * (1 + +normals + +tangents);
    // Linear skins get the kernel's scratch for their palette transposed.
    const columns = asset.method === "linear"
      ? skinInternals(asset).mesh.jointCount * JOINT_COLUMN_BYTES
      : 0;
    const block = state.resources.memory.alloc(streams + columns);
    lifetimeOf(asset).acquire();
    const o = SKIN.recordOf(state), c = state.components.Skin as SkinStore;
    o.skin[eid] = asset;
    o.skinBlock[eid] = block;
    o.skinColumns[eid] = columns ? block + streams : 0;
    c.asset[eid] = asset;
    c.vertexCount[eid] = asset.vertexCount;
    c.positionsByteOffset[eid] = block;
    o.skinNormals[eid] = c.normalsByteOffset[eid] = normals ? block + stream : 0;
    o.skinTangents[eid] = c.tangentsByteOffset[eid] = tangents
      ? block + stream * (1 + +normals)
      : 0;
    c.maxInfluences[eid] = 0;
  },
  release(resources, eid): void {
    const o = SKIN.recordOf(resources);
    resources.owned.generation[eid]++;
    if (o.skinBlock[eid]) resources.memory.free(o.skinBlock[eid]);
    if (o.skin[eid]) lifetimeOf(o.skin[eid]!).release();
    o.skinBlock[eid] =
      o.skinNormals[eid] =
      o.skinTangents[eid] =
      o.skinColumns[eid] =
        0;
    o.skin[eid] = undefined;
  },
  check(state: WorldBase, eid: number): void {
    if (SKIN.recordOf(state).skin[eid]) checkSkinFields(state, eid);
  },
});

/** @internal An entity's skin and its output streams (0 for a stream not skinned). */
interface SkinRecord {
  readonly asset: SkinAsset;
  readonly positions: number;
  readonly normals: number;
  readonly tangents: number;
}

/** The entity's skin, its store fields checked against what Marrow set. */
function checkSkinFields(state: WorldBase, eid: number): SkinAsset {
  const o = SKIN.recordOf(state);
  const asset = o.skin[eid];
  if (!asset) throw missing(eid, "Skin");
  const c = state.components.Skin as SkinStore;
  if (c.asset[eid] !== asset) throw tampered(eid, "Skin", "asset", c.asset[eid], "its skin");
  if (c.vertexCount[eid] !== asset.vertexCount) {
    throw tampered(eid, "Skin", "vertexCount", c.vertexCount[eid], asset.vertexCount);
  }
  const positions = c.positionsByteOffset[eid];
  const normals = c.normalsByteOffset[eid], tangents = c.tangentsByteOffset[eid];
  if (positions !== o.skinBlock[eid]) {
    throw tampered(eid, "Skin", "positionsByteOffset", positions, o.skinBlock[eid]);
  }
  if (normals !== o.skinNormals[eid]) {
    throw tampered(eid, "Skin", "normalsByteOffset", normals, o.skinNormals[eid]);
  }
  if (tangents !== o.skinTangents[eid]) {
    throw tampered(eid, "Skin", "tangentsByteOffset", tangents, o.skinTangents[eid]);
  }
  return asset;
}

/** @internal The entity's skin and output offsets, checked. */
export function checkedSkin(state: WorldBase, eid: number): SkinRecord {
  const asset = checkSkinFields(state, eid), o = SKIN.recordOf(state);
  return {
    asset,
    positions: o.skinBlock[eid],
    normals: o.skinNormals[eid],
    tangents: o.skinTangents[eid],
  };
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
  const state = stateOf(world, "addSkin", eid);
  checkEntity(world, eid, "Skin");
  if (hasComponent(world, eid, state.components.Skin)) {
    throw new ComponentError(eid, "Skin", "the entity already has a Skin");
  }
  if (!(asset instanceof SkinAsset)) throw new ComponentError(eid, "Skin", "expected a SkinAsset");
  if (asset.disposed) throw new ComponentError(eid, "Skin", "the skin was disposed");
  const skeleton = skeletonOf(state, eid);
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
  if (!hasComponent(world, eid, state.components.JointMat)) {
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
  addWithData(world, state, SKIN, eid, { asset, normals: !!normals, tangents: !!tangents });
  forgetBounds(state, eid);
}

/** Removes entity `eid`'s Skin; a {@linkcode ComponentError} if it has none. */
export function removeSkin(world: object, eid: number): void {
  removeOwn(world, "removeSkin", SKIN, eid);
}

/**
 * Entity `eid`'s skinned positions `(x, y, z, 1)` per output vertex, all
 * meshes; mesh `m` is `asset.meshes[m]`'s vertex range. Calls allocate
 * nothing (the same view while it stays valid, as `getPose`'s); call it
 * again each frame rather than keep the view.
 */
export function getSkinnedPositions(world: object, eid: number): Float32Array {
  return output(world, eid, ViewKind.Positions)!;
}

/** Entity `eid`'s skinned normals, or undefined when its skin has none (as {@linkcode getSkinnedPositions}). */
export function getSkinnedNormals(world: object, eid: number): Float32Array | undefined {
  return output(world, eid, ViewKind.Normals);
}

/** Entity `eid`'s skinned tangents (w = handedness), or undefined (as {@linkcode getSkinnedPositions}). */
export function getSkinnedTangents(world: object, eid: number): Float32Array | undefined {
  return output(world, eid, ViewKind.Tangents);
}

function output(
  world: object,
  eid: number,
  stream: ViewKind.Positions | ViewKind.Normals | ViewKind.Tangents,
): Float32Array | undefined {
  const state = stateOf(world, "getSkinned", eid);
  checkedSkeleton(state, eid);
  const asset = checkSkinFields(state, eid), o = SKIN.recordOf(state);
  const ptr = stream === ViewKind.Positions
    ? o.skinBlock[eid]
    : stream === ViewKind.Normals
    ? o.skinNormals[eid]
    : o.skinTangents[eid];
  if (!ptr) return undefined;
  return entityView(state, state.memory, eid, stream, ptr, asset.vertexCount * VERTEX_FLOATS);
}

/** An axis-aligned box. An empty mesh's box has min +Infinity and max -Infinity. */
export interface Bounds {
  /** Smallest x, y, z. */
  readonly min: readonly [number, number, number];
  /** Largest x, y, z. */
  readonly max: readonly [number, number, number];
}

/** Whether a bounds' corner can be written: an array or a typed array (no closure: called each frame). */
function writable(array: unknown): boolean {
  return Array.isArray(array) || typedArrayKind(array) !== undefined;
}

/** `out`, when given, checked to hold two arrays to write; else new bounds. */
function checkedBounds(caller: string, out: Bounds | undefined): Bounds {
  if (out === undefined) return { min: [0, 0, 0], max: [0, 0, 0] };
  if (!out || typeof out !== "object" || !writable(out.min) || !writable(out.max)) {
    throw new TypeError(
      `${caller}: out: expected { min: [...], max: [...] }, got ${describeValue(out)}`,
    );
  }
  return out;
}

/**
 * The axis-aligned bounds of entity `eid`'s skinned positions, computed by
 * the skinning kernel while it writes them (no extra pass). Valid after
 * the skin system ran for the entity this frame: it is the box of the
 * positions the last run wrote. Undefined until the skin system has run
 * for the entity since its Skin was added. Given `out`, writes the box
 * into its `min` and `max` arrays and returns it (nothing allocated; `out`
 * untouched when undefined is returned), else returns a new box.
 */
export function getSkinnedBounds(world: object, eid: number, out?: Bounds): Bounds | undefined {
  const state = stateOf(world, "getSkinnedBounds", eid);
  checkedSkeleton(state, eid);
  checkSkinFields(state, eid);
  const box = checkedBounds("getSkinnedBounds", out);
  return copyStoredBounds(
      state,
      eid,
      box.min as [number, number, number],
      box.max as [number, number, number],
    )
    ? box
    : undefined;
}

/**
 * A box that contains entity `eid`'s skinned positions, from its joints'
 * bind-space boxes ({@linkcode SkinAsset.jointBounds}) and its current
 * model matrices, without skinning: for culling before the skin system
 * runs; for an entity with MorphWeights, each joint's box is widened by
 * its morph targets' displacements at the entity's weights. Valid once the
 * entity's model matrices are this frame's (after the transform-skeleton
 * system). Each skinned vertex is a weighted average of
 * its joints' transforms of it, so it lies in the union of the joints'
 * transformed boxes; the box is widened by a relative 1e-5 for float
 * rounding. Looser than {@linkcode getSkinnedBounds}. Given `out`, writes
 * the box into its `min` and `max` arrays and returns it (nothing
 * allocated), else returns a new box.
 */
export function getJointSkinBounds(world: object, eid: number, out?: Bounds): Bounds {
  const state = stateOf(world, "getJointSkinBounds", eid);
  const n = checkedSkeleton(state, eid).jointCount;
  const asset = checkSkinFields(state, eid);
  const model = state.memory.f32, at = checkedMatrices(state, eid, n) >> 2;
  const base = skinInternals(asset).jointBoxes;
  // Morph hook: an entity's morph targets widen its joints' boxes.
  const boxes = entityMorphBoxes(state.owned, eid, base) ?? base;
  const box = checkedBounds("getJointSkinBounds", out);
  const lo = box.min as [number, number, number], hi = box.max as [number, number, number];
  lo[0] = lo[1] = lo[2] = Infinity;
  hi[0] = hi[1] = hi[2] = -Infinity;
  for (let j = 0; j < n; j++) {
    const b = j * 6;
    if (!(boxes[b] <= boxes[b + 3])) continue;
    const cx = (boxes[b] + boxes[b + 3]) / 2, ex = (boxes[b + 3] - boxes[b]) / 2;
    const cy = (boxes[b + 1] + boxes[b + 4]) / 2, ey = (boxes[b + 4] - boxes[b + 1]) / 2;
    const cz = (boxes[b + 2] + boxes[b + 5]) / 2, ez = (boxes[b + 5] - boxes[b + 2]) / 2;
    for (let r = 0; r < 3; r++) {
      const e = at + j * MATRIX_FLOATS + r * 4;
      const m0 = model[e], m1 = model[e + 1], m2 = model[e + 2];
      const c = m0 * cx + m1 * cy + m2 * cz + model[e + 3];
      const x = Math.abs(m0) * ex + Math.abs(m1) * ey + Math.abs(m2) * ez;
      // Float rounding of the kernel and of the stored boxes.
      const pad = 1e-5 * (Math.abs(c) + x + Math.abs(model[e + 3])) + 1e-30;
      if (c - x - pad < lo[r]) lo[r] = c - x - pad;
      if (c + x + pad > hi[r]) hi[r] = c + x + pad;
    }
  }
  return box;
}
