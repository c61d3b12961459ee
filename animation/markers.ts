/**
 * Clip markers (animation events): named times on a clip, set by the game
 * ({@linkcode setClipMarkers}) or read from a glTF animation's
 * `extras.markers` (`[{ "name": "footstep", "time": 0.4 }]`). The sample
 * clips system reports, per entity and frame, every marker its playbacks
 * crossed, in the order they were crossed (`getCrossedMarkers`).
 *
 * A marker is crossed when the playback time passes it: moving forwards,
 * a marker at `m` fires when the time goes from before `m` to `m` or past
 * it; backwards, from after `m` to `m` or before it. A looping clip crosses
 * each marker once per cycle, however large the frame's step; a clamped one
 * at most once until it turns back. A marker at the clip's end of a looping
 * clip is the same point as its start.
 *
 * @module
 */

import type { Clip, WrapMode } from "./clip.ts";
import { describeValue } from "../simd/memory/internal.ts";

/** A named time on a clip. */
export interface ClipMarker {
  /** The event's name (`"footstep"`). */
  readonly name: string;
  /** Its time in seconds, within `[0, clip.duration]`. */
  readonly time: number;
}

/** A marker an entity's playback crossed in the last frame. */
export interface MarkerHit {
  /** The marker's name. */
  readonly name: string;
  /** The marker's time in the clip. */
  readonly time: number;
  /** The clip it is on. */
  readonly clip: Clip;
  /** The layer that played the clip (0: the ClipPlayer's clips). */
  readonly layer: number;
}

/** Most markers a clip may carry. */
export const MAX_MARKERS = 1024;
/** Most hits one playback reports per frame (a huge step over a tiny loop stops there). */
export const MAX_HITS_PER_PLAYBACK = 256;

const markersOf = new WeakMap<Clip, readonly ClipMarker[]>();
/** Counts the calls that set markers: what caches {@linkcode anyMarkers} compares. */
let version = 0;

/**
 * Sets `clip`'s markers (replacing any), sorted by time. Throws a
 * `RangeError` naming the index of a marker without a string name or with
 * a time outside `[0, clip.duration]`, or more than {@linkcode MAX_MARKERS}.
 */
export function setClipMarkers(clip: Clip, markers: readonly ClipMarker[]): void {
  if (!clip || typeof clip !== "object" || typeof clip.duration !== "number") {
    throw new TypeError("setClipMarkers: clip: expected a Clip");
  }
  if (!Array.isArray(markers)) throw new TypeError("setClipMarkers: markers: expected an array");
  if (markers.length > MAX_MARKERS) {
    throw new RangeError(
      `setClipMarkers: markers: at most ${MAX_MARKERS}, got ${describeValue(markers.length)}`,
    );
  }
  const copy = markers.map((marker, i) => {
    const { name, time } = marker ?? {};
    if (typeof name !== "string") {
      throw new RangeError(`setClipMarkers: markers[${i}].name: expected a string`);
    }
    if (typeof time !== "number" || !(time >= 0 && time <= clip.duration)) {
      throw new RangeError(
        `setClipMarkers: markers[${i}].time: expected a time in [0, ${clip.duration}], got ${
          describeValue(time)
        }`,
      );
    }
    return Object.freeze({ name, time });
  }).sort((a, b) => a.time - b.time);
  markersOf.set(clip, Object.freeze(copy));
  version++;
}

/** `clip`'s markers, sorted by time (none unless set or imported). */
export function getClipMarkers(clip: Clip): readonly ClipMarker[] {
  return markersOf.get(clip) ?? [];
}

/** @internal Whether any clip has markers: lets the system skip the search. */
export function anyMarkers(clip: Clip): boolean {
  return markersOf.has(clip);
}

/**
 * @internal The markers' version: changes whenever any clip's markers are
 * set, so that a cached {@linkcode anyMarkers} of a clip holds while it
 * stays.
 */
export function markersVersion(): number {
  return version;
}

/** One hit of a {@linkcode MarkerHits}, rewritten when the list is refilled. */
interface ReusedHit {
  name: string;
  time: number;
  clip: Clip;
  layer: number;
}

/** @internal The hits of a frame that crossed no marker. */
export const NO_HITS: readonly MarkerHit[] = Object.freeze([]);

/**
 * @internal A frame's marker hits, reused frame after frame: its hit
 * objects, and one array per count of hits (an array's length never
 * changes: shrinking one drops its storage, and it would be regrown). In a
 * steady game, filling and reading it allocates nothing.
 */
export class MarkerHits {
  readonly #hits: ReusedHit[] = [];
  readonly #arrays: MarkerHit[][] = [];
  #count = 0;

  /** Empties the list. */
  clear(): void {
    this.#count = 0;
  }

  /**
   * Appends a hit of `marker` (passed whole: its time, a double, would be
   * boxed as an argument of a call that is not inlined).
   */
  add(marker: ClipMarker, clip: Clip, layer: number): void {
    let hit = this.#hits[this.#count];
    if (!hit) this.#hits.push(hit = { name: marker.name, time: marker.time, clip, layer });
    hit.name = marker.name, hit.time = marker.time, hit.clip = clip, hit.layer = layer;
    this.#count++;
  }

  /** The hits, in the order added: an array reused until the list is refilled. */
  list(): readonly MarkerHit[] {
    const count = this.#count;
    if (count === 0) return NO_HITS;
    let array = this.#arrays[count];
    if (array?.length !== count) {
      while (this.#arrays.length < count) this.#arrays.push(NO_HITS as MarkerHit[]);
      this.#arrays[count] = array = this.#hits.slice(0, count);
    }
    for (let i = 0; i < count; i++) array[i] = this.#hits[i];
    return array;
  }
}

// crossMarkers' selection (synchronous, so sharing is safe): the first
// hits crossed, in order, at most MAX_HITS_PER_PLAYBACK.
const selectedAt = new Float64Array(MAX_HITS_PER_PLAYBACK);
const selectedMarker: ClipMarker[] = [];
let selectedCount = 0;

/**
 * Puts the occurrence `at` of `marker` among the selected hits, after those
 * crossed no later (`forward`: at no greater time) so that ties keep the
 * order found. Returns false when it falls beyond a full selection.
 */
function select(at: number, marker: ClipMarker, forward: boolean): boolean {
  let i = selectedCount;
  while (i > 0 && (forward ? selectedAt[i - 1] > at : selectedAt[i - 1] < at)) i--;
  if (i >= MAX_HITS_PER_PLAYBACK) return false;
  const last = Math.min(selectedCount, MAX_HITS_PER_PLAYBACK - 1);
  for (let k = last; k > i; k--) {
    selectedAt[k] = selectedAt[k - 1];
    selectedMarker[k] = selectedMarker[k - 1];
  }
  selectedAt[i] = at;
  selectedMarker[i] = marker;
  if (selectedCount < MAX_HITS_PER_PLAYBACK) selectedCount++;
  return true;
}

/**
 * Appends to `out` the markers of `clip` crossed by a playback moving from
 * time `span.from` to `span.to` (unwrapped playback times), in crossing
 * order. The times come in an object: doubles passed as arguments to a call
 * that is not inlined are boxed, a heap number each.
 */
export function crossMarkers(
  clip: Clip,
  wrap: WrapMode,
  span: { readonly from: number; readonly to: number },
  layer: number,
  out: MarkerHits,
): void {
  const from = span.from, to = span.to;
  const markers = markersOf.get(clip), d = clip.duration;
  if (!markers || markers.length === 0 || from === to || !(d > 0)) return;
  const forward = to > from;
  selectedCount = 0;
  if (wrap === "clamp") {
    const a = Math.min(Math.max(from, 0), d), b = Math.min(Math.max(to, 0), d);
    for (let i = 0; i < markers.length; i++) {
      const m = markers[i].time;
      if (forward ? m > a && m <= b : m < a && m >= b) select(m, markers[i], forward);
    }
  } else {
    for (let i = 0; i < markers.length; i++) {
      const marker = markers[i];
      const m = marker.time === d ? 0 : marker.time;
      // Occurrences k * d + m in (from, to] forwards, [to, from) backwards,
      // decided on the same rounded `at` in consecutive frames: exactly once.
      const step = forward ? 1 : -1;
      let k = forward ? Math.floor((from - m) / d) : Math.ceil((from - m) / d);
      // Bounded in steps, not hits: at huge times k * d may stop changing.
      for (let n = 0; n < MAX_HITS_PER_PLAYBACK + 2; n++, k += step) {
        const at = k * d + m;
        if (forward ? at > to : at < to) break;
        // A marker's later occurrences come later still: past a full selection, so are they.
        if ((forward ? at > from : at < from) && !select(at, marker, forward)) break;
      }
    }
  }
  for (let i = 0; i < selectedCount; i++) out.add(selectedMarker[i], clip, layer);
}
