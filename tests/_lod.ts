/**
 * Level-of-detail test scenes: Foxes in pairs, one animated at full rate,
 * its twin with a level of detail, both playing the same clips from the
 * same times (a speed whose steps do not add up exactly, a cross-fade, a
 * layer, root motion), and each entity's outputs copied after a frame.
 *
 * @module
 */

import { addEntity, createWorld } from "bitecs";
import {
  addCharacter,
  type AnimationComponents,
  type Clip,
  createAnimation,
  crossFadeTo,
  getModelMatrices,
  getPose,
  getSkinnedBounds,
  getSkinnedNormals,
  getSkinnedPositions,
  getSkinningPalette,
  playClip,
  type SkinAsset,
} from "../mod.ts";
import { enableRootMotion, getRootMotion } from "../clips.ts";
import { addLayer } from "../layers.ts";
import { createCharacterAssets, type GltfSkeleton, importGltf } from "../gltf/mod.ts";
import { Core, type CoreBuild } from "../kernels.ts";
import { findModel } from "./_assets.ts";

/** The Fox's first skinned skeleton, imported once per process. */
let fox: Promise<GltfSkeleton> | undefined;
export function foxDefinition(): Promise<GltfSkeleton> {
  return fox ??= importGltf(findModel("Fox.glb")!).then((model) =>
    model.skeletons.find((s) => s.primitives.length > 0)!
  );
}

/** A world of Fox pairs: `full[i]` at full rate, `lod[i]` its twin. */
export interface LodScene {
  readonly world: object;
  readonly components: AnimationComponents;
  readonly core: Core;
  readonly skin: SkinAsset;
  readonly clips: readonly Clip[];
  readonly full: number[];
  readonly lod: number[];
}

/**
 * `pairs` Fox pairs on a core of `build` (or `core`): pair `i` plays clip
 * `i % 3` from time `i * 0.11` at speed 1.37; pair 1 has a layer, pair 2
 * root motion; with `fadeAt`, pair 0 cross-fades at that frame
 * ({@linkcode stepScene}).
 */
export async function createLodScene(
  build: CoreBuild,
  pairs: number,
  core: Core = Core.create(build),
): Promise<LodScene> {
  const definition = await foxDefinition();
  const world = createWorld();
  const components = createAnimation(world, { core });
  const { skeleton, skin } = createCharacterAssets(definition, core);
  const clips = [1, 2, 0].map((i) => definition.clips[i]);
  const root = clips[0].channels.find((c) => c.path === "translation")!.joint;
  const full: number[] = [], lod: number[] = [];
  for (let i = 0; i < pairs; i++) {
    for (const list of [full, lod]) {
      const eid = addEntity(world);
      addCharacter(world, eid, skeleton, skin, { normals: skin.hasNormals });
      playClip(world, eid, clips[i % 3], { time: i * 0.11, speed: 1.37 });
      if (i % 3 === 1) addLayer(world, eid, clips[2], { weight: 0.4, mode: "additive" });
      if (i % 3 === 2) enableRootMotion(world, eid, { joint: root });
      list.push(eid);
    }
  }
  return { world, components, core, skin, clips, full, lod };
}

/** Before frame `frame` (from 0): pair 0's cross-fade at frame 5. */
export function stepScene(scene: LodScene, frame: number): void {
  if (frame !== 5) return;
  for (const eid of [scene.full[0], scene.lod[0]]) {
    crossFadeTo(scene.world, eid, scene.clips[1], 0.2);
  }
}

/** An entity's joint outputs and skinned outputs, copied. */
export interface Outputs {
  readonly joints: Float32Array;
  readonly skinned: Float32Array;
  readonly motion: readonly number[];
}

/** Entity `eid`'s outputs after a frame. */
export function outputsOf(world: object, eid: number): Outputs {
  const bounds = getSkinnedBounds(world, eid);
  const motion = getRootMotion(world, eid);
  return {
    joints: Float32Array.from([
      ...getPose(world, eid),
      ...getModelMatrices(world, eid),
      ...getSkinningPalette(world, eid),
    ]),
    skinned: Float32Array.from([
      ...getSkinnedPositions(world, eid),
      ...getSkinnedNormals(world, eid) ?? [],
      ...(bounds ? [...bounds.min, ...bounds.max] : []),
    ]),
    motion: [motion.dx, motion.dz, motion.dyaw],
  };
}

/** Whether `a` and `b` hold the same bits. */
export function sameBits(a: Float32Array, b: Float32Array): boolean {
  if (a.length !== b.length) return false;
  const x = new Uint32Array(a.buffer, a.byteOffset, a.length);
  const y = new Uint32Array(b.buffer, b.byteOffset, b.length);
  for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return false;
  return true;
}
