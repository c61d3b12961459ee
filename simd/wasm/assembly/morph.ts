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

// `out + w * d` clamped to ±MAX_MESH_MAGNITUDE (w lane not kept: the caller
// restores it). pmin and pmax are the twin's comparisons exactly (one
// instruction each where min and max take seven).
// @ts-ignore: decorator
@inline function displaced(out: v128, d: v128, w: v128, hi: v128, lo: v128): v128 {
  return f32x4.pmax(f32x4.pmin(f32x4.add(out, f32x4.mul(w, d)), hi), lo);
}

/**
 * Writes `out` (`vertexCount` vertices of 4 f32): the bind stream `base`
 * displaced by each of the `entryCount` target entries at `entries`
 * ({@link MORPH_ENTRY_BYTES} each) with its weight, in entry order.
 *
 * Up to four consecutive entries over the same range (a mesh's dense
 * targets) are applied in one pass, each vertex loaded and stored once:
 * every vertex still sees them in entry order, so the sums are the same.
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
  for (let e: u32 = 0; e < entryCount;) {
    const row = entries + <usize>e * MORPH_ENTRY_BYTES;
    const w0 = f32x4.splat(reinterpret<f32>(field<u32>(row, MORPH_WEIGHT)));
    const count = field<u32>(row, MORPH_COUNT);
    let d0 = <usize>field<u32>(row, MORPH_DELTAS);
    const indices = <usize>field<u32>(row, MORPH_INDICES);
    if (indices != 0) {
      const end = indices + (<usize>count << 2);
      for (let i = indices; i < end; i += 4, d0 += 16) {
        const v = load<u32>(i);
        if (v >= vertexCount) continue;
        const o = out + (<usize>v << 4), was = v128.load(o);
        v128.store(o, v128.bitselect(displaced(was, v128.load(d0), w0, hi, lo), was, xyz));
      }
      e++;
      continue;
    }
    const first = field<u32>(row, MORPH_FIRST);
    // The run of entries after this one over the same range, at most four in all.
    let c: u32 = 1;
    while (c < 4 && e + c < entryCount) {
      const next = row + <usize>c * MORPH_ENTRY_BYTES;
      if (
        field<u32>(next, MORPH_INDICES) != 0 || field<u32>(next, MORPH_FIRST) != first ||
        field<u32>(next, MORPH_COUNT) != count
      ) break;
      c++;
    }
    const r1 = row + (c > 1 ? MORPH_ENTRY_BYTES : 0);
    const r2 = row + (c > 2 ? 2 * MORPH_ENTRY_BYTES : 0);
    const r3 = row + (c > 3 ? 3 * MORPH_ENTRY_BYTES : 0);
    e += c;
    if (first >= vertexCount) continue;
    const w1 = f32x4.splat(reinterpret<f32>(field<u32>(r1, MORPH_WEIGHT)));
    const w2 = f32x4.splat(reinterpret<f32>(field<u32>(r2, MORPH_WEIGHT)));
    const w3 = f32x4.splat(reinterpret<f32>(field<u32>(r3, MORPH_WEIGHT)));
    let d1 = <usize>field<u32>(r1, MORPH_DELTAS), d2 = <usize>field<u32>(r2, MORPH_DELTAS);
    let d3 = <usize>field<u32>(r3, MORPH_DELTAS);
    let o = out + (<usize>first << 4);
    const end = o + (<usize>min(count, vertexCount - first) << 4);
    for (; o < end; o += 16, d0 += 16, d1 += 16, d2 += 16, d3 += 16) {
      const was = v128.load(o);
      let v = displaced(was, v128.load(d0), w0, hi, lo);
      if (c > 1) v = displaced(v, v128.load(d1), w1, hi, lo);
      if (c > 2) v = displaced(v, v128.load(d2), w2, hi, lo);
      if (c > 3) v = displaced(v, v128.load(d3), w3, hi, lo);
      v128.store(o, v128.bitselect(v, was, xyz));
    }
  }
}
