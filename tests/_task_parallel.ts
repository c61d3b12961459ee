/**
 * The task-parallel tests' scenes and runs (`workers_task_parallel*_test.ts`):
 * a pipeline run task-parallel and plain on the same scene, and the check
 * that the task-parallel outputs are the plain ones one call behind.
 */

import {
  addSkin,
  createAnimationPipeline,
  getPose,
  getSkinningPalette,
  removeSkin,
  SkinAsset,
} from "../mod.ts";
import type { Core, WorkerPool } from "../kernels.ts";
import { foxCrowd, skinnedOutput, waveScene, type WorkerScene } from "./_workers.ts";
import { assertSameBits, bits } from "./_bits.ts";
import { bestBuild } from "../simd/wasm/_core.ts";
import { createScene } from "./_scene.ts";
import { createCylinder } from "../procedural/cylinder.ts";

export const BUILD = bestBuild();
export const SHAPE = { joints: 16, segments: 8, rings: 12, influences: 4 } as const;
export const DT = 1 / 60;
export const FRAMES = 4;

/** Poses and palettes of every entity. */
export const joints = (scene: WorkerScene) =>
  bits(scene.entities.flatMap((eid) => [
    getPose(scene.world, eid).slice(),
    getSkinningPalette(scene.world, eid).slice(),
  ]));

/** Moves the wave scene's characters differently every frame (the Fox crowd moves by its clips). */
export function moveWaves(scene: WorkerScene, frame: number): void {
  scene.entities.forEach((eid, i) => {
    const pose = getPose(scene.world, eid);
    pose[4 + (i % 8)] = Math.sin(frame + i) * 0.5; // a quaternion component of the first joints
  });
}

export interface Run {
  readonly outputs: Uint32Array[][];
  readonly joints: Uint32Array[][];
}

/** `FRAMES` calls of `make`'s scene; each call's skinned outputs and joints after it. */
export async function run(
  make: (core: Core) => WorkerScene | Promise<WorkerScene>,
  move: ((scene: WorkerScene, frame: number) => void) | undefined,
  core: Core,
  options: { pool?: WorkerPool; taskParallel?: boolean; awaiting?: boolean } = {},
): Promise<Run> {
  const scene = await make(core);
  const animate = createAnimationPipeline(options);
  const result: Run = { outputs: [], joints: [] };
  for (let f = 0; f < FRAMES; f++) {
    move?.(scene, f);
    if (options.awaiting) await animate.async(scene.world, DT);
    else animate(scene.world, DT);
    result.outputs.push(bits(skinnedOutput(scene)));
    result.joints.push(joints(scene));
  }
  return result;
}

/** Checks the one-frame latency contract of `task` against the single-threaded `plain`. */
export function assertOneFrameBehind(task: Run, plain: Run, what: string): void {
  for (let k = 0; k < FRAMES; k++) {
    assertSameBits(task.joints[k], plain.joints[k], `${what}: call ${k}: joints`);
    const skinned = plain.outputs[Math.max(0, k - 1)];
    assertSameBits(task.outputs[k], skinned, `${what}: call ${k}: skinned outputs`);
  }
}

/**
 * The wave scene with levels of detail (1, 2 and 4 influences) and a
 * third of the characters skinned with dual quaternions: several skinning
 * batch calls a frame, dual-quaternion snapshots.
 */
export function mixedScene(core: Core): WorkerScene {
  const scene = createScene(core.build, 30, SHAPE, { normals: true }, core);
  const dual = new SkinAsset(scene.skeleton, createCylinder(SHAPE).skin, {
    method: "dual-quaternion",
  });
  scene.entities.forEach((eid, i) => {
    if (i % 3 === 0) {
      removeSkin(scene.world, eid);
      addSkin(scene.world, eid, dual, { normals: i % 2 === 0 });
    }
    scene.components.Skin.maxInfluences[eid] = [0, 1, 2][i % 3];
  });
  return scene;
}

export const SCENES: Record<string, {
  make: (core: Core) => WorkerScene | Promise<WorkerScene>;
  move?: (scene: WorkerScene, frame: number) => void;
}> = {
  "wave scene": { make: (core) => waveScene(core, 40, SHAPE), move: moveWaves },
  "mixed levels of detail and dual quaternions": { make: mixedScene, move: moveWaves },
  "Fox crowd": { make: (core) => foxCrowd(core, 12) },
  "CesiumMan crowd": { make: (core) => foxCrowd(core, 6, "CesiumMan.glb") },
};
