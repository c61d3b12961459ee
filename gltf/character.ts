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
import { type ClipWorkers, prepareClipsOnWorkers } from "../animation/clip_workers.ts";
import type { GltfSkeleton, GltfSkinnedPrimitive } from "./types.ts";
import { describeValue } from "../animation/internal.ts";

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
  const assets = createUnprepared("createCharacterAssets", gltfSkeleton, core);
  try {
    prepareClips(assets.skeleton, gltfSkeleton.clips);
    return assets;
  } catch (error) {
    disposeAssets(assets);
    throw error;
  }
}

/** Options of {@linkcode createCharacterAssetsAsync}. */
export interface CharacterAssetsAsyncOptions {
  /** The core to create the assets in (as for `SkeletonAsset`); default the shared core. */
  readonly core?: ConstructorParameters<typeof SkeletonAsset>[1];
  /**
   * The workers that build the clips (`createClipWorkers`); default
   * workers started for this call and stopped when it ends. Give one set
   * to every character of a load to start them once.
   */
  readonly clipWorkers?: ClipWorkers;
  /** Aborts the creation: it rejects with the signal's reason and disposes what it made. */
  readonly signal?: AbortSignal;
}

/**
 * {@linkcode createCharacterAssets} with the clips built off the calling
 * thread, on worker threads (`prepareClipsOnWorkers`): the calling thread
 * stays free while they build (a character loaded mid-session does not
 * stall the game's frames), and the assets it resolves with play every
 * clip without a build, bit for bit as the synchronous call's. Where
 * workers are not available (Node, see `ClipWorkers.fallbackReason`) the
 * clips are built on the calling thread. Rejects, disposing what it made,
 * with a `ClipPreparationError` when a clip's build or a worker fails; the
 * skeleton and skin are created on the calling thread, and throw as in
 * {@linkcode createCharacterAssets}.
 *
 * @example
 * ```ts ignore
 * using clipWorkers = createClipWorkers();
 * const model = await importGltf("character.glb");
 * const { skeleton, skin } = await createCharacterAssetsAsync(model.skeletons[0], { clipWorkers });
 * addCharacter(world, addEntity(world), skeleton, skin);
 * ```
 */
export async function createCharacterAssetsAsync(
  gltfSkeleton: GltfSkeleton,
  options: CharacterAssetsAsyncOptions = {},
): Promise<CharacterAssets> {
  if (!options || typeof options !== "object") {
    throw new TypeError(
      `createCharacterAssetsAsync: options: expected an object, got ${describeValue(options)}`,
    );
  }
  const { signal } = options;
  if (signal !== undefined && !(signal instanceof AbortSignal)) {
    throw new TypeError(
      `createCharacterAssetsAsync: options.signal: expected an AbortSignal, got ${
        describeValue(signal)
      }`,
    );
  }
  signal?.throwIfAborted();
  const assets = createUnprepared("createCharacterAssetsAsync", gltfSkeleton, options.core);
  try {
    await prepareClipsOnWorkers(assets.skeleton, gltfSkeleton.clips, {
      clipWorkers: options.clipWorkers,
      signal,
    });
    return assets;
  } catch (error) {
    disposeAssets(assets);
    throw error;
  }
}

/** The skeleton and skin of `gltfSkeleton`, clips not prepared. */
function createUnprepared(
  caller: string,
  gltfSkeleton: GltfSkeleton,
  core: ConstructorParameters<typeof SkeletonAsset>[1] | undefined,
): CharacterAssets {
  if (
    !gltfSkeleton || typeof gltfSkeleton !== "object" || !Array.isArray(gltfSkeleton.primitives)
  ) {
    throw new TypeError(
      `${caller}: gltfSkeleton: expected one of importGltf's model.skeletons, got ${
        describeValue(gltfSkeleton)
      }`,
    );
  }
  const primitives = [...new Map(gltfSkeleton.primitives.map((p) => [p.skin, p])).values()];
  if (primitives.length === 0) {
    throw new RangeError(
      `${caller}: skin ${gltfSkeleton.skin} ("${gltfSkeleton.name}") has no skinned primitive`,
    );
  }
  const skeleton = new SkeletonAsset(gltfSkeleton.skeleton, core);
  try {
    return { skeleton, skin: new SkinAsset(skeleton, primitives.map((p) => p.skin)), primitives };
  } catch (error) {
    skeleton.dispose();
    throw error;
  }
}

function disposeAssets({ skeleton, skin }: CharacterAssets): void {
  skin.dispose();
  skeleton.dispose();
}
