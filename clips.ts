/**
 * Clips beyond their definition: the compact form a clip plays from
 * ({@linkcode compactClip}, {@linkcode CompactClip}, {@linkcode disposeClip})
 * and the memory budget of the compact forms ({@linkcode setClipBudget});
 * compact clip files ({@linkcode saveCompactClips},
 * {@linkcode loadCompactClips}); clips built on worker threads
 * ({@linkcode prepareClipsOnWorkers}); markers a playback reports when it crosses
 * them ({@linkcode setClipMarkers}, {@linkcode getCrossedMarkers}); root
 * motion ({@linkcode enableRootMotion}); and sampling a clip by hand into a
 * pose ({@linkcode sampleClip}).
 *
 * @module
 */

export {
  ClipBudgetError,
  clipBytes,
  ClipWorkError,
  DEFAULT_CLIP_BUDGET,
  setClipBudget,
} from "./animation/clip_budget.ts";
export {
  CompactClip,
  compactClip,
  type CompactClipOptions,
  DEFAULT_CLIP_TOLERANCE,
  DEFAULT_VIRTUAL_DISTANCE,
  disposeClip,
} from "./animation/compact_clip.ts";
export {
  ClipFileError,
  loadCompactClips,
  saveCompactClips,
  type SaveCompactClipsOptions,
} from "./animation/clip_file.ts";
export {
  ClipPreparationError,
  type ClipPreparationFailure,
  type ClipWorkers,
  type ClipWorkersOptions,
  createClipWorkers,
  DEFAULT_CLIP_WORKERS_IDLE_MS,
  MAX_CLIP_WORKERS,
  prepareClipsOnWorkers,
  type PrepareClipsOnWorkersOptions,
} from "./animation/clip_workers.ts";
export { sampleChannel, sampleClip, wrapTime } from "./animation/clip.ts";
export {
  type ClipMarker,
  getClipMarkers,
  type MarkerHit,
  MAX_HITS_PER_PLAYBACK,
  MAX_MARKERS,
  setClipMarkers,
} from "./animation/markers.ts";
export { getCrossedMarkers } from "./components/layers.ts";
export {
  disableRootMotion,
  enableRootMotion,
  getRootMotion,
  type RootMotion,
  type RootMotionOptions,
} from "./components/root_motion.ts";
