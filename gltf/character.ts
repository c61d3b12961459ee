/**
 * The runtime assets of an imported character: its skeleton, and all its
 * distinct skinned meshes in one {@linkcode SkinAsset}, so that one entity
 * animates the skeleton once and skins every mesh in one pass.
 *
 * @module
 */

import { SkeletonAsset } from "../animation/skeleton_asset.ts";
import { SkinAsset } from "../animation/skin_asset.ts";
import { prepareClips } from "../animation/prepare_clip.ts";
import type { GltfSkeleton, GltfSkinnedPrimitive } from "./types.ts";

/** What {@linkcode createCharacterAssets} returns. */
export interface CharacterAssets {
  /** The character's skeleton. */
  readonly skeleton: SkeletonAsset;
  /** Every distinct skinned mesh of the skeleton, mesh `m` being `primitives[m]`'s. */
  readonly skin: SkinAsset;
  /**
   * The primitive of each mesh of `skin`, in mesh order: draw mesh `m` with
   * `skin.remapIndices(primitives[m].indices, m)` or with
   * `primitives[m].draw.indices` offset by `skin.meshes[m]`'s first vertex.
   * A mesh instanced by several nodes appears once.
   */
  readonly primitives: readonly GltfSkinnedPrimitive[];
}

/**
 * Builds the assets of one imported skeleton that has skinned primitives
 * (`core` as for {@linkcode SkeletonAsset}); dispose both when done. It
 * also prepares every clip of the skeleton (`prepareClips`: their compact
 * forms, in the core's memory), so that `playClip` builds nothing in a
 * frame; it throws, disposing what it made, when one of them is over its
 * budget (`ClipBudgetError`, `ClipWorkError`).
 *
 * @example
 * ```ts ignore
 * const model = await importGltf("character.glb");
 * const { skeleton, skin } = createCharacterAssets(model.skeletons[0]);
 * addCharacter(world, addEntity(world), skeleton, skin);
 * ```
 */
export function createCharacterAssets(
  gltfSkeleton: GltfSkeleton,
  core?: ConstructorParameters<typeof SkeletonAsset>[1],
): CharacterAssets {
  const primitives = [...new Map(gltfSkeleton.primitives.map((p) => [p.skin, p])).values()];
  if (primitives.length === 0) {
    throw new RangeError(
      `createCharacterAssets: skin ${gltfSkeleton.skin} ("${gltfSkeleton.name}") has no skinned primitive`,
    );
  }
  const skeleton = new SkeletonAsset(gltfSkeleton.skeleton, core);
  let skin: SkinAsset | undefined;
  try {
    skin = new SkinAsset(skeleton, primitives.map((p) => p.skin));
    prepareClips(skeleton, gltfSkeleton.clips);
    return { skeleton, skin, primitives };
  } catch (error) {
    skin?.dispose();
    skeleton.dispose();
    throw error;
  }
}
