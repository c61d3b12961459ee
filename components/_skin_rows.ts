/**
 * @internal The skinning systems' per-entity work: each entity's
 * Skeleton, JointMat and Skin store fields checked against Marrow's
 * records, and its job row written from the records. It runs for every
 * skinned entity every frame, so it looks the stores up once per call and
 * each skin's mesh once per run of entities sharing it.
 *
 * @module
 */

import type { SkinAsset } from "../animation/skin_asset.ts";
import { MATRIX_FLOATS, SkinFlags } from "../simd/layout.ts";
import { checkedMatrices, checkedSkeleton, checkedSkin } from "./_access.ts";
import type { AnimationComponents } from "./world.ts";
import type { Owned, WorldState } from "./_world.ts";

/** Words of a skinning job row the mesh fills: parts, part count, joints, weights, positions, normals, tangents. */
const MESH_WORDS = 7;

/**
 * Writes skinning job rows for one system call. Each {@linkcode write}
 * makes the checks of `checkedSkeleton`, `checkedMatrices` and
 * `checkedSkin` (a field game code changed raises their error, from them)
 * and leaves the entity's joint count, palette and method in
 * {@linkcode jointCount}, {@linkcode palette} and {@linkcode dual}.
 * Valid for one call: it holds the world's store objects, and the mesh
 * words of the last skin it saw (a skin's mesh never changes).
 */
export class SkinRowWriter {
  /** The last entity's joint count. */
  jointCount = 0;
  /** Byte offset of the last entity's palette. */
  palette = 0;
  /** Whether the last entity's skin blends dual quaternions. */
  dual = false;
  readonly #state: WorldState;
  readonly #owned: Owned;
  readonly #stores: AnimationComponents;
  readonly #renormalize: number;
  #asset: SkinAsset | undefined;
  readonly #mesh = new Uint32Array(MESH_WORDS);

  /** `renormalize`: the flag rows with normals or tangents get (0 or `SkinFlags.RENORMALIZE`). */
  constructor(state: WorldState, renormalize: number) {
    this.#state = state;
    this.#owned = state.owned;
    this.#stores = state.components;
    this.#renormalize = renormalize;
  }

  /**
   * Checks entity `eid` and writes its job row from `rows[at + 1]` (the
   * mesh's kernel words, the output streams, the flags); the palette word
   * `rows[at]` is the caller's.
   */
  write(eid: number, rows: Uint32Array, at: number): void {
    const o = this.#owned, stores = this.#stores, state = this.#state;
    const skeleton = o.skeleton[eid];
    const n = skeleton ? skeleton.jointCount : 0;
    const skeletonStore = stores.Skeleton;
    if (!skeleton || skeletonStore.asset[eid] !== skeleton || skeletonStore.jointCount[eid] !== n) {
      checkedSkeleton(state, eid);
    }
    const asset = o.skin[eid];
    const positions = o.skinBlock[eid],
      normals = o.skinNormals[eid],
      tangents = o.skinTangents[eid];
    const skin = stores.Skin;
    if (
      !asset || skin.asset[eid] !== asset || skin.vertexCount[eid] !== asset.vertexCount ||
      skin.positionsByteOffset[eid] !== positions || skin.normalsByteOffset[eid] !== normals ||
      skin.tangentsByteOffset[eid] !== tangents
    ) checkedSkin(state, eid);
    const model = o.matrices[eid], palette = model + n * MATRIX_FLOATS * 4;
    const matrices = stores.JointMat;
    if (
      !model || matrices.modelByteOffset[eid] !== model ||
      matrices.paletteByteOffset[eid] !== palette
    ) checkedMatrices(state, eid, n);
    if (asset !== this.#asset) {
      asset!.mesh.writeKernelWords(this.#mesh, 0);
      this.#asset = asset;
    }
    const mesh = this.#mesh;
    rows[at + 1] = mesh[0];
    rows[at + 2] = mesh[1];
    rows[at + 3] = mesh[2];
    rows[at + 4] = mesh[3];
    rows[at + 5] = mesh[4];
    rows[at + 6] = mesh[5];
    rows[at + 7] = mesh[6];
    rows[at + 8] = positions;
    rows[at + 9] = normals;
    rows[at + 10] = tangents;
    rows[at + 11] = (normals ? SkinFlags.NORMALS : 0) | (tangents ? SkinFlags.TANGENTS : 0) |
      (normals || tangents ? this.#renormalize : 0);
    this.jointCount = n;
    this.palette = palette;
    this.dual = asset!.method === "dual-quaternion";
  }
}
