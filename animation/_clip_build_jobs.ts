/**
 * A preparation's clips as build jobs for the clip build threads: each
 * clip's keys copied for its worker, the longest first, and their compact
 * clip files gathered, the first failure rejecting and dropping the jobs
 * not yet started.
 *
 * @module
 */

import type { Clip } from "./clip.ts";
import type { SkeletonAsset } from "./skeleton_asset.ts";
import { budgetOf } from "./clip_budget.ts";
import type { BuildFailure, BuildJob, ClipBuildThreads } from "./_clip_build_threads.ts";
import { ClipPreparationError } from "./clip_preparation_error.ts";

/** Skeletons' numbers in build requests: a worker keeps its last skeleton while it stays. */
const skeletonIds = new WeakMap<SkeletonAsset, number>();
let nextSkeletonId = 1;

/**
 * `clip` as plain data for a message: its key arrays copied into buffers of
 * their own (moved to the worker; the buffers the clip's arrays view may
 * hold a whole file).
 */
function plainClip(clip: Clip): Clip {
  return {
    name: clip.name,
    animation: clip.animation,
    start: clip.start,
    duration: clip.duration,
    channels: clip.channels.map((c) => ({
      joint: c.joint,
      path: c.path,
      interpolation: c.interpolation,
      times: c.times.slice(),
      values: c.values.slice(),
      node: c.node,
    })),
  };
}

/** Bytes of a clip's key arrays: the longest builds first keep the workers evenly busy. */
function keyBytes(clip: Clip): number {
  return clip.channels.reduce((n, c) => n + c.times.byteLength + c.values.byteLength, 0);
}

/** Each clip's compact clip file, built on `threads`; the first failure rejects and drops the rest. */
export function buildFiles(
  skeleton: SkeletonAsset,
  clips: readonly Clip[],
  indices: readonly number[],
  threads: ClipBuildThreads,
  signal: AbortSignal | undefined,
): Promise<Uint8Array[]> {
  let skeletonId = skeletonIds.get(skeleton);
  if (skeletonId === undefined) skeletonIds.set(skeleton, skeletonId = nextSkeletonId++);
  const definition = {
    names: skeleton.names,
    parents: skeleton.parentIndices,
    restPose: skeleton.restPose,
    inverseBind: skeleton.inverseBind,
  };
  const common = {
    skeletonId,
    skeleton: definition,
    clipBudget: budgetOf(skeleton.core).limit,
  };
  return new Promise((resolve, reject) => {
    const files: Uint8Array[] = new Array(clips.length);
    const jobs = new Set<BuildJob>();
    let left = clips.length, settled = false;
    const finish = (error?: unknown) => {
      if (settled) return;
      settled = true;
      threads.drop(jobs);
      signal?.removeEventListener("abort", onAbort);
      if (error === undefined) resolve(files);
      else reject(error);
    };
    const onAbort = () => finish(signal!.reason);
    signal?.addEventListener("abort", onAbort);
    if (left === 0) return finish();
    const order = clips.map((_, i) => i).sort((a, b) => keyBytes(clips[b]) - keyBytes(clips[a]));
    for (const i of order) {
      const clip = plainClip(clips[i]);
      const job: BuildJob = {
        request: { ...common, clip },
        transfer: clip.channels.flatMap((c) => [c.times.buffer, c.values.buffer] as ArrayBuffer[]),
        settle: (outcome) => {
          if ("file" in outcome) {
            files[i] = outcome.file;
            if (--left === 0) finish();
          } else finish(preparationError(clips[i].name, indices[i], outcome.failure));
        },
      };
      jobs.add(job);
      threads.add(job);
    }
  });
}

function preparationError(clip: string, index: number, failure: BuildFailure) {
  const cause = new Error(failure.message);
  cause.name = failure.name;
  return new ClipPreparationError(clip, index, failure.reason, cause);
}
