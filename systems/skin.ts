/**
 * The skinning systems, both through the collapsed palette
 * `C = sum w * palette[j]` per vertex (paper 002, section 4), in one call
 * into the core each. {@linkcode skinSystem} skins the positions of the
 * entities whose Skin has no normal or tangent stream;
 * {@linkcode skinWithTangentsSystem} skins positions, normals and tangents
 * of the others.
 *
 * Paper 002's other method, weighted base vectors with the model matrices
 * (section 3, the `skinPositions` kernel), saves the inverse-bind multiply
 * but measured slower here for positions at every influence count (1.31x at
 * one influence, 1.12x at two, 1.09x at four, 100,000 vertices, relaxed
 * SIMD), so the systems do not use it.
 *
 * @module
 */

import { stateOf } from "../components/_world.ts";
import { MATRIX_FLOATS, SkinFlags } from "../simd/layout.ts";

/** Options of the skinning systems. */
export interface SkinSystemOptions {
  /** Level of detail: use at most this many influences per vertex. */
  readonly maxInfluences?: number;
  /** Renormalize skinned normals and tangents (skinWithTangentsSystem). */
  readonly renormalize?: boolean;
}

/** Skins the positions of every entity whose Skin has positions only. */
export function skinSystem(world: object, options: SkinSystemOptions = {}): void {
  skinEntities(world, "skinSystem", options, false);
}

/** Skins positions, normals and tangents of every entity whose Skin has them. */
export function skinWithTangentsSystem(world: object, options: SkinSystemOptions = {}): void {
  skinEntities(world, "skinWithTangentsSystem", options, true);
}

function skinEntities(
  world: object,
  caller: string,
  options: SkinSystemOptions,
  directions: boolean,
): void {
  const state = stateOf(world, caller);
  const maxInfluences = options.maxInfluences ?? 255;
  if (!Number.isInteger(maxInfluences) || maxInfluences < 1) {
    throw new RangeError(
      `${caller}: maxInfluences: expected a whole number >= 1, got ${maxInfluences}`,
    );
  }
  const renormalize = directions && options.renormalize ? SkinFlags.RENORMALIZE : 0;
  const table = state.jobs(`${caller}${renormalize}`, (row) => {
    for (const [eid, skin] of state.skins) {
      if (!!(skin.normals || skin.tangents) !== directions) continue;
      const n = state.skeletons.get(eid)!.jointCount;
      const flags = (skin.normals ? SkinFlags.NORMALS : 0) |
        (skin.tangents ? SkinFlags.TANGENTS : 0) | renormalize;
      row(
        eid,
        state.matrices.get(eid)! + n * MATRIX_FLOATS * 4,
        ...skin.asset.mesh.kernelWords,
        skin.positions,
        skin.normals,
        skin.tangents,
        flags,
      );
    }
  });
  if (table.count) {
    state.kernels.skinVerticesBatch(table.ptr, table.count, Math.min(maxInfluences, 255));
  }
}
