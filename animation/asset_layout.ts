/**
 * How asset data is laid out and bounded, for `gltf/`, which builds
 * skeleton and skin definitions but depends on `animation/` only: the
 * core's floats per matrix, pose group and vertex, the largest bind-mesh
 * coordinate, and the order skinned vertices come out in. The names are the
 * core's and the skin builder's own, re-exported so that the layer beside
 * `animation/` needs nothing from `simd/` nor from `animation/`'s private
 * files.
 *
 * @module
 */

export {
  MATRIX_FLOATS,
  POSE_GROUP_FLOATS,
  poseFloats,
  VERTEX_FLOATS,
} from "../simd/memory/layout.ts";
export { MAX_MESH_MAGNITUDE } from "../simd/memory/internal.ts";
export { outputVertexOrder } from "./_skin_prepare.ts";
