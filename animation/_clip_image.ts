/**
 * The bytes of a compact clip (layout: `compact_clip.ts`) and the cache a
 * playback starts from, from its reduced channels.
 *
 * @module
 */

import type { KeyTrack, ReducedChannel } from "./_reduce.ts";
import { poseLane } from "../simd/layout.ts";
import {
  CACHE_GROUP_BYTES,
  CACHE_RIGHT,
  CACHE_TIMING,
  CLIP_HEADER_BYTES,
  TIME_BOUND,
  TRACK_BISECT,
  TRACK_BYTES,
  TRACK_STEP,
} from "../simd/assembly/abi.ts";

/** A compact clip before it goes to the core. */
export interface ClipImage {
  /** The clip's bytes, a multiple of 16 long. */
  readonly bytes: Uint8Array;
  /** A playback's cache before its first sample: rest pose and held values. */
  readonly template: Uint8Array;
  readonly trackCount: number;
  readonly keyCount: number;
  /** Key times of the tracks kept, and the piece bounds of bisected ones. */
  readonly keyTimes: Float32Array[];
}

const PATH_FIELD = [0, 3, 7] as const;

/** Byte offset of joint `joint`'s path `path` lane in a cache (left keys). */
function laneByte(joint: number, path: number): number {
  return (joint >> 2) * CACHE_GROUP_BYTES + (poseLane(joint & 3) + PATH_FIELD[path] * 4) * 4;
}

/** The image of a clip of `groups` SoA×4 groups over `restPose`. */
export function clipImage(
  groups: number,
  restPose: Float32Array,
  reduced: readonly ReducedChannel[],
): ClipImage {
  const template = new Uint8Array(groups * CACHE_GROUP_BYTES);
  const view = new DataView(template.buffer);
  for (let g = 0; g < groups; g++) {
    const base = g * CACHE_GROUP_BYTES;
    for (let i = 0; i < 40; i++) {
      view.setFloat32(base + i * 4, restPose[g * 40 + i], true);
      view.setFloat32(base + CACHE_RIGHT + i * 4, restPose[g * 40 + i], true);
    }
    // Held lanes: an interval no time leaves, weight 0 (inv stays 0).
    for (let i = 0; i < 12; i++) {
      const timing = base + CACHE_TIMING + (i >> 2) * 48 + (i & 3) * 4;
      view.setFloat32(timing, -TIME_BOUND, true);
      view.setFloat32(timing + 16, TIME_BOUND, true);
    }
  }
  const tracks: KeyTrack[] = [];
  const lanes = new Int16Array(groups * 12).fill(-1);
  for (const r of reduced) {
    const lane = laneByte(r.joint, r.path);
    if ("constant" in r) {
      r.constant.forEach((v, c) => {
        view.setFloat32(lane + c * 16, v, true);
        view.setFloat32(lane + CACHE_RIGHT + c * 16, v, true);
      });
      continue;
    }
    lanes[((r.joint >> 2) * 3 + r.path) * 4 + (r.joint & 3)] = tracks.length;
    tracks.push(r.keys);
    // lo = hi = TIME_BOUND: every time is below, so the first sample refills the lane.
    const timing = (r.joint >> 2) * CACHE_GROUP_BYTES + CACHE_TIMING + r.path * 48 +
      (r.joint & 3) * 4;
    view.setFloat32(timing, TIME_BOUND, true);
  }
  return {
    bytes: layOut(groups, lanes, tracks),
    template,
    trackCount: tracks.length,
    keyCount: tracks.reduce((n, t) => n + t.times.length, 0),
    keyTimes: tracks.flatMap((t) => t.pieceTimes ? [t.times, t.pieceTimes] : [t.times]),
  };
}

/** The clip's bytes: header, lanes, track records, then each track's times and values. */
function layOut(groups: number, lanes: Int16Array, tracks: KeyTrack[]): Uint8Array {
  const align = (n: number, a: number) => Math.ceil(n / a) * a;
  const lanesAt = CLIP_HEADER_BYTES;
  const tracksAt = align(lanesAt + lanes.byteLength, 16);
  let end = tracksAt + tracks.length * TRACK_BYTES;
  // Tracks whose kept key times are equal share one copy of them.
  const shared = new Map<string, number>();
  const at = tracks.map((t) => {
    const key = t.times.join();
    let times = shared.get(key);
    if (times === undefined) {
      shared.set(key, times = end);
      end += t.times.byteLength;
    }
    const values = align(end, 8);
    end = values + t.bytes.length;
    return { times, values };
  });
  const image = new Uint8Array(align(end, 16));
  const view = new DataView(image.buffer);
  view.setUint32(0, groups, true);
  view.setUint32(4, tracks.length, true);
  view.setUint32(8, lanesAt, true);
  view.setUint32(12, tracksAt, true);
  image.set(new Uint8Array(lanes.buffer), lanesAt);
  tracks.forEach((t, i) => {
    const record = tracksAt + i * TRACK_BYTES;
    view.setUint32(record, at[i].times, true);
    view.setUint32(record + 4, at[i].values, true);
    view.setUint32(record + 8, t.times.length, true);
    view.setUint32(
      record + 12,
      t.format | (t.step ? TRACK_STEP : 0) | (t.bisect ? TRACK_BISECT : 0),
      true,
    );
    for (let c = 0; c < 3; c++) {
      view.setFloat32(record + 16 + c * 4, t.range?.min[c] ?? 0, true);
      view.setFloat32(record + 28 + c * 4, t.range?.scale[c] ?? 0, true);
    }
    image.set(new Uint8Array(t.times.buffer), at[i].times);
    image.set(t.bytes, at[i].values);
  });
  return image;
}
