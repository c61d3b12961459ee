/**
 * A per-channel clip's playback cache as the sampling kernels read it,
 * from its starting cache (the template a clip image and a compact clip
 * file keep, `CACHE_GROUP_BYTES` per group): each playback keeps only the
 * records of its group paths with a keyed lane (`CACHE_HEADER_BYTES`), and
 * the held values and where each record is go in the clip's plan
 * (`PLAN_GROUP_BYTES`), which every playback of the clip shares. A crowd's
 * 20-joint character with keyed rotations only, for instance, keeps 976
 * bytes a playback instead of 2,560. A shared clip's template (its cursor)
 * is its cache as it is, with no plan.
 *
 * @module
 */

import {
  CACHE_CURSORS,
  CACHE_GROUP_BYTES,
  CACHE_HEADER_BYTES,
  CACHE_RIGHT,
  CACHE_TIMING,
  PLAN_GROUP_BYTES,
  PLAN_RECORDS,
  RECORD_CURSORS,
  RECORD_LEFT,
  ROTATION_RECORD_BYTES,
  TIME_BOUND,
  VECTOR_RECORD_BYTES,
} from "../simd/wasm/assembly/abi.ts";
import { PoseField } from "../simd/memory/layout.ts";

/** What a clip's playbacks start from. */
interface PlaybackForm {
  /**
   * A playback's cache before its first sample: for a per-channel clip its
   * header (the plan's offset, written where the cache is placed) and its
   * records; a shared clip's cursor.
   */
  readonly cache: Uint8Array;
  /** The clip's plan, which its playbacks share; undefined for a shared clip. */
  readonly plan: Uint8Array | undefined;
}

/** Forms by template: a template is never written once made, and a clip keeps its own. */
const forms = new WeakMap<Uint8Array, PlaybackForm>();

/** Byte offset of path p's first field in a pose group (tx, qx, sx), 16 bytes a field. */
const FIELD = [PoseField.TX, PoseField.QX, PoseField.SX].map((field) => field * 16);

/**
 * The playback form of the starting cache `template` of a clip of `groups`
 * SoA×4 groups (a shared clip's when it is not `groups` template groups
 * long). A path has a record when a lane of it starts keyed (its interval
 * starts at `TIME_BOUND`); the kernels decide from the plan alone, so that
 * whatever the clip's lanes say, they write only the records the cache
 * has.
 */
export function playbackForm(template: Uint8Array, groups: number): PlaybackForm {
  // The form made before stays apart from the closure below, whose context every call would
  // allocate (a playback attached to a clip again must allocate nothing).
  return forms.get(template) ?? newPlaybackForm(template, groups);
}

function newPlaybackForm(template: Uint8Array, groups: number): PlaybackForm {
  if (template.length !== groups * CACHE_GROUP_BYTES) {
    const shared = { cache: template, plan: undefined };
    forms.set(template, shared);
    return shared;
  }
  const view = new DataView(template.buffer, template.byteOffset, template.byteLength);
  const keyed = (g: number, p: number) => {
    for (let lane = 0; lane < 4; lane++) {
      const lo = g * CACHE_GROUP_BYTES + CACHE_TIMING + p * 48 + lane * 4;
      if (view.getFloat32(lo, true) === Math.fround(TIME_BOUND)) return true;
    }
    return false;
  };
  const offsets = new Uint32Array(groups * 3);
  let end = CACHE_HEADER_BYTES;
  for (let g = 0; g < groups; g++) {
    for (let p = 0; p < 3; p++) {
      if (!keyed(g, p)) continue;
      offsets[g * 3 + p] = end;
      end += p === 1 ? ROTATION_RECORD_BYTES : VECTOR_RECORD_BYTES;
    }
  }
  const cache = new Uint8Array(end), plan = new Uint8Array(groups * PLAN_GROUP_BYTES);
  const planView = new DataView(plan.buffer);
  for (let g = 0; g < groups; g++) {
    const base = g * CACHE_GROUP_BYTES, at = g * PLAN_GROUP_BYTES;
    plan.set(template.subarray(base, base + 160), at);
    for (let p = 0; p < 3; p++) {
      const rec = offsets[g * 3 + p];
      planView.setUint32(at + PLAN_RECORDS + p * 4, rec, true);
      if (rec === 0) continue;
      const timing = base + CACHE_TIMING + p * 48, cursors = base + CACHE_CURSORS + p * 16;
      const left = base + FIELD[p], components = p === 1 ? 64 : 48;
      cache.set(template.subarray(timing, timing + 48), rec);
      cache.set(template.subarray(cursors, cursors + 16), rec + RECORD_CURSORS);
      cache.set(template.subarray(left, left + components), rec + RECORD_LEFT);
      cache.set(
        template.subarray(left + CACHE_RIGHT, left + CACHE_RIGHT + components),
        rec + RECORD_LEFT + components,
      );
    }
  }
  const form = { cache, plan };
  forms.set(template, form);
  return form;
}

/**
 * A playback's cache for `template` that holds its plan too, after its
 * records (one block, anywhere: the header's offset is relative): what a
 * lone sampling (a build's measurement, a test) places.
 */
export function standaloneCache(template: Uint8Array, groups: number): Uint8Array {
  const { cache, plan } = playbackForm(template, groups);
  if (!plan) return cache;
  const bytes = new Uint8Array(cache.length + plan.length);
  bytes.set(cache);
  bytes.set(plan, cache.length);
  new DataView(bytes.buffer).setUint32(0, cache.length, true);
  return bytes;
}
