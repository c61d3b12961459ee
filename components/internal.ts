/**
 * What other folders may use of `components/` besides its public modules: the
 * private files' names other layers need, in one place, so that a `_` file stays
 * private to its folder (`deno task rules`, rule `private-import`).
 *
 * @internal
 * @module
 */

export { checkEntities, selectEntities } from "./_access.ts";
export { type FaultLog, Quarantine } from "./_faults.ts";
export { type JobTable } from "./_job_table.ts";
export { type Layer, type LayerStack, MAX_LAYERS, updateMask } from "./_layers.ts";
export { stateOf } from "./_lifecycle.ts";
export { type Playback } from "./_playback.ts";
export { type PlayerState, retirePlayback } from "./_playbacks.ts";
export { type Owned, type WorldState } from "./registry.ts";
export {
  anyMorphed,
  IK_ENTITIES,
  LOD_ENTITIES,
  MATRIX_ENTITIES,
  PLAYING_ENTITIES,
  POSED_ENTITIES,
  SKELETON_ENTITIES,
  SKINNED_ENTITIES,
} from "./_selections.ts";
export { boundsFloats } from "./_skin_bounds.ts";
export { SkinRowWriter } from "./_skin_rows.ts";
export { morphedStreams, morphRecord, updateMorphs } from "./morph_weights.ts";
export { type MorphBinding, type MorphPlay } from "./_morph_play.ts";
