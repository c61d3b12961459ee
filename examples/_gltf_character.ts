/**
 * A glTF character for the demo: the file's first skin, all of its skinned
 * primitives merged into one skin, and a clip played on every instance.
 *
 * @module
 */

import type { SkinDefinition } from "../animation/definitions.ts";
import { playClip } from "../mod.ts";
import { type Clip, importGltf } from "../gltf/mod.ts";
import type { DemoCharacter } from "./demo.ts";

/** Concatenates skins of the same skeleton into one (vertex order kept). */
export function mergeSkins(skins: readonly SkinDefinition[]): SkinDefinition {
  const total = (pick: (s: SkinDefinition) => number) => skins.reduce((n, s) => n + pick(s), 0);
  const vertexCount = total((s) => s.vertexCount);
  const influenceCount = total((s) => s.joints.length);
  const concat = <T extends Float32Array | Uint16Array | Uint8Array>(
    make: (n: number) => T,
    pick: (s: SkinDefinition) => T | undefined,
    length: number,
  ): T | undefined => {
    if (skins.some((s) => !pick(s))) return undefined;
    const out = make(length);
    let at = 0;
    for (const s of skins) out.set(pick(s)!, at), at += pick(s)!.length;
    return out;
  };
  const f32 = (n: number) => new Float32Array(n);
  return {
    vertexCount,
    positions: concat(f32, (s) => s.positions, vertexCount * 4)!,
    normals: concat(f32, (s) => s.normals, vertexCount * 4),
    tangents: concat(f32, (s) => s.tangents, vertexCount * 4),
    influenceCounts: concat((n) => new Uint8Array(n), (s) => s.influenceCounts, vertexCount)!,
    joints: concat((n) => new Uint16Array(n), (s) => s.joints, influenceCount)!,
    weights: concat(f32, (s) => s.weights, influenceCount)!,
  };
}

/** Loads `path` and plays clip `clipName` (default: the first) on loop. */
export async function loadCharacter(path: string, clipName?: string): Promise<DemoCharacter> {
  const file = await importGltf(path);
  const gltfSkeleton = file.skeletons.find((s) => s.primitives.length > 0);
  if (!gltfSkeleton) throw new Error(`${path}: the file has no skinned mesh`);
  const unique = [...new Set(gltfSkeleton.primitives.map((p) => p.skin))];
  let clip: Clip | undefined;
  if (clipName !== undefined) {
    clip = gltfSkeleton.clips.find((c) => c.name === clipName);
    if (!clip) {
      const names = gltfSkeleton.clips.map((c) => JSON.stringify(c.name)).join(", ") || "none";
      throw new Error(`${path}: no clip named "${clipName}" (clips: ${names})`);
    }
  } else {
    clip = gltfSkeleton.clips.find((c) => c.channels.length > 0);
  }
  return {
    name: `${path}${
      clip ? `, clip "${clip.name}" (${clip.duration.toFixed(2)} s)` : " (no clip: rest pose)"
    }`,
    skeleton: gltfSkeleton.skeleton,
    skin: mergeSkins(unique),
    primitives: unique.length,
    fps: 60,
    setup: (world, entities) => {
      // Instances play out of step, as a crowd would.
      if (clip) entities.forEach((eid, i) => playClip(world, eid, clip, { time: i * 0.1 }));
    },
  };
}
