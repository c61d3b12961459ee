/**
 * glTF 2.0 import (`@marrow/anim/gltf`): {@linkcode importGltf} turns a
 * file into skeletons, skinned primitives and clips;
 * {@linkcode createCharacterAssets} makes an imported skeleton's runtime
 * assets, its clips prepared (built on worker threads with
 * {@linkcode createCharacterAssetsAsync}); {@linkcode reorderVertexAttribute} puts a primitive's other
 * attributes in the skinned output's vertex order.
 *
 * @module
 */

export {
  DEFAULT_GLTF_LIMITS,
  type GltfDrawAttributes,
  type GltfImage,
  type GltfImport,
  GltfImportError,
  type GltfImportErrorOptions,
  type GltfLimits,
  type GltfMaterial,
  type GltfSampler,
  type GltfSkeleton,
  type GltfSkin,
  type GltfSkinnedPrimitive,
  type GltfTexture,
  type GltfTextureRef,
  importGltf,
  type ImportGltfOptions,
  parseGltf,
  type ParseGltfOptions,
  type UriResolver,
} from "./import.ts";
export { reorderVertexAttribute } from "./draw.ts";
export {
  type CharacterAssets,
  type CharacterAssetsAsyncOptions,
  createCharacterAssets,
  createCharacterAssetsAsync,
} from "./character.ts";
