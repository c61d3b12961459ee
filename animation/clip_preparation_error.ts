/**
 * {@linkcode ClipPreparationError}: a preparation of clips on worker
 * threads (`prepareClipsOnWorkers`) that failed and attached nothing.
 *
 * @module
 */

/** Why a preparation failed: see {@linkcode ClipPreparationError.reason}. */
export type ClipPreparationFailure = "build" | "worker" | "closed";

/**
 * A preparation that attached nothing: a clip's build threw (`"build"`:
 * `cause` is an error of the name and message the build threw, e.g. a
 * `ClipError`, `ClipBudgetError` or `ClipWorkError`, the very error where
 * clips are built on the calling thread), a worker failed to start or
 * crashed (`"worker"`), or the workers were closed (`"closed"`).
 */
export class ClipPreparationError extends Error {
  /** Name of the clip that failed. */
  readonly clip: string;
  /** Index of that clip in the clips given. */
  readonly clipIndex: number;
  /** What failed. */
  readonly reason: ClipPreparationFailure;

  /** Creates the error; the message names the clip, its index and the failure. */
  constructor(clip: string, clipIndex: number, reason: ClipPreparationFailure, cause: Error) {
    super(`clip ${clipIndex} ("${clip}"): ${cause.name}: ${cause.message}`, { cause });
    this.name = "ClipPreparationError";
    this.clip = clip;
    this.clipIndex = clipIndex;
    this.reason = reason;
  }
}
