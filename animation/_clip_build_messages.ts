/**
 * The messages between the calling thread and a clip build worker
 * (`clip_build_worker.ts`, `_clip_build_threads.ts`).
 *
 * @module
 */

import type { Clip } from "./clip.ts";
import type { SkeletonDefinition } from "./definitions.ts";

/** What the calling thread sends: one clip to build for one skeleton. */
export interface BuildRequest {
  /** The request's number, echoed in the reply. */
  readonly id: number;
  /** The skeleton's number: the worker keeps its last skeleton while the number stays. */
  readonly skeletonId: number;
  /** The skeleton, sent with every request (the worker may have been started since). */
  readonly skeleton: SkeletonDefinition;
  /** The calling thread's clip budget (`setClipBudget`). */
  readonly clipBudget: number;
  /** The clip, as plain data (its key arrays copied by the message). */
  readonly clip: Clip;
}

/** What the worker replies: the clip's compact clip file, or why it has none. */
export type BuildReply =
  | { readonly id: number; readonly file: Uint8Array }
  | { readonly id: number; readonly errorName: string; readonly errorMessage: string };
