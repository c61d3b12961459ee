/**
 * Scenes for the worker pool's tests and benches: the README scene (cylinder
 * characters posed by `wavePose`) and a crowd of Foxes playing and
 * cross-fading clips, each on a given core.
 *
 * @module
 */

import { addEntity, createWorld } from "bitecs";
import {
  addCharacter,
  createAnimation,
  crossFadeTo,
  getPose,
  getSkinnedBounds,
  getSkinnedNormals,
  getSkinnedPositions,
  playClip,
} from "../mod.ts";
import { createCharacterAssets, importGltf } from "../gltf/mod.ts";
import type { Core } from "../kernels.ts";
import { type CylinderOptions, wavePose } from "../procedural/cylinder.ts";
import { createScene } from "./_scene.ts";
import { assetUrl } from "./_three_gltf.ts";

/** A world on a pool's core and its entities. */
export interface WorkerScene {
  readonly world: object;
  readonly entities: readonly number[];
}

/** `count` cylinder characters of `shape` with normals and tangents, each in its own wave pose. */
export function waveScene(core: Core, count: number, shape: CylinderOptions): WorkerScene {
  const scene = createScene(core.build, count, shape, {}, core);
  scene.entities.forEach((eid, i) => wavePose(getPose(scene.world, eid), shape.joints!, 0.5, i));
  return scene;
}

/**
 * `count` Foxes (or characters of fixture `file`) playing its clips out of
 * step; every third entity is cross-fading to the next clip over a second.
 */
export async function foxCrowd(core: Core, count: number, file = "Fox.glb"): Promise<WorkerScene> {
  const model = await importGltf(assetUrl(file));
  const world = createWorld();
  createAnimation(world, { core });
  const fox = model.skeletons.find((s) => s.primitives.length > 0)!;
  const { skeleton, skin } = createCharacterAssets(fox, core);
  const clips = fox.clips;
  const entities: number[] = [];
  for (let i = 0; i < count; i++) {
    const eid = addEntity(world);
    addCharacter(world, eid, skeleton, skin, { normals: skin.hasNormals, tangents: false });
    playClip(world, eid, clips[i % clips.length], { time: i * 0.1 });
    if (i % 3 === 0 && clips.length > 1) crossFadeTo(world, eid, clips[(i + 1) % clips.length], 1);
    entities.push(eid);
  }
  return { world, entities };
}

/** Copies of every entity's skinned output: positions, normals, bounds. */
export function skinnedOutput(scene: WorkerScene): Float32Array[] {
  return scene.entities.flatMap((eid) => {
    const normals = getSkinnedNormals(scene.world, eid);
    const bounds = getSkinnedBounds(scene.world, eid)!;
    return [
      getSkinnedPositions(scene.world, eid).slice(),
      ...(normals ? [normals.slice()] : []),
      Float32Array.from([...bounds.min, ...bounds.max]),
    ];
  });
}
