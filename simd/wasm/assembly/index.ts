// Entry point of Marrow's WebAssembly core. Every export takes byte offsets
// into the core's own memory; the TypeScript wrappers validate them.
export { firstBeyond, firstBeyondBatch, firstNonFinite, jobBytes } from "./scan";
export { blendPoses, blendPosesBatch } from "./blend";
export { blendLayersBatch } from "./layers";
export { matToQuat, matToQuatBatch, quatToMat, quatToMatBatch } from "./pose";
export {
  localToModel,
  localToModelBatch,
  modelToLocal,
  modelToLocalBatch,
  multiplyMatrices,
  multiplyMatricesBatch,
} from "./skeleton";
export { multiplyMatricesCheckedBatch } from "./skeleton_checked";
export { skinPositions, skinPositionsBatch } from "./skin_positions";
export {
  skinDualQuaternions, skinDualQuaternionsBatch, skinVertices, skinVerticesBatch,
} from "./skin_vertices";
export { copyVertices } from "./copy";
export { copyBlocksBatch } from "./blocks";
export { solveIKBatch } from "./ik";
export { sampleCompact, sampleCompactBatch } from "./sample";
export { morphVertices } from "./morph";
