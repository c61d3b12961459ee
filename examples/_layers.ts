/**
 * The demo's layered mode (`--layers`): every instance of a glTF character
 * plays its base clip, a second clip on the upper body (a mask from the
 * spine's subtree, faded in over two joints) at weight 0.7, a third clip as
 * an additive layer at weight 0.5, and has root motion taken out of its
 * pose. Needs a file with three clips.
 *
 * @module
 */

import type { SkeletonAsset } from "../mod.ts";
import type { GltfImport } from "../gltf/mod.ts";
import { addLayer, jointMask } from "../layers.ts";
import { enableRootMotion } from "../clips.ts";
import { clipLabel, type DemoCharacter } from "./crowd.ts";
import { skinnedSkeleton } from "./gltf_character.ts";

/** `character` (of `model`) with the layers described in the module doc added to each instance. */
export function layeredCharacter(model: GltfImport, character: DemoCharacter): DemoCharacter {
  const skeleton = skinnedSkeleton(model);
  const clips = skeleton.clips.filter((c) => c.channels.length > 0 && c !== character.clip);
  if (!character.clip || clips.length < 2) {
    throw new Error(`${model.name}: --layers needs a file with at least 3 clips`);
  }
  const [upper, additive] = clips;
  const names = skeleton.skeleton.names;
  const spine = Math.max(1, names.findIndex((name) => /spine/i.test(name)));
  // The joint the base clip translates first: the hips of a biped.
  const root = character.clip.channels.find((c) => c.path === "translation")?.joint ?? 0;
  return {
    ...character,
    name: `${character.name}; layers: "${clipLabel(upper)}" on the subtree of "${
      names[spine]
    }" (0.7), "${clipLabel(additive)}" additive (0.5); root motion from "${names[root]}"`,
    setup(world: object, eid: number, asset: SkeletonAsset): void {
      const mask = jointMask(asset, { subtree: spine, falloff: 2 });
      addLayer(world, eid, upper, { weight: 0.7, mask });
      addLayer(world, eid, additive, { weight: 0.5, mode: "additive" });
      enableRootMotion(world, eid, { joint: root });
    },
  };
}
