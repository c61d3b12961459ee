/**
 * What `crowd_bench.ts` uses of a checkout, by relative paths: the bench
 * loads this file from another checkout too (`CROWD_BEFORE`), so that both
 * checkouts' rows run in the same process.
 *
 * @module
 */

export {
  addCharacter,
  createAnimation,
  createAnimationPipeline,
  crossFadeTo,
  playClip,
  SkeletonAsset,
  SkinAsset,
} from "../mod.ts";
export { Core } from "../kernels.ts";
export { createCylinder, waveClip } from "../procedural/cylinder.ts";
export { stateOf } from "../components/_lifecycle.ts";
export { prepareSkinning, runSkinCall } from "../systems/skin.ts";
