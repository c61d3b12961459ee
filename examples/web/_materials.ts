/// <reference lib="dom" />
/**
 * The web demo's materials: each mesh's glTF material (`GltfMaterial`,
 * plain data from Marrow's importer) made a three.js material, its textures
 * loaded by the browser under its own rules (Marrow never reads images): an
 * image's bytes or `data:` URI decoded with `createImageBitmap`, a relative
 * URI fetched from the model's folder on the same server. A mesh without a
 * material keeps the demo's plain one.
 *
 * @module
 */

import * as THREE from "three";
import type { GltfImage, GltfMaterial, GltfTextureRef } from "../../gltf/mod.ts";
import type { DemoCharacter } from "../crowd.ts";
import type { SkinAsset } from "../../mod.ts";

/** The demo's material for meshes without one. */
export function plainMaterial(flatShading: boolean): THREE.MeshStandardMaterial {
  return new THREE.MeshStandardMaterial({
    color: 0xd8a878,
    roughness: 0.6,
    side: THREE.DoubleSide,
    flatShading,
  });
}

const WRAPS: Record<number, THREE.Wrapping> = {
  33071: THREE.ClampToEdgeWrapping,
  33648: THREE.MirroredRepeatWrapping,
  10497: THREE.RepeatWrapping,
};

/** The pixels of `image`, or undefined when it was refused or cannot be fetched. */
async function bitmapOf(
  image: GltfImage,
  model: URL | undefined,
): Promise<ImageBitmap | undefined> {
  let blob: Blob | undefined;
  if (image.bytes) {
    blob = new Blob([image.bytes as Uint8Array<ArrayBuffer>], { type: image.mimeType ?? "" });
  } else if (image.uri?.startsWith("data:")) {
    blob = await (await fetch(image.uri)).blob();
  } else if (image.uri && model) {
    const response = await fetch(new URL(image.uri, model));
    if (response.ok) blob = await response.blob();
  }
  if (!blob) return undefined;
  // As GLTFLoader decodes: glTF's uv origin is the top left, so no flip.
  return await createImageBitmap(blob, { imageOrientation: "none", premultiplyAlpha: "none" });
}

/**
 * The texture `ref` names, loading in the background (the material shows
 * its colour until then); undefined when the file gives no image.
 */
function texture(
  character: DemoCharacter,
  ref: GltfTextureRef | undefined,
  colour: boolean,
  model: URL | undefined,
  loaded: () => void,
): THREE.Texture | undefined {
  const appearance = character.appearance;
  const gltfTexture = ref && appearance?.textures[ref.texture];
  if (!appearance || !gltfTexture || gltfTexture.image < 0) return undefined;
  const image = appearance.images[gltfTexture.image];
  if (image.refused) return undefined;
  const map = new THREE.Texture();
  map.flipY = false;
  if (colour) map.colorSpace = THREE.SRGBColorSpace;
  const sampler = gltfTexture.sampler >= 0 ? appearance.samplers[gltfTexture.sampler] : undefined;
  map.wrapS = WRAPS[sampler?.wrapS ?? 10497];
  map.wrapT = WRAPS[sampler?.wrapT ?? 10497];
  bitmapOf(image, model).then((bitmap) => {
    if (!bitmap) return;
    map.image = bitmap;
    map.needsUpdate = true;
    loaded();
  }).catch(() => {/* an undecodable image leaves the material's colour */});
  return map;
}

/** A three.js material for `material` of `character`, textures loading from `model`'s folder. */
export function threeMaterial(
  character: DemoCharacter,
  material: GltfMaterial,
  model: URL | undefined,
  flatShading: boolean,
): THREE.MeshStandardMaterial {
  const [r, g, b, a] = material.baseColorFactor;
  const out = new THREE.MeshStandardMaterial({
    name: material.name,
    color: new THREE.Color().setRGB(r, g, b, THREE.LinearSRGBColorSpace),
    opacity: a,
    transparent: material.alphaMode === "BLEND",
    alphaTest: material.alphaMode === "MASK" ? material.alphaCutoff : 0,
    metalness: material.metallicFactor,
    roughness: material.roughnessFactor,
    emissive: new THREE.Color().setRGB(...(material.emissiveFactor as [number, number, number])),
    side: material.doubleSided ? THREE.DoubleSide : THREE.FrontSide,
    flatShading,
  });
  const loaded = () => (out.needsUpdate = true);
  out.map = texture(character, material.baseColorTexture, true, model, loaded) ?? null;
  out.emissiveMap = texture(character, material.emissiveTexture, true, model, loaded) ?? null;
  return out;
}

/**
 * The meshes' uvs as one attribute over the skin's whole output (each
 * mesh's block at its first output vertex), or undefined when no mesh
 * has uvs.
 */
export function uvAttribute(
  character: DemoCharacter,
  skin: SkinAsset,
): THREE.BufferAttribute | undefined {
  if (!character.meshes.some((mesh) => mesh.uvs)) return undefined;
  const uvs = new Float32Array(skin.vertexCount * 2);
  character.meshes.forEach((mesh, m) => {
    if (mesh.uvs) uvs.set(mesh.uvs, skin.meshes[m].firstVertex * 2);
  });
  return new THREE.BufferAttribute(uvs, 2);
}
