/**
 * glTF 2.0 import and clip sampling: {@linkcode importGltf} turns a file
 * into skeletons, skinned primitives and clips; {@linkcode sampleClip}
 * poses a skeleton from a clip; {@linkcode createClip} and
 * {@linkcode validateClip} check clips made in code;
 * {@linkcode createCharacterAssets} makes an imported skeleton's runtime
 * assets.
 *
 * @module
 */

export {
  DEFAULT_GLTF_LIMITS,
  type GltfDrawAttributes,
  type GltfImport,
  GltfImportError,
  type GltfImportErrorOptions,
  type GltfLimits,
  type GltfSkeleton,
  type GltfSkin,
  type GltfSkinnedPrimitive,
  importGltf,
  type ImportGltfOptions,
  parseGltf,
  type ParseGltfOptions,
  type UriResolver,
} from "./import.ts";
export { reorderVertexAttribute } from "./draw.ts";
export { type CharacterAssets, createCharacterAssets } from "./character.ts";
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
export {
  ClipError,
  type ClipInit,
  createClip,
  validateClip,
} from "../animation/clip_validation.ts";
export type { SkeletonDefinition, SkinDefinition } from "../animation/definitions.ts";
