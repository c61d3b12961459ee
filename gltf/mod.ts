/**
 * glTF 2.0 import and clip sampling: {@linkcode importGltf} turns a file
 * into skeletons, skinned primitives and clips; {@linkcode sampleClip}
 * poses a skeleton from a clip.
 *
 * @module
 */

export {
  type GltfImport,
  GltfImportError,
  type GltfSkeleton,
  type GltfSkinnedPrimitive,
  importGltf,
  type ImportGltfOptions,
  parseGltf,
  type ParseGltfOptions,
  type UriResolver,
} from "./import.ts";
export {
  type ChannelPath,
  type Clip,
  type ClipChannel,
  type Interpolation,
  sampleChannel,
  sampleClip,
  type WrapMode,
  wrapTime,
} from "../animation/clip.ts";
export type { SkeletonDefinition, SkinDefinition } from "../animation/definitions.ts";
