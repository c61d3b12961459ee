// Skinning with the collapsed palette for positions, normals and tangents
// (paper 002, sec. 4). Semantics are those of skinVertices in reference.ts.
//
// Deno compiles WebAssembly with an explicit bounds check on every memory
// access, so the loops load each input once, as wide as the data allows,
// and rebuild weight splats and joint indices in registers instead of
// reloading them.

import { madd, vmax, vmin } from "./common";
import {
  addresses4, hsum, hsum3w, lane0, lane1, lane2, lane3, matrix, NORMALS,
  TANGENTS, unitW,
} from "./skin_common";
import { emit } from "./skin_emit";

// `count` vertices whose first `K` (1..4) influences are used, `n` stored
// per vertex. Loads per vertex: one for the weights, one for the joints,
// three rows per influence and the input streams; with K = 3 or 4, none
// for the first joint while it repeats (SkinAsset sorts vertices by
// joints; 100,000 x 4 with normals and tangents 4.89 -> 4.48 ns/vertex).
// `capped` (n > K) scales
// the weights by the inverse of their sum before collapsing. With K = 3 the
// weight and joint loads read one influence past the vertex: the caller
// guarantees that it exists.
// @ts-ignore: decorator
@inline export function skinRun(
  K: i32,
  mode: i32,
  bounded: bool,
  bounds: usize,
  capped: bool,
  n: u32,
  count: u32,
  palette: usize,
  jp: usize,
  wp: usize,
  o: usize,
  positions: usize,
  normals: usize,
  tangents: usize,
  outPositions: usize,
  outNormals: usize,
  outTangents: usize,
): void {
  const jStride = <usize>n << 1, wStride = <usize>n << 2;
  const end = o + (<usize>count << 4);
  const e3 = unitW(count);
  let lo = e3, hi = e3;
  if (bounded) {
    lo = v128.load(bounds);
    hi = v128.load(bounds, 16);
  }
  // The first joint's rows, held while consecutive vertices share it
  // (SkinAsset sorts them by joints); no joint index is 0x10000.
  let held: u32 = 0x10000;
  let h0 = e3, h1 = e3, h2 = e3;
  if (K == 1 && bounded) {
    // Two rigid vertices per bound update: with one per vertex the bounds'
    // dependency chain measured 1.5x the unbounded loop.
    const pairs = o + ((<usize>count & ~1) << 4);
    for (; o < pairs; o += 32, jp += jStride << 1, wp += wStride << 1) {
      const m0 = matrix(palette, load<u16>(jp)), m1 = matrix(palette, load<u16>(jp + jStride));
      const q0 = emit(mode, e3, v128.load(m0), v128.load(m0, 16), v128.load(m0, 32), o, positions, normals, tangents, outPositions, outNormals, outTangents);
      const q1 = emit(mode, e3, v128.load(m1), v128.load(m1, 16), v128.load(m1, 32), o + 16, positions, normals, tangents, outPositions, outNormals, outTangents);
      lo = vmin(lo, vmin(q0, q1));
      hi = vmax(hi, vmax(q0, q1));
    }
  }
  for (; o < end; o += 16, jp += jStride, wp += wStride) {
    let r0: v128, r1: v128, r2: v128;
    if (K == 1) {
      // Rigid: the joint's rows as they are, no weight work (see
      // reference.ts: a single used influence's weight is not applied).
      const m0 = matrix(palette, load<u16>(jp));
      r0 = v128.load(m0);
      r1 = v128.load(m0, 16);
      r2 = v128.load(m0, 32);
    } else if (K == 2) {
      let w = v128.load64_zero(wp);
      if (capped) {
        w = f32x4.mul(
          w,
          f32x4.div(f32x4.splat(1), f32x4.add(w, i32x4.shuffle(w, w, 1, 0, 3, 2))),
        );
      }
      const jj = load<u32>(jp);
      const m0 = matrix(palette, jj & 0xffff), m1 = matrix(palette, jj >>> 16);
      const w0 = lane0(w), w1 = lane1(w);
      r0 = madd(v128.load(m1), w1, f32x4.mul(v128.load(m0), w0));
      r1 = madd(v128.load(m1, 16), w1, f32x4.mul(v128.load(m0, 16), w0));
      r2 = madd(v128.load(m1, 32), w1, f32x4.mul(v128.load(m0, 32), w0));
    } else if (K == 3) {
      let w = v128.load(wp);
      if (capped) {
        w = f32x4.mul(
          w,
          f32x4.div(f32x4.splat(1), hsum(v128.and(w, i32x4(-1, -1, -1, 0)))),
        );
      }
      const jj = load<u64>(jp);
      const lo = <u32>jj, hi = <u32>(jj >>> 32);
      if ((lo & 0xffff) != held) {
        held = lo & 0xffff;
        const m0 = matrix(palette, held);
        h0 = v128.load(m0);
        h1 = v128.load(m0, 16);
        h2 = v128.load(m0, 32);
      }
      const m1 = matrix(palette, lo >>> 16), m2 = matrix(palette, hi & 0xffff);
      const w0 = lane0(w), w1 = lane1(w), w2 = lane2(w);
      r0 = madd(v128.load(m2), w2, madd(v128.load(m1), w1, f32x4.mul(h0, w0)));
      r1 = madd(v128.load(m2, 16), w2, madd(v128.load(m1, 16), w1, f32x4.mul(h1, w0)));
      r2 = madd(v128.load(m2, 32), w2, madd(v128.load(m1, 32), w1, f32x4.mul(h2, w0)));
    } else {
      let w = v128.load(wp);
      if (capped) w = f32x4.mul(w, f32x4.div(f32x4.splat(1), hsum(w)));
      const jj = load<u64>(jp);
      const lo = <u32>jj, hi = <u32>(jj >>> 32);
      if ((lo & 0xffff) != held) {
        held = lo & 0xffff;
        const m0 = matrix(palette, held);
        h0 = v128.load(m0);
        h1 = v128.load(m0, 16);
        h2 = v128.load(m0, 32);
      }
      const m1 = matrix(palette, lo >>> 16);
      const m2 = matrix(palette, hi & 0xffff), m3 = matrix(palette, hi >>> 16);
      const w0 = lane0(w), w1 = lane1(w), w2 = lane2(w), w3 = lane3(w);
      r0 = madd(v128.load(m3), w3, madd(v128.load(m2), w2, madd(v128.load(m1), w1, f32x4.mul(h0, w0))));
      r1 = madd(v128.load(m3, 16), w3, madd(v128.load(m2, 16), w2, madd(v128.load(m1, 16), w1, f32x4.mul(h1, w0))));
      r2 = madd(v128.load(m3, 32), w3, madd(v128.load(m2, 32), w2, madd(v128.load(m1, 32), w1, f32x4.mul(h2, w0))));
    }
    const q = emit(mode, e3, r0, r1, r2, o, positions, normals, tangents, outPositions, outNormals, outTangents);
    if (bounded) {
      lo = vmin(lo, q);
      hi = vmax(hi, q);
    }
  }
  if (bounded) {
    v128.store(bounds, lo);
    v128.store(bounds, hi, 16);
  }
}

// Any number of used influences (five or more, the exact tail of a
// three-influence part, or none): quads, a pair, a single, each loaded
// exactly, and the flags tested per vertex. Capped sums are divided after
// collapsing. Directions are not renormalized here (see skinVertices).
export function skinAny(
  flags: i32,
  bounds: usize,
  used: i32,
  capped: bool,
  n: u32,
  count: u32,
  palette: usize,
  jp: usize,
  wp: usize,
  o: usize,
  positions: usize,
  normals: usize,
  tangents: usize,
  outPositions: usize,
  outNormals: usize,
  outTangents: usize,
): void {
  const jStride = <usize>n << 1, wStride = <usize>n << 2;
  const end = o + (<usize>count << 4);
  const mode = flags & (NORMALS | TANGENTS);
  const e3 = unitW(count);
  const base = i32x4.splat(<i32>palette);
  let lo = e3, hi = e3;
  if (bounds) {
    lo = v128.load(bounds);
    hi = v128.load(bounds, 16);
  }
  for (; o < end; o += 16, jp += jStride, wp += wStride) {
    let r0 = f32x4.splat(0), r1 = r0, r2 = r0, ws = r0;
    let i = 0;
    let ji = jp, wi = wp;
    for (; i + 4 <= used; i += 4, ji += 8, wi += 16) {
      const w = v128.load(wi);
      const ms = addresses4(ji, base);
      const m0 = <usize>i32x4.extract_lane(ms, 0), m1 = <usize>i32x4.extract_lane(ms, 1);
      const m2 = <usize>i32x4.extract_lane(ms, 2), m3 = <usize>i32x4.extract_lane(ms, 3);
      const w0 = lane0(w), w1 = lane1(w), w2 = lane2(w), w3 = lane3(w);
      r0 = madd(v128.load(m3), w3, madd(v128.load(m2), w2, madd(v128.load(m1), w1, madd(v128.load(m0), w0, r0))));
      r1 = madd(v128.load(m3, 16), w3, madd(v128.load(m2, 16), w2, madd(v128.load(m1, 16), w1, madd(v128.load(m0, 16), w0, r1))));
      r2 = madd(v128.load(m3, 32), w3, madd(v128.load(m2, 32), w2, madd(v128.load(m1, 32), w1, madd(v128.load(m0, 32), w0, r2))));
      ws = f32x4.add(ws, w);
    }
    if (i + 2 <= used) {
      const w = v128.load64_zero(wi);
      const jj = load<u32>(ji);
      const m0 = matrix(palette, jj & 0xffff), m1 = matrix(palette, jj >>> 16);
      const w0 = lane0(w), w1 = lane1(w);
      r0 = madd(v128.load(m1), w1, madd(v128.load(m0), w0, r0));
      r1 = madd(v128.load(m1, 16), w1, madd(v128.load(m0, 16), w0, r1));
      r2 = madd(v128.load(m1, 32), w1, madd(v128.load(m0, 32), w0, r2));
      ws = f32x4.add(ws, w);
      i += 2;
      ji += 4;
      wi += 8;
    }
    if (i < used) {
      const w = v128.load32_zero(wi);
      const w0 = lane0(w);
      const m0 = matrix(palette, load<u16>(ji));
      r0 = madd(v128.load(m0), w0, r0);
      r1 = madd(v128.load(m0, 16), w0, r1);
      r2 = madd(v128.load(m0, 32), w0, r2);
      ws = f32x4.add(ws, w);
    }
    if (capped) {
      const s = f32x4.div(f32x4.splat(1), hsum(ws));
      r0 = f32x4.mul(r0, s);
      r1 = f32x4.mul(r1, s);
      r2 = f32x4.mul(r2, s);
    }
    const q = emit(mode, e3, r0, r1, r2, o, positions, normals, tangents, outPositions, outNormals, outTangents);
    lo = vmin(lo, q);
    hi = vmax(hi, q);
  }
  if (bounds) {
    v128.store(bounds, lo);
    v128.store(bounds, hi, 16);
  }
}
