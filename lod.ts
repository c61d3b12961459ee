/**
 * Level of detail per entity: how much of the frame each entity gets. An
 * update rate ({@linkcode setLevelOfDetail}: animated every Nth frame,
 * staggered, bit for bit as at full rate on those frames), culling (not
 * skinned, animating or paused) and an influence cap, set per entity or
 * from distance bands ({@linkcode setLevelOfDetailByDistance}); the
 * systems of the main entry honour them.
 *
 * @example
 * ```ts ignore
 * import { setLevelOfDetailByDistance } from "@marrow/anim/lod";
 *
 * setLevelOfDetailByDistance(world, crowd, camera, [
 *   { maxDistance: 20 },
 *   { maxDistance: 60, updateRate: 2, maxInfluences: 2 },
 * ]); // each frame before animate(world, dt); beyond 60: culled
 * ```
 * @module
 */

export {
  type DistanceBand,
  type LevelOfDetailComponent,
  type LevelOfDetailSettings,
  removeLevelOfDetail,
  setLevelOfDetail,
  setLevelOfDetailByDistance,
} from "./components/level_of_detail.ts";
