// Positions of vertices whose first two influences are used, without runs
// of a joint pair (see skin_pairs.ts for runs): 1,024 random vertices over
// 64 joints have 4,096 possible pairs. The joints' rows are dotted with the
// position's weighted copies; SkinAsset sorts vertices by joints, so the
// first joint still comes in runs (about 16 vertices there) and its rows are
// held while it repeats.

import { madd, vmax, vmin } from "./common";
import { cappedWeights, weightsOfTwo } from "./skin_pairs";
import { hsum3w, lane0, lane1, lane2, lane3, matrix, unitW } from "./skin_common";

// One vertex of pairRows: (w0 A + w1 B) q as rows dotted with q's weighted
// copies, `A_r . (q w0) + B_r . (q w1)`, then one transpose-add: two
// products fewer than collapsing the rows first. A's rows a0..a2 are held.
// @ts-ignore: decorator
@inline function pairRow(a0: v128, a1: v128, a2: v128, m1: usize, q: v128, w0: v128, w1: v128, e3: v128): v128 {
  const u = f32x4.mul(q, w0), v = f32x4.mul(q, w1);
  return hsum3w(
    madd(v128.load(m1), v, f32x4.mul(a0, u)),
    madd(v128.load(m1, 16), v, f32x4.mul(a1, u)),
    madd(v128.load(m1, 32), v, f32x4.mul(a2, u)),
    e3,
  );
}

// Positions of `count` two-influence vertices without runs of a joint pair
// (1,024 random vertices over 64 joints: 4,096 possible pairs), two
// vertices per iteration (uncapped, one u64 joint load and one 16-byte
// weight load for both). SkinAsset sorts vertices by joints, so the first
// joint still comes in runs (about 16 vertices there): its rows are held
// while it repeats, three row loads per vertex fewer (1.92 -> 1.70 ns).
// @ts-ignore: decorator
@inline function pairRows(
  bounded: bool,
  capped: bool,
  bounds: usize,
  n: u32,
  count: u32,
  palette: usize,
  jp: usize,
  wp: usize,
  o: usize,
  positions: usize,
  outPositions: usize,
): void {
  // Uncapped, the strides are constants: two registers V8 need not hold.
  const jStride: usize = capped ? <usize>n << 1 : 4, wStride: usize = capped ? <usize>n << 2 : 8;
  const end = o + (<usize>count << 4);
  const e3 = unitW(count);
  let lo = e3, hi = e3;
  if (bounded) {
    lo = v128.load(bounds);
    hi = v128.load(bounds, 16);
  }
  // No joint index is 0x10000: the first vertex loads its rows.
  let held: u32 = 0x10000;
  let a0 = e3, a1 = e3, a2 = e3;
  for (; o + 16 < end; o += 32, jp += jStride << 1, wp += wStride << 1) {
    let ja: u32, jb: u32;
    if (capped) {
      ja = load<u32>(jp);
      jb = load<u32>(jp + jStride);
    } else {
      const jj = load<u64>(jp);
      ja = <u32>jj;
      jb = <u32>(jj >>> 32);
    }
    const w = weightsOfTwo(capped, wp, wStride);
    const p = i32x4.shuffle(v128.load(positions + o), e3, 0, 1, 2, 7);
    const q = i32x4.shuffle(v128.load(positions + o, 16), e3, 0, 1, 2, 7);
    if ((ja & 0xffff) != held) {
      held = ja & 0xffff;
      const m = matrix(palette, held);
      a0 = v128.load(m);
      a1 = v128.load(m, 16);
      a2 = v128.load(m, 32);
    }
    const out0 = pairRow(a0, a1, a2, matrix(palette, ja >>> 16), p, lane0(w), lane1(w), e3);
    v128.store(outPositions + o, out0);
    if ((jb & 0xffff) != held) {
      held = jb & 0xffff;
      const m = matrix(palette, held);
      a0 = v128.load(m);
      a1 = v128.load(m, 16);
      a2 = v128.load(m, 32);
    }
    const out1 = pairRow(a0, a1, a2, matrix(palette, jb >>> 16), q, lane2(w), lane3(w), e3);
    v128.store(outPositions + o, out1, 16);
    if (bounded) {
      lo = vmin(lo, vmin(out0, out1));
      hi = vmax(hi, vmax(out0, out1));
    }
  }
  if (o < end) {
    const jj = load<u32>(jp);
    const w = capped ? cappedWeights(wp) : v128.load64_zero(wp);
    const p = i32x4.shuffle(v128.load(positions + o), e3, 0, 1, 2, 7);
    const m = matrix(palette, jj & 0xffff);
    const out = pairRow(v128.load(m), v128.load(m, 16), v128.load(m, 32), matrix(palette, jj >>> 16), p, lane0(w), lane1(w), e3);
    v128.store(outPositions + o, out);
    if (bounded) {
      lo = vmin(lo, out);
      hi = vmax(hi, out);
    }
  }
  if (bounded) {
    v128.store(bounds, lo);
    v128.store(bounds, hi, 16);
  }
}

// Positions of `count` two-influence vertices in any order, as a function
// of its own (see skinPairPositions); `capped` as in skinRun, `bounds` 0 for
// none, both dispatched to constants.
export function skinPairRows(
  bounds: usize,
  capped: bool,
  n: u32,
  count: u32,
  palette: usize,
  jp: usize,
  wp: usize,
  o: usize,
  positions: usize,
  outPositions: usize,
): void {
  if (bounds && capped) pairRows(true, true, bounds, n, count, palette, jp, wp, o, positions, outPositions);
  else if (bounds) pairRows(true, false, bounds, n, count, palette, jp, wp, o, positions, outPositions);
  else if (capped) pairRows(false, true, 0, n, count, palette, jp, wp, o, positions, outPositions);
  else pairRows(false, false, 0, n, count, palette, jp, wp, o, positions, outPositions);
}
