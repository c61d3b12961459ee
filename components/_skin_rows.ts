/**
 * @internal The skinning systems' per-entity work: each entity's
 * Skeleton, JointMat and Skin store fields checked against Marrow's
 * records, and its job row written from the records. It runs for every
 * skinned entity every frame, so it looks the stores up once per call,
 * each skin's mesh once per run of entities sharing it, and writes a row's
 * mesh words only when the row holds another skin than in the last call.
 *
 * @module
 */

import type { SkinAsset } from "../animation/skin_asset.ts";
import {
  JOB_WORDS,
  SKIN_COLUMNS,
  SKIN_FLAGS,
  SKIN_JOINT_COUNT,
  SKIN_JOINTS,
  SKIN_NORMALS_IN,
  SKIN_OUT_NORMALS,
  SKIN_OUT_POSITIONS,
  SKIN_OUT_TANGENTS,
  SKIN_PART_COUNT,
  SKIN_PARTS,
  SKIN_POSITIONS,
  SKIN_TANGENTS_IN,
  SKIN_WEIGHTS,
} from "../simd/abi.ts";
import { MATRIX_FLOATS, SkinFlags } from "../simd/memory/layout.ts";
import { checkedMatrices } from "./joint_mat.ts";
import { checkedSkeleton } from "./skeleton.ts";
import { checkedSkin } from "./skin.ts";
import type { AnimationComponents } from "./world.ts";
import type { Owned, WorldState } from "./registry.ts";
import { skinInternals } from "../animation/internal.ts";
import { cappedWords } from "./_skin_caps.ts";

/** Words of a skinning job row the mesh fills: parts, part count, joints, weights, positions, normals, tangents. */
const MESH_WORDS = 7;

/** A number per skin, never reused (a mesh's byte offsets are, after it is freed); 0 is none. */
const skinIds = new WeakMap<SkinAsset, number>();
let lastSkinId = 0;

/**
 * Per world and staging array of job rows, its writer, made once rather
 * than per call (it holds a typed array for the mesh words). Keyed by the
 * world's state first: a writer holds its state, and keyed by the staging
 * array alone it was reachable from the world's resources, which the
 * world's FinalizationRegistry holds, so a world that had skinned was never
 * collected.
 */
const writers = new WeakMap<WorldState, WeakMap<Uint32Array, SkinRowWriter>>();

/**
 * Writes skinning job rows into a job table's staging array for one
 * system call. Each {@linkcode write} makes the checks of
 * `checkedSkeleton`, `checkedMatrices` and `checkedSkin` (a field game
 * code changed raises their error, from them) and leaves the entity's
 * joint count, palette and method in {@linkcode jointCount},
 * {@linkcode palette} and {@linkcode dual}. One writer per staging array
 * ({@linkcode SkinRowWriter.for}), kept across calls: it keeps the mesh
 * words of the last skin it saw (a skin's mesh never changes) and, per
 * row, the id of the skin whose mesh words the row holds (a row that held
 * the same skin last frame keeps its words). The staging array must be
 * written by its writer only. An array grown is a new array, with a new
 * writer.
 */
export class SkinRowWriter {
  /** The last entity's joint count. */
  jointCount = 0;
  /** Byte offset of the last entity's palette. */
  palette = 0;
  /** Whether the last entity's skin blends dual quaternions. */
  dual = false;
  readonly #state: WorldState;
  #owned: Owned;
  #stores: AnimationComponents;
  #renormalize = 0;
  #asset: SkinAsset | undefined;
  #skinId = 0;
  readonly #mesh = new Uint32Array(MESH_WORDS);
  /** The capped mesh's first four kernel words (`_skin_caps.ts`). */
  readonly #capped = new Uint32Array(4);
  #meshJoints = 0;
  readonly #rows: Uint32Array;
  readonly #rowSkins: Float64Array;

  private constructor(state: WorldState, rows: Uint32Array) {
    this.#state = state;
    this.#owned = state.owned;
    this.#stores = state.components;
    this.#rows = rows;
    this.#rowSkins = new Float64Array(Math.ceil(rows.length / JOB_WORDS));
  }

  /**
   * The writer of staging array `rows` (a job table's) for one system call
   * of world `state`; `renormalize`: the flag rows with normals or
   * tangents get (0 or `SkinFlags.RENORMALIZE`).
   */
  static for(state: WorldState, rows: Uint32Array, renormalize: number): SkinRowWriter {
    let ofState = writers.get(state);
    if (!ofState) writers.set(state, ofState = new WeakMap());
    let writer = ofState.get(rows);
    if (!writer) ofState.set(rows, writer = new SkinRowWriter(state, rows));
    // The world's records and stores are looked up once per call: they are
    // replaced when the world grows.
    writer.#owned = state.owned;
    writer.#stores = state.components;
    writer.#renormalize = renormalize;
    return writer;
  }

  /**
   * Checks entity `eid` and writes its job row `row` but for the palette
   * word (the caller's): the mesh's kernel words, the output streams, the
   * flags. With `cap` below the skin's most influences, the mesh words are
   * those of the skin capped at `cap` (built on first use).
   */
  write(eid: number, row: number, cap = 255): void {
    const o = this.#owned, stores = this.#stores, state = this.#state;
    const skeleton = o.skeleton[eid];
    const n = skeleton ? skeleton.jointCount : 0;
    const skeletonStore = stores.Skeleton;
    if (!skeleton || skeletonStore.asset[eid] !== skeleton || skeletonStore.jointCount[eid] !== n) {
      checkedSkeleton(state, eid);
    }
    const asset = o.skin[eid];
    const positions = o.skinBlock[eid];
    const normals = o.skinNormals[eid], tangents = o.skinTangents[eid];
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
    if (asset !== this.#asset) this.#useSkin(asset!);
    const rows = this.#rows, at = row * JOB_WORDS;
    const capped = cap < asset!.maxInfluences ? cap : 0, id = this.#skinId * 256 + capped;
    if (this.#rowSkins[row] !== id) {
      const mesh = this.#mesh, words = capped ? this.#capped : mesh;
      if (capped) cappedWords(state, asset!, capped, words);
      rows[at + SKIN_PARTS] = words[0];
      rows[at + SKIN_PART_COUNT] = words[1];
      rows[at + SKIN_JOINTS] = words[2];
      rows[at + SKIN_WEIGHTS] = words[3];
      rows[at + SKIN_POSITIONS] = mesh[4];
      rows[at + SKIN_NORMALS_IN] = mesh[5];
      rows[at + SKIN_TANGENTS_IN] = mesh[6];
      this.#rowSkins[row] = id;
    }
    rows[at + SKIN_OUT_POSITIONS] = positions;
    rows[at + SKIN_OUT_NORMALS] = normals;
    rows[at + SKIN_OUT_TANGENTS] = tangents;
    rows[at + SKIN_FLAGS] = (normals ? SkinFlags.NORMALS : 0) |
      (tangents ? SkinFlags.TANGENTS : 0) |
      (normals || tangents ? this.#renormalize : 0);
    const columns = o.skinColumns[eid];
    rows[at + SKIN_COLUMNS] = columns;
    // The scratch was sized for the mesh's joints when the Skin was added.
    rows[at + SKIN_JOINT_COUNT] = columns ? this.#meshJoints : 0;
    this.jointCount = n;
    this.palette = palette;
    this.dual = asset!.method === "dual-quaternion";
  }

  /**
   * Forgets which skin's mesh words row `row` holds: its input streams
   * were pointed elsewhere (an entity's morphed streams), so the next
   * {@linkcode write} to it writes them all.
   */
  forgetRow(row: number): void {
    this.#rowSkins[row] = 0;
  }

  #useSkin(asset: SkinAsset): void {
    const { mesh } = skinInternals(asset);
    mesh.writeKernelWords(this.#mesh, 0);
    this.#meshJoints = mesh.jointCount;
    this.#asset = asset;
    let id = skinIds.get(asset);
    if (id === undefined) skinIds.set(asset, id = ++lastSkinId);
    this.#skinId = id;
  }
}
