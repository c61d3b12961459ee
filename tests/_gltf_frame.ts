/**
 * Test helpers: an imported model through one frame of the ECS pipeline
 * (assets, a character entity per skinned primitive, the first clip of each
 * skeleton played), and small glTF documents built in memory.
 */

import { addEntity, createWorld } from "bitecs";
import {
  addCharacter,
  createAnimation,
  createAnimationPipeline,
  disposeAnimation,
  playClip,
  SkeletonAsset,
  SkinAsset,
} from "../mod.ts";
import type { GltfImport, GltfSkinnedPrimitive } from "../gltf/mod.ts";
import type { Core } from "../kernels.ts";

/** One character entity of a framed model. */
export interface FramedPrimitive {
  readonly eid: number;
  readonly primitive: GltfSkinnedPrimitive;
  readonly skin: SkinAsset;
}

/**
 * Runs `model` through one frame of `deltaSeconds` on `core` and calls
 * `inspect` with the world and its entities before everything is disposed.
 */
export function frameModel(
  model: GltfImport,
  core: Core,
  deltaSeconds = 1 / 30,
  inspect?: (world: object, entities: readonly FramedPrimitive[]) => void,
): void {
  const world = createWorld();
  createAnimation(world, { core });
  const assets: { dispose(): void }[] = [];
  try {
    const entities: FramedPrimitive[] = [];
    for (const s of model.skeletons) {
      const skeleton = new SkeletonAsset(s.skeleton, core);
      assets.push(skeleton);
      const skins = new Map<object, SkinAsset>();
      for (const primitive of s.primitives) {
        let skin = skins.get(primitive.skin);
        if (!skin) {
          skins.set(primitive.skin, skin = new SkinAsset(skeleton, primitive.skin));
          assets.push(skin);
        }
        const eid = addEntity(world);
        addCharacter(world, eid, skeleton, skin);
        if (s.clips.length) playClip(world, eid, s.clips[0]);
        entities.push({ eid, primitive, skin });
      }
    }
    createAnimationPipeline()(world, deltaSeconds);
    inspect?.(world, entities);
  } finally {
    disposeAnimation(world);
    for (const asset of assets.reverse()) asset.dispose();
  }
}

/** A GLB of `json` with `bin` as its binary chunk. */
export function glb(json: unknown, bin?: Uint8Array): Uint8Array {
  const pad = (bytes: Uint8Array, fill: number) => {
    const out = new Uint8Array(Math.ceil(bytes.length / 4) * 4).fill(fill);
    out.set(bytes);
    return out;
  };
  const text = pad(new TextEncoder().encode(JSON.stringify(json)), 0x20);
  const data = bin ? pad(bin, 0) : undefined;
  const length = 12 + 8 + text.length + (data ? 8 + data.length : 0);
  const out = new Uint8Array(length);
  const view = new DataView(out.buffer);
  view.setUint32(0, 0x46546c67, true);
  view.setUint32(4, 2, true);
  view.setUint32(8, length, true);
  view.setUint32(12, text.length, true);
  view.setUint32(16, 0x4e4f534a, true);
  out.set(text, 20);
  if (data) {
    view.setUint32(20 + text.length, data.length, true);
    view.setUint32(24 + text.length, 0x004e4942, true);
    out.set(data, 28 + text.length);
  }
  return out;
}

const FIXTURE = new URL("./fixtures/confinement/model/", import.meta.url);

/**
 * The one-triangle skinned model of the confinement fixtures, as JSON (with
 * its buffer as the GLB chunk) and its binary data.
 */
// deno-lint-ignore no-explicit-any
export function triangle(): { json: Record<string, any>; bin: Uint8Array } {
  const json = JSON.parse(Deno.readTextFileSync(new URL("good.gltf", FIXTURE)));
  delete json.buffers[0].uri;
  return { json, bin: Deno.readFileSync(new URL("data/mesh.bin", FIXTURE)) };
}
