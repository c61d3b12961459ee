/**
 * The skinning systems. {@linkcode skinSystem} skins the positions of
 * entities whose Skin has no normal or tangent stream, from weighted base
 * vectors and the model-space matrices (paper 002, section 3).
 * {@linkcode skinWithTangentsSystem} skins the others through the collapsed
 * palette: positions, normals and tangents (section 4). Each makes one call
 * into the core for all of its entities.
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

function cap(caller: string, options: SkinSystemOptions): number {
  const n = options.maxInfluences ?? 255;
  if (!Number.isInteger(n) || n < 1) {
    throw new RangeError(`${caller}: maxInfluences: expected a whole number >= 1, got ${n}`);
  }
  return Math.min(n, 255);
}

/** Skins the positions of every entity whose Skin has positions only. */
export function skinSystem(world: object, options: SkinSystemOptions = {}): void {
  const state = stateOf(world, "skinSystem");
  const maxInfluences = cap("skinSystem", options);
  const table = state.jobs("skinPositions", (row) => {
    for (const [eid, skin] of state.skins) {
      if (skin.normals || skin.tangents) continue;
      const bases = skin.asset.bases;
      row(
        eid,
        state.matrices.get(eid)!,
        bases.byteOffset,
        bases.jointsOffset,
        bases.countsOffset,
        skin.positions,
        bases.vertexCount,
      );
    }
  });
  state.kernels.skinPositionsBatch(table.ptr, table.count, maxInfluences);
}

/** Skins positions, normals and tangents of every entity whose Skin has them. */
export function skinWithTangentsSystem(world: object, options: SkinSystemOptions = {}): void {
  const state = stateOf(world, "skinWithTangentsSystem");
  const maxInfluences = cap("skinWithTangentsSystem", options);
  const renormalize = options.renormalize ? SkinFlags.RENORMALIZE : 0;
  const table = state.jobs(`skinVertices${renormalize}`, (row) => {
    for (const [eid, skin] of state.skins) {
      if (!skin.normals && !skin.tangents) continue;
      const n = state.skeletons.get(eid)!.jointCount;
      const mesh = skin.asset.mesh, o = mesh.offsets;
      const flags = (skin.normals ? SkinFlags.NORMALS : 0) |
        (skin.tangents ? SkinFlags.TANGENTS : 0) | renormalize;
      row(
        eid,
        state.matrices.get(eid)! + n * MATRIX_FLOATS * 4,
        o.parts,
        mesh.partCount,
        o.joints,
        o.weights,
        o.positions,
        o.normals,
        o.tangents,
        skin.positions,
        skin.normals,
        skin.tangents,
        flags,
      );
    }
  });
  state.kernels.skinVerticesBatch(table.ptr, table.count, maxInfluences);
}
