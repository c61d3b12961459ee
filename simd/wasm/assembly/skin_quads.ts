// Positions of vertices whose first four influences are used, as a function
// of its own (V8 allocates registers per function, see skinRigidPositions).
// SkinAsset sorts vertices by joints, so the first joint's rows are held
// while consecutive vertices share it (at 100,000 random vertices over 64
// joints, runs of about 1,500): three row loads per vertex fewer. The rows
// are dotted with the position's weighted copies, `sum_i M_i,r . (w_i q)`,
// then one transpose-add.

import { madd, vmax, vmin } from "./common";
import { hsum, hsum3w, lane0, lane1, lane2, lane3, matrix, unitW } from "./skin_common";

// `count` vertices of `n` stored influences (n is 4 when not `capped`).
// @ts-ignore: decorator
@inline function quadPositions(
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
  const jStride: usize = capped ? <usize>n << 1 : 8, wStride: usize = capped ? <usize>n << 2 : 16;
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
  for (; o < end; o += 16, jp += jStride, wp += wStride) {
    const jj = load<u64>(jp);
    const j01 = <u32>jj, j23 = <u32>(jj >>> 32);
    if ((j01 & 0xffff) != held) {
      held = j01 & 0xffff;
      const m = matrix(palette, held);
      a0 = v128.load(m);
      a1 = v128.load(m, 16);
      a2 = v128.load(m, 32);
    }
    let w = v128.load(wp);
    if (capped) w = f32x4.mul(w, f32x4.div(f32x4.splat(1), hsum(w)));
    const q = i32x4.shuffle(v128.load(positions + o), e3, 0, 1, 2, 7);
    const u0 = f32x4.mul(q, lane0(w)), u1 = f32x4.mul(q, lane1(w));
    const u2 = f32x4.mul(q, lane2(w)), u3 = f32x4.mul(q, lane3(w));
    const m1 = matrix(palette, j01 >>> 16);
    const m2 = matrix(palette, j23 & 0xffff), m3 = matrix(palette, j23 >>> 16);
    const out = hsum3w(
      madd(v128.load(m3), u3, madd(v128.load(m2), u2, madd(v128.load(m1), u1, f32x4.mul(a0, u0)))),
      madd(v128.load(m3, 16), u3, madd(v128.load(m2, 16), u2, madd(v128.load(m1, 16), u1, f32x4.mul(a1, u0)))),
      madd(v128.load(m3, 32), u3, madd(v128.load(m2, 32), u2, madd(v128.load(m1, 32), u1, f32x4.mul(a2, u0)))),
      e3,
    );
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

// Positions of `count` vertices whose first four influences are used, in
// any order; `capped` (n > 4) divides the weights by their sum; `bounds` 0
// for none.
export function skinQuadPositions(
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
  if (bounds && capped) quadPositions(true, true, bounds, n, count, palette, jp, wp, o, positions, outPositions);
  else if (bounds) quadPositions(true, false, bounds, n, count, palette, jp, wp, o, positions, outPositions);
  else if (capped) quadPositions(false, true, 0, n, count, palette, jp, wp, o, positions, outPositions);
  else quadPositions(false, false, 0, n, count, palette, jp, wp, o, positions, outPositions);
}
