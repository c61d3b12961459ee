/**
 * Scalar reference of shared-timeline clip sampling
 * (`simd/wasm/assembly/sample_shared.ts`): every group of a clip whose sync
 * blocks share one timeline, between the interval's two keys at one
 * weight. Allocates nothing (the scalar build runs it every frame).
 *
 * @module
 */

import {
  CLIP_SHARED_GROUPS,
  SHARED_GROUP_BYTES,
  SHARED_GROUP_FLAGS,
  SHARED_SLERP,
  SYNC_BYTES,
  SYNC_SPAN_SHIFT,
} from "../wasm/assembly/abi.ts";
import { findKey, setSlerpTerms, setSlerpWeight, storeNormalized } from "./keys.ts";
import { heap, i16At, readF32, sampleTime, u32At } from "./_sample_memory.ts";

/** Byte offset of path `p`'s first field in a pose group (tx, qx, sx: translation, rotation, scale). */
export function pathField(p: number): number {
  return p === 0 ? 0 : p === 1 ? 48 : 112;
}

const f = Math.fround;

// Scratch of sampleShared (synchronous, so sharing is safe): a lane's two
// keys, their blend and the slerp terms of the interval's weight.
const a = new Float32Array(4), b = new Float32Array(4);
const blended = [0, 0, 0, 0];
const terms = { w: 0, g: 0, p: 0, q: 0 };
const laneWeight = new Float64Array(1);
/** Floats read from the clip ({@linkcode readF32} writes, does not return). */
const read = new Float64Array(2);

/**
 * Samples a shared-timeline clip (`CLIP_SHARED_KEYS`: `keys` keys) at byte
 * `clip` of {@linkcode heap} at time `t` ({@linkcode sampleTime}) into the
 * pose at `out`:
 * the interval around `t` by a search, then every group between its
 * blocks' two keys at one weight, rotations of groups flagged
 * `SHARED_SLERP` at their lanes' `slerpWeight`; held paths from the clip's
 * group records. The cache (`SHARED_CACHE_BYTES`) is not read: the twin
 * searches.
 */
export function sampleShared(clip: number, out: number, groupCount: number, keys: number): void {
  const t = sampleTime[0];
  const lanes = clip + u32At(clip + 8);
  const syncCount = u32At(clip + 16);
  const syncs = clip + u32At(clip + 20);
  const times = clip + u32At(syncs);
  let kl = 0, kr = 0, w = 0;
  readF32(times, read, 0);
  readF32(times + (keys - 1) * 4, read, 1);
  if (keys > 1 && t >= read[0]) {
    if (t >= read[1]) kl = kr = keys - 1;
    else {
      kl = findKey(times, keys);
      kr = kl + 1;
      readF32(times + kl * 4, read, 0);
      readF32(times + kr * 4, read, 1);
      const left = read[0];
      w = f(f(t - left) * f(1 / f(read[1] - left)));
    }
  }
  terms.w = w;
  setSlerpTerms(terms);
  const records = clip + u32At(clip + CLIP_SHARED_GROUPS);
  for (let g = 0; g < groupCount; g++) {
    const group = records + g * SHARED_GROUP_BYTES;
    const o = out + g * 160;
    const flags = u32At(group + SHARED_GROUP_FLAGS);
    const slerp = (flags & SHARED_SLERP) !== 0;
    for (let p = 0; p < 3; p++) {
      const n = p === 1 ? 4 : 3, field = pathField(p);
      for (let lane = 0; lane < 4; lane++) {
        const entry = i16At(lanes + ((g * 3 + p) * 4 + lane) * 2);
        const sync = syncs + (-2 - entry) * SYNC_BYTES;
        const keyed = entry <= -2 && -2 - entry < syncCount;
        const values = keyed ? clip + u32At(sync + 4) : 0;
        const span = keyed ? (u32At(sync + 12) >>> SYNC_SPAN_SHIFT) & 7 : 0;
        for (let c = 0; c < n; c++) {
          if (keyed) {
            readF32(values + ((kl * n + c) * span + lane) * 4, a, c);
            readF32(values + ((kr * n + c) * span + lane) * 4, b, c);
          } else {
            readF32(group + field + c * 16 + lane * 4, a, c);
            b[c] = a[c];
          }
        }
        if (keyed && p === 1 && slerp) setSlerpWeight(terms, a, b, laneWeight);
        const weight = !keyed ? 0 : p === 1 && slerp ? laneWeight[0] : w;
        for (let c = 0; c < n; c++) blended[c] = f(a[c] + f(f(b[c] - a[c]) * weight));
        if (p === 1) storeNormalized(blended, o + 48 + lane * 4);
        else {
          const f32 = heap.f32, at = (o + field + lane * 4) >>> 2;
          for (let c = 0; c < 3; c++) f32[at + c * 4] = blended[c];
        }
      }
    }
  }
}
