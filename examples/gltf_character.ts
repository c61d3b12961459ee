/**
 * A glTF character for the demos: the file's first skinned skeleton, each
 * distinct skinned primitive a mesh, and a clip played on every instance.
 * Works on an import from {@linkcode importGltf} or `parseGltf`, so the web
 * page uses it too.
 *
 * @module
 */

import type { Clip } from "../mod.ts";
import type { GltfImport, GltfSkeleton } from "../gltf/mod.ts";
import { clipLabel, type DemoCharacter, type DemoMesh } from "./crowd.ts";

/** The first skeleton of `model` with skinned primitives; throws when there is none. */
export function skinnedSkeleton(model: GltfImport): GltfSkeleton {
  const skeleton = model.skeletons.find((s) => s.primitives.length > 0);
  if (!skeleton) throw new Error(`${model.name}: the file has no skinned mesh`);
  return skeleton;
}

/**
 * The character of `model`, playing clip `clipName` (matched against
 * {@linkcode clipLabel}) or by default its first clip that animates
 * something; throws naming the clips when there is no such clip.
 */
export function gltfCharacter(model: GltfImport, clipName?: string): DemoCharacter {
  const skeleton = skinnedSkeleton(model);
  let clip: Clip | undefined;
  if (clipName !== undefined) {
    clip = skeleton.clips.find((c) => clipLabel(c) === clipName);
    if (!clip) {
      const names = skeleton.clips.map((c) => JSON.stringify(clipLabel(c))).join(", ") || "none";
      throw new Error(`${model.name}: no clip named "${clipName}" (clips: ${names})`);
    }
  } else {
    clip = skeleton.clips.find((c) => c.channels.length > 0);
  }
  // The demo makes faces itself (`Crowd` sets the morph weights); a clip that keys them
  // (RobotExpressive's, at 0 throughout) would hold the face still.
  if (clip?.morphChannels) clip = { ...clip, morphChannels: undefined };
  // A mesh instanced twice with the same skin is skinned (and drawn) once.
  const meshes = new Map<object, DemoMesh>();
  for (const p of skeleton.primitives) {
    if (meshes.has(p.skin)) continue;
    meshes.set(p.skin, {
      skin: p.skin,
      indices: p.indices,
      mode: p.mode,
      uvs: p.draw.uvs,
      material: p.material >= 0 ? model.materials[p.material] : undefined,
    });
  }
  return {
    name: `${model.name}${
      clip ? `, clip "${clipLabel(clip)}" (${clip.duration.toFixed(2)} s)` : " (no clip: rest pose)"
    }`,
    skeleton: skeleton.skeleton,
    meshes: [...meshes.values()],
    clip,
    appearance: model,
  };
}
