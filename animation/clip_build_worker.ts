/**
 * The program of a clip build worker (`clip_workers.ts` starts it as a
 * module worker): it builds each clip it is sent, in its own core, for its
 * own copy of the skeleton, and posts back the clip's compact clip file
 * (`saveCompactClips`), which the calling thread loads into its core. The
 * build runs here exactly as on the calling thread (same code; it measures
 * on a private SIMD core whatever the skeleton's core), so the compact
 * form is bit for bit the one a build there makes.
 *
 * Imported anywhere but a worker, the module does nothing. It is published
 * as its own entry, `@marrow/anim/clip-build-worker`, for apps that bundle
 * it on its own (see `ClipWorkersOptions.moduleUrl`); it exports nothing.
 *
 * @module
 */

import type { Clip } from "./clip.ts";
import { Core } from "../simd/memory/core.ts";
import { SkeletonAsset } from "./skeleton_asset.ts";
import { setClipBudget } from "./clip_budget.ts";
import { saveCompactClips } from "./clip_file.ts";
import { disposeClip } from "./compact_clip.ts";
import type { BuildReply, BuildRequest } from "./_clip_build_messages.ts";

/** The worker's current skeleton: consecutive clips of one preparation share it. */
let current: { id: number; skeleton: SkeletonAsset } | undefined;

function skeletonFor(request: BuildRequest): SkeletonAsset {
  if (current?.id === request.skeletonId) return current.skeleton;
  current?.skeleton.dispose();
  current = undefined;
  const skeleton = new SkeletonAsset(request.skeleton, Core.default);
  current = { id: request.skeletonId, skeleton };
  return skeleton;
}

/** Builds one clip: its compact clip file. */
function buildClipFile(request: BuildRequest): Uint8Array {
  const skeleton = skeletonFor(request);
  setClipBudget(skeleton.core, request.clipBudget);
  // The message made a plain object: give the clip its own identity here.
  const clip: Clip = Object.freeze({ ...request.clip });
  try {
    return saveCompactClips(skeleton, [clip]);
  } finally {
    disposeClip(clip);
  }
}

const scope = globalThis as unknown as {
  onmessage: ((event: MessageEvent<BuildRequest>) => void) | null;
  postMessage(message: BuildReply, transfer?: Transferable[]): void;
};
if ("WorkerGlobalScope" in globalThis) {
  scope.onmessage = (event) => {
    const request = event.data;
    let reply: BuildReply, transfer: Transferable[] = [];
    try {
      const file = buildClipFile(request);
      reply = { id: request.id, file };
      transfer = [file.buffer as ArrayBuffer];
    } catch (error) {
      reply = {
        id: request.id,
        errorName: error instanceof Error ? error.name : "Error",
        errorMessage: error instanceof Error ? error.message : String(error),
      };
    }
    scope.postMessage(reply, transfer);
  };
}
