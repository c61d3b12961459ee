/**
 * The MorphWeights component: an entity's own weights of its skin's morph
 * targets (`SkinAsset.morphTargetNames`), and its morphed bind streams in
 * the core's memory, which the skinning systems skin in place of the
 * skin's shared ones. Needs a Skin whose asset has morph targets.
 *
 * The morph (`base + sum_i w_i * d_i`, the active targets only) runs in
 * the skinning system of the frame after the weights changed, before
 * skinning, so that the skinned positions, their bounds
 * (`getSkinnedBounds`) and raycasts see the morphed mesh; a frame whose
 * weights did not change costs nothing.
 *
 * Clips drive the weights too: where a clip the entity plays has a morph
 * channel (`Clip.morphChannels`) for a mesh of its skin, the sample clips
 * system samples it at the playback's clock and writes the targets it
 * animates, blended as joints blend (see `systems/_morph_layers.ts`);
 * targets no clip animates show the weights the game set.
 *
 * @module
 */

import { hasComponent } from "bitecs";
import type { SkinAsset } from "../animation/skin_asset.ts";
import { skinInternals } from "../animation/internal.ts";
import { applyMorphToStreams, type MorphedStreams } from "../animation/internal.ts";
import { VERTEX_FLOATS } from "../simd/memory/layout.ts";
import { checkEntity, stateOf } from "./_machinery.ts";
import { addWithData, defineComponent, missing, removeOwn, tampered } from "./_component.ts";
import { objects } from "./_stores.ts";
import type { WorldBase } from "./_world.ts";
import { ComponentError } from "./errors.ts";
import { SKIN } from "./skin.ts";
import { MorphPlay } from "./_morph_play.ts";
import { describeValue } from "../simd/memory/internal.ts";

/** The largest weight magnitude: far beyond any blend shape, and a bound on the morphed values. */
export const MAX_MORPH_WEIGHT = 1e6;

/** The MorphWeights component's public store. */
export interface MorphWeightsComponent {
  /** Morph targets of the entity's skin: the weights it takes. Read-only. */
  readonly targetCount: Uint32Array;
}

/** Options of {@linkcode addMorphWeights}. */
export interface MorphWeightsOptions {
  /**
   * The glTF node of each mesh of the skin, in the order the skin was made
   * of them (`primitives.map((p) => p.node)` for a skin of a model's
   * `GltfSkinnedPrimitive`s): a clip's morph channel drives the targets of
   * the meshes of its node. Without it, each mesh takes the clip's first
   * morph channel that keys as many targets as the mesh has: right for a
   * skin of one node's meshes, not for one that joins the meshes of
   * several nodes whose weights a clip keys apart.
   */
  readonly nodes?: ArrayLike<number>;
}

/** What addMorphWeights hands to the add observer. */
interface MorphData {
  readonly weights: Float32Array | undefined;
  readonly nodes: Int32Array | undefined;
}

/** @internal The MorphWeights definition. */
export const MORPH_WEIGHTS = defineComponent({
  name: "MorphWeights",
  needs: [SKIN],
  shape: { targetCount: Uint32Array },
  record: {
    /** The entity's weights, sources and morphed streams. */
    morph: objects<MorphedStreams>(),
    /** The weights the game set and the clips' bindings. */
    play: objects<MorphPlay>(),
    /** 1 while the morphed streams do not show the weights. */
    morphDirty: Uint8Array,
  },
  addedBy: "addMorphWeights",
  has: (state: WorldBase, eid: number): boolean =>
    MORPH_WEIGHTS.recordOf(state).morph[eid] !== undefined,
  allocate(state: WorldBase, eid: number, data: MorphData | undefined): void {
    const skin = SKIN.recordOf(state);
    const asset = skin.skin[eid]!;
    const { morph, jointBoxes } = skinInternals(asset);
    if (!morph) throw new ComponentError(eid, "MorphWeights", "the skin has no morph targets");
    // Only the streams the entity skins and a target displaces are its own.
    const own = [
      morph.bases[0] !== undefined,
      morph.bases[1] !== undefined && skin.skinNormals[eid] !== 0,
      morph.bases[2] !== undefined && skin.skinTangents[eid] !== 0,
    ];
    const stream = asset.vertexCount * VERTEX_FLOATS * 4;
    const count = +own[0] + +own[1] + +own[2];
    // At least one block, so that `outputs` names it (a skin of normal-only targets skinned without normals).
    const block = state.resources.memory.alloc(stream * Math.max(1, count));
    let at = block;
    const outputs = own.map((mine) => mine ? (at += stream) - stream : 0);
    const o = MORPH_WEIGHTS.recordOf(state);
    const weights = data?.weights ?? new Float32Array(morph.names.length);
    const held = o.morph[eid] = {
      asset,
      prepared: morph,
      weights,
      block,
      outputs,
      boxes: new Float32Array(jointBoxes.length),
    };
    o.play[eid] = new MorphPlay(held, weights.slice(), data?.nodes);
    o.morphDirty[eid] = 1;
    (state.components.MorphWeights as MorphWeightsComponent).targetCount[eid] = morph.names.length;
  },
  release(resources, eid): void {
    const o = MORPH_WEIGHTS.recordOf(resources), held = o.morph[eid];
    if (held) resources.memory.free(held.block);
    o.morph[eid] = undefined;
    o.play[eid] = undefined;
    o.morphDirty[eid] = 0;
  },
  check(state: WorldBase, eid: number): void {
    const held = MORPH_WEIGHTS.recordOf(state).morph[eid];
    if (!held) return;
    const count = (state.components.MorphWeights as MorphWeightsComponent).targetCount[eid];
    if (count !== held.weights.length) {
      throw tampered(eid, "MorphWeights", "targetCount", count, held.weights.length);
    }
  },
});

/**
 * `list` (argument `field` of entity `eid`) checked as `out.length` values
 * that `problem` accepts (else it says what is wrong with one), copied into
 * `out`; nothing written on error.
 */
function checkedList<T extends Float32Array | Int32Array>(
  eid: number,
  field: "weights" | "nodes",
  list: ArrayLike<number>,
  out: T,
  expected: string,
  problem: (value: unknown, i: number) => string | undefined,
): T {
  if (list === null || typeof list !== "object" || list.length !== out.length) {
    const got = (list as ArrayLike<number> | null)?.length;
    const message = `${field}: expected ${out.length} ${expected}, got ${describeValue(got)}`;
    throw new ComponentError(eid, "MorphWeights", message, field);
  }
  for (let i = 0; i < out.length; i++) {
    const value = list[i], wrong = problem(value, i);
    if (wrong !== undefined) {
      throw new ComponentError(eid, "MorphWeights", `${field}[${i}]${wrong}`, field);
    }
    out[i] = value;
  }
  return out;
}

/** `weights` checked for entity `eid`'s skin, as a new array; nothing written on error. */
function checkedWeights(eid: number, asset: SkinAsset, weights: ArrayLike<number>): Float32Array {
  const names = asset.morphTargetNames;
  const out = new Float32Array(names.length);
  return checkedList(
    eid,
    "weights",
    weights,
    out,
    "weights (one per morph target of the skin)",
    (w, t) =>
      typeof w === "number" && Math.abs(w) <= MAX_MORPH_WEIGHT
        ? undefined
        : ` (${
          names[t] || "unnamed"
        }) is ${w}, expected a finite number within ±${MAX_MORPH_WEIGHT}`,
  );
}

/** `nodes` checked for entity `eid`'s skin, as a new array; nothing written on error. */
function checkedNodes(eid: number, asset: SkinAsset, nodes: ArrayLike<number>): Int32Array {
  const out = new Int32Array(asset.meshes.length);
  return checkedList(
    eid,
    "nodes",
    nodes,
    out,
    "glTF node indices (one per mesh of the skin)",
    (node) =>
      Number.isInteger(node) && (node as number) >= 0 && (node as number) <= 0x7fffffff
        ? undefined
        : ` is ${node}, expected a glTF node index`,
  );
}

/**
 * Gives entity `eid` a MorphWeights: its own weights of its skin's morph
 * targets, all 0 unless `weights` (one per `skin.morphTargetNames`) is
 * given; `options.nodes` says which clip channels drive which mesh
 * ({@linkcode MorphWeightsOptions}). Throws a {@linkcode ComponentError}
 * when the entity lacks a Skin, already has MorphWeights, its skin has no
 * morph targets, a weight is not a finite number within
 * ±{@linkcode MAX_MORPH_WEIGHT}, or `nodes` is not one whole number >= 0
 * per mesh of the skin.
 */
export function addMorphWeights(
  world: object,
  eid: number,
  weights?: ArrayLike<number>,
  options?: MorphWeightsOptions,
): void {
  const state = stateOf(world, "addMorphWeights", eid);
  checkEntity(world, eid, "MorphWeights");
  if (hasComponent(world, eid, state.components.MorphWeights)) {
    throw new ComponentError(eid, "MorphWeights", "the entity already has MorphWeights");
  }
  const asset = SKIN.recordOf(state).skin[eid];
  if (!asset || !hasComponent(world, eid, state.components.Skin)) {
    throw new ComponentError(eid, "MorphWeights", "the entity needs a Skin first (addSkin)");
  }
  if (asset.morphTargetNames.length === 0) {
    throw new ComponentError(eid, "MorphWeights", "the skin has no morph targets");
  }
  const data = {
    weights: weights === undefined ? undefined : checkedWeights(eid, asset, weights),
    nodes: options?.nodes === undefined ? undefined : checkedNodes(eid, asset, options.nodes),
  };
  addWithData(world, state, MORPH_WEIGHTS, eid, data);
}

/** Removes entity `eid`'s MorphWeights (it skins its skin's own streams again). */
export function removeMorphWeights(world: object, eid: number): void {
  removeOwn(world, "removeMorphWeights", MORPH_WEIGHTS, eid);
}

/**
 * Sets entity `eid`'s morph weights, one per `skin.morphTargetNames`
 * (copied); they show from the next skinning, except the targets a clip
 * the entity plays animates, which the clip drives (blended with these
 * where its weight is below the blend threshold). Throws a
 * {@linkcode ComponentError} naming the entity and the weight at fault
 * (nothing written) when the entity has no MorphWeights, the count differs
 * or a weight is not a finite number within ±{@linkcode MAX_MORPH_WEIGHT}.
 * Allocates nothing.
 */
export function setMorphWeights(world: object, eid: number, weights: ArrayLike<number>): void {
  const state = stateOf(world, "setMorphWeights", eid);
  const o = MORPH_WEIGHTS.recordOf(state), held = o.morph[eid];
  if (!held) throw missing(eid, "MorphWeights");
  const count = held.weights.length;
  // Each weight is read once, into scratch, and written only when all are good: an
  // accessor cannot hand the check one value and the write another.
  if (scratch.length < count) scratch = new Float64Array(count);
  let valid = weights !== null && typeof weights === "object" && weights.length === count;
  for (let t = 0; valid && t < count; t++) {
    const w = weights[t];
    valid = typeof w === "number" && Math.abs(w) <= MAX_MORPH_WEIGHT;
    scratch[t] = w;
  }
  if (!valid) {
    // The error path reads again to name the weight.
    checkedWeights(eid, held.asset, weights);
    throw new ComponentError(eid, "MorphWeights", "weights changed while read", "weights");
  }
  const base = o.play[eid]!.base;
  for (let t = 0; t < count; t++) {
    const w = Math.fround(scratch[t]);
    base[t] = w;
    if (held.weights[t] !== w) o.morphDirty[eid] = 1, held.weights[t] = w;
  }
}

/** Scratch of setMorphWeights: the weights read, before they are written. */
let scratch = new Float64Array(16);

/**
 * Entity `eid`'s morph weights as its mesh shows them, a copy (into `out`
 * when given, which must hold them): the game's, and where a clip animates
 * a target, what the last sample clips system wrote.
 */
export function getMorphWeights(world: object, eid: number, out?: Float32Array): Float32Array {
  const state = stateOf(world, "getMorphWeights", eid);
  const held = MORPH_WEIGHTS.recordOf(state).morph[eid];
  if (!held) throw missing(eid, "MorphWeights");
  if (out === undefined) return held.weights.slice();
  if (!(out instanceof Float32Array) || out.length < held.weights.length) {
    throw new ComponentError(
      eid,
      "MorphWeights",
      `out: expected a Float32Array of at least ${held.weights.length}`,
    );
  }
  out.set(held.weights);
  return out;
}

/**
 * @internal Morphs the bind streams of the entities of `eids` whose
 * weights changed since their last morph; called by the skinning systems
 * before they skin.
 */
export function updateMorphs(state: WorldBase, eids: ArrayLike<number>): void {
  const o = MORPH_WEIGHTS.recordOf(state), dirty = o.morphDirty;
  for (let i = 0; i < eids.length; i++) {
    const eid = eids[i];
    if (dirty[eid] === 0) continue;
    applyMorphToStreams(o.morph[eid]!);
    dirty[eid] = 0;
  }
}

/**
 * @internal Per entity, its morph weights as its clips drive them
 * (undefined without MorphWeights), and whether its morphed streams are
 * stale (1 once its weights changed): what the sample clips system writes.
 */
export function morphRecord(
  state: WorldBase,
): { readonly play: readonly (MorphPlay | undefined)[]; readonly morphDirty: Uint8Array } {
  return MORPH_WEIGHTS.recordOf(state);
}

/**
 * @internal The byte offsets of entity `eid`'s morphed positions, normals
 * and tangents (0 for a stream not morphed), or undefined when it has no
 * MorphWeights.
 */
export function morphedStreams(state: WorldBase, eid: number): readonly number[] | undefined {
  return MORPH_WEIGHTS.recordOf(state).morph[eid]?.outputs;
}
