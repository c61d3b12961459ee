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
import { findKey, setSlerpTerms, slerpWeight, storeNormalized } from "./keys.ts";

const f = Math.fround;

// Scratch of sampleShared (synchronous, so sharing is safe): a lane's two
// keys, their blend and the slerp terms of the interval's weight.
const a = new Float32Array(4), b = new Float32Array(4);
const blended = [0, 0, 0, 0];
const terms = { w: 0, g: 0, p: 0, q: 0 };

/**
 * Samples a shared-timeline clip (`CLIP_SHARED_KEYS`: `keys` keys) at byte
 * `clip` at time `t` (float32) into the pose at `out`: the interval around
 * `t` by a search, then every group between its blocks' two keys at one
 * weight, rotations of groups flagged `SHARED_SLERP` at their lanes'
 * `slerpWeight`; held paths from the clip's group records. The cache
 * (`SHARED_CACHE_BYTES`) is not read: the twin searches.
 */
export function sampleShared(
  view: DataView,
  clip: number,
  out: number,
  groupCount: number,
  t: number,
  keys: number,
): void {
  const lanes = clip + view.getUint32(clip + 8, true);
  const syncCount = view.getUint32(clip + 16, true);
  const syncs = clip + view.getUint32(clip + 20, true);
  const times = clip + view.getUint32(syncs, true);
  let kl = 0, kr = 0, w = 0;
  if (keys > 1 && t >= view.getFloat32(times, true)) {
    if (t >= view.getFloat32(times + (keys - 1) * 4, true)) kl = kr = keys - 1;
    else {
      kl = findKey(view, times, keys, t);
      kr = kl + 1;
      const left = view.getFloat32(times + kl * 4, true);
      w = f(f(t - left) * f(1 / f(view.getFloat32(times + kr * 4, true) - left)));
    }
  }
  setSlerpTerms(terms, w);
  const records = clip + view.getUint32(clip + CLIP_SHARED_GROUPS, true);
  for (let g = 0; g < groupCount; g++) {
    const group = records + g * SHARED_GROUP_BYTES;
    const o = out + g * 160;
    const flags = view.getUint32(group + SHARED_GROUP_FLAGS, true);
    const slerp = (flags & SHARED_SLERP) !== 0;
    for (let p = 0; p < 3; p++) {
      const n = p === 1 ? 4 : 3, field = p === 0 ? 0 : p === 1 ? 48 : 112;
      for (let lane = 0; lane < 4; lane++) {
        const entry = view.getInt16(lanes + ((g * 3 + p) * 4 + lane) * 2, true);
        const sync = syncs + (-2 - entry) * SYNC_BYTES;
        const keyed = entry <= -2 && -2 - entry < syncCount;
        const values = keyed ? clip + view.getUint32(sync + 4, true) : 0;
        const span = keyed ? (view.getUint32(sync + 12, true) >>> SYNC_SPAN_SHIFT) & 7 : 0;
        for (let c = 0; c < n; c++) {
          const held = view.getFloat32(group + field + c * 16 + lane * 4, true);
          a[c] = keyed ? view.getFloat32(values + ((kl * n + c) * span + lane) * 4, true) : held;
          b[c] = keyed ? view.getFloat32(values + ((kr * n + c) * span + lane) * 4, true) : held;
        }
        const weight = !keyed ? 0 : p === 1 && slerp ? slerpWeight(terms, a, b) : w;
        for (let c = 0; c < n; c++) blended[c] = f(a[c] + f(f(b[c] - a[c]) * weight));
        if (p === 1) storeNormalized(view, blended, o + 48 + lane * 4);
        else {
          for (let c = 0; c < 3; c++) {
            view.setFloat32(o + field + c * 16 + lane * 4, blended[c], true);
          }
        }
      }
    }
  }
}
