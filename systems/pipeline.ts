/**
 * The standard frame: sample clips, quat→mat, transform skeleton, multiply
 * inverse bind, then skinning (positions only, or with normals and tangents,
 * per entity).
 *
 * @example
 * ```ts
 * import { createWorld } from "bitecs";
 * import { createAnimation, createAnimationPipeline } from "@marrow/anim";
 *
 * const world = createWorld();
 * createAnimation(world);
 * const animate = createAnimationPipeline();
 * animate(world, 1 / 60); // once per frame, with the frame's duration
 * ```
 * @module
 */

import { multiplyInverseBindSystem } from "./multiply_inverse_bind.ts";
import { quatToMatSystem } from "./quat_to_mat.ts";
import { sampleClipsSystem } from "./sample_clips.ts";
import { skinSystem, type SkinSystemOptions, skinWithTangentsSystem } from "./skin.ts";
import { transformSkeletonSystem } from "./transform_skeleton.ts";

/** A system: a plain function of the world (and of the frame's duration). */
export type AnimationSystem = (world: object, deltaSeconds?: number) => void;

/** A pipeline: runs its systems in order; `systems` lists them by name. */
export interface AnimationPipeline {
  (world: object, deltaSeconds?: number): void;
  /** The systems in the order they run. */
  readonly systems: readonly { readonly name: string; readonly run: AnimationSystem }[];
}

/** Builds the standard animation frame as one function of the world. */
export function createAnimationPipeline(options: SkinSystemOptions = {}): AnimationPipeline {
  const systems: readonly { readonly name: string; readonly run: AnimationSystem }[] = [
    { name: "sampleClips", run: sampleClipsSystem },
    { name: "quatToMat", run: quatToMatSystem },
    { name: "transformSkeleton", run: transformSkeletonSystem },
    { name: "multiplyInverseBind", run: multiplyInverseBindSystem },
    { name: "skin", run: (world: object) => skinSystem(world, options) },
    { name: "skinWithTangents", run: (world: object) => skinWithTangentsSystem(world, options) },
  ];
  const pipeline = (world: object, deltaSeconds = 0) => {
    for (const system of systems) system.run(world, deltaSeconds);
  };
  return Object.assign(pipeline, { systems });
}
