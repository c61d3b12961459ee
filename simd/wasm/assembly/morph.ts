// Morph targets applied to a bind stream. Semantics are those of
// morphVertices in simd/scalar/morph.ts, bit for bit on every build: the
// sum is a multiply then an add (no fused multiply-add, even in the relaxed
// build) so that each build rounds as the scalar twin does.
//
// The kernel never leaves what its arguments span, whatever the entries
// hold: a range is cut at `vertexCount` and a listed vertex at or beyond it
// is skipped, so that the JavaScript side's checks of the entries' blocks
// bound every access.

import {
  MAX_MESH_MAGNITUDE, MORPH_COUNT, MORPH_DELTAS, MORPH_ENTRY_BYTES, MORPH_FIRST, MORPH_INDICES,
  MORPH_WEIGHT,
} from "./abi";
import { field } from "./common";

// `out + w * d` clamped to ±MAX_MESH_MAGNITUDE in x, y, z; w of `out` kept.
// @ts-ignore: decorator
@inline function displaced(out: v128, d: v128, w: v128, hi: v128, lo: v128, xyz: v128): v128 {
  const sum = f32x4.add(out, f32x4.mul(w, d));
  return v128.bitselect(f32x4.min(f32x4.max(sum, lo), hi), out, xyz);
}

/**
 * Writes `out` (`vertexCount` vertices of 4 f32): the bind stream `base`
 * displaced by each of the `entryCount` target entries at `entries`
 * ({@link MORPH_ENTRY_BYTES} each) with its weight, in entry order.
 */
export function morphVertices(
  base: usize,
  out: usize,
  vertexCount: u32,
  entries: usize,
  entryCount: u32,
): void {
  const bytes = <usize>vertexCount << 4;
  if (base != out) memory.copy(out, base, bytes);
  const hi = f32x4.splat(<f32>MAX_MESH_MAGNITUDE), lo = f32x4.neg(hi);
  const xyz = i32x4(-1, -1, -1, 0);
  for (let e: u32 = 0; e < entryCount; e++) {
    const row = entries + <usize>e * MORPH_ENTRY_BYTES;
    const w = f32x4.splat(reinterpret<f32>(field<u32>(row, MORPH_WEIGHT)));
    const count = field<u32>(row, MORPH_COUNT);
    let d = <usize>field<u32>(row, MORPH_DELTAS);
    const indices = <usize>field<u32>(row, MORPH_INDICES);
    if (indices == 0) {
      const first = field<u32>(row, MORPH_FIRST);
      if (first >= vertexCount) continue;
      const n = min(count, vertexCount - first);
      let o = out + (<usize>first << 4);
      const end = o + (<usize>n << 4);
      for (; o < end; o += 16, d += 16) {
        v128.store(o, displaced(v128.load(o), v128.load(d), w, hi, lo, xyz));
      }
    } else {
      const end = indices + (<usize>count << 2);
      for (let i = indices; i < end; i += 4, d += 16) {
        const v = load<u32>(i);
        if (v >= vertexCount) continue;
        const o = out + (<usize>v << 4);
        v128.store(o, displaced(v128.load(o), v128.load(d), w, hi, lo, xyz));
      }
    }
  }
}
