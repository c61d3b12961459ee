// Positions of two-influence vertices without runs of a joint pair (see
// skin_pair_rows.ts) from the palette transposed once per call into
// columns (paper 003's layout): a joint's transform of a position is then
// three splats shared by both joints and three multiply-adds, where rows
// need their products and a transpose-add per vertex. Four vertices per
// iteration; the first joint's columns are held while it repeats.
// 1,024 x 2: 1.71 -> 1.34 ns per vertex in a probe (rows at two vertices
// per iteration; columns at two: 1.52).

import { JOINT_COLUMN_BYTES } from "./abi";
import { madd, vmax, vmin } from "./common";
import { cappedWeights } from "./skin_pairs";
import { lane0, lane1, lane2, lane3, unitW } from "./skin_common";
import { column } from "./skin_emit";

// Byte address of joint `joint`'s columns.
// @ts-ignore: decorator
@inline function columnsOf(base: usize, joint: u32): usize {
  return base + <usize>joint * JOINT_COLUMN_BYTES;
}

/**
 * Writes joints 0..count-1 of the palette at `palette` (3x4 rows) as
 * columns at `columns`: per joint the rotation's three columns and the
 * translation, lane 3 zero in all four.
 */
export function transposePalette(palette: usize, count: u32, columns: usize): void {
  const zero = f32x4.splat(0);
  for (let j: u32 = 0; j < count; j++) {
    const m = palette + <usize>j * 48, c = columnsOf(columns, j);
    const r0 = v128.load(m), r1 = v128.load(m, 16), r2 = v128.load(m, 32);
    v128.store(c, column(r0, r1, r2, zero, 0));
    v128.store(c, column(r0, r1, r2, zero, 1), 16);
    v128.store(c, column(r0, r1, r2, zero, 2), 32);
    v128.store(c, column(r0, r1, r2, zero, 3), 48);
  }
}

// `e3 + w0 (A p) + w1 (B p)`: A's columns a0..a3 held, B's at `b`. The
// columns' lane 3 is zero, so w comes out as exactly 1.
// @ts-ignore: decorator
@inline function pairColumns(
  a0: v128, a1: v128, a2: v128, a3: v128,
  b: usize, p: v128, w0: v128, w1: v128, e3: v128,
): v128 {
  const x = lane0(p), y = lane1(p), z = lane2(p);
  const pa = madd(a2, z, madd(a1, y, madd(a0, x, a3)));
  const pb = madd(v128.load(b, 32), z, madd(v128.load(b, 16), y, madd(v128.load(b), x, v128.load(b, 48))));
  return madd(pb, w1, madd(pa, w0, e3));
}

// @ts-ignore: decorator
@inline function pairColumnLoop(
  bounded: bool,
  capped: bool,
  bounds: usize,
  n: u32,
  count: u32,
  columns: usize,
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
  // No joint index is 0x10000: the first vertex loads its columns.
  let held: u32 = 0x10000;
  let a0 = e3, a1 = e3, a2 = e3, a3 = e3;
  for (; o + 48 < end; o += 64, jp += jStride << 2, wp += wStride << 2) {
    let j0: u32, j1: u32, j2: u32, j3: u32, w: v128, v: v128;
    if (capped) {
      j0 = load<u32>(jp);
      j1 = load<u32>(jp + jStride);
      j2 = load<u32>(jp + jStride * 2);
      j3 = load<u32>(jp + jStride * 3);
      w = i32x4.shuffle(cappedWeights(wp), cappedWeights(wp + wStride), 0, 1, 4, 5);
      v = i32x4.shuffle(cappedWeights(wp + wStride * 2), cappedWeights(wp + wStride * 3), 0, 1, 4, 5);
    } else {
      const jj = load<u64>(jp), kk = load<u64>(jp, 8);
      j0 = <u32>jj;
      j1 = <u32>(jj >>> 32);
      j2 = <u32>kk;
      j3 = <u32>(kk >>> 32);
      w = v128.load(wp);
      v = v128.load(wp, 16);
    }
    if ((j0 & 0xffff) != held) {
      held = j0 & 0xffff;
      const c = columnsOf(columns, held);
      a0 = v128.load(c); a1 = v128.load(c, 16); a2 = v128.load(c, 32); a3 = v128.load(c, 48);
    }
    const out0 = pairColumns(a0, a1, a2, a3, columnsOf(columns, j0 >>> 16), v128.load(positions + o), lane0(w), lane1(w), e3);
    v128.store(outPositions + o, out0);
    if ((j1 & 0xffff) != held) {
      held = j1 & 0xffff;
      const c = columnsOf(columns, held);
      a0 = v128.load(c); a1 = v128.load(c, 16); a2 = v128.load(c, 32); a3 = v128.load(c, 48);
    }
    const out1 = pairColumns(a0, a1, a2, a3, columnsOf(columns, j1 >>> 16), v128.load(positions + o, 16), lane2(w), lane3(w), e3);
    v128.store(outPositions + o, out1, 16);
    if ((j2 & 0xffff) != held) {
      held = j2 & 0xffff;
      const c = columnsOf(columns, held);
      a0 = v128.load(c); a1 = v128.load(c, 16); a2 = v128.load(c, 32); a3 = v128.load(c, 48);
    }
    const out2 = pairColumns(a0, a1, a2, a3, columnsOf(columns, j2 >>> 16), v128.load(positions + o, 32), lane0(v), lane1(v), e3);
    v128.store(outPositions + o, out2, 32);
    if ((j3 & 0xffff) != held) {
      held = j3 & 0xffff;
      const c = columnsOf(columns, held);
      a0 = v128.load(c); a1 = v128.load(c, 16); a2 = v128.load(c, 32); a3 = v128.load(c, 48);
    }
    const out3 = pairColumns(a0, a1, a2, a3, columnsOf(columns, j3 >>> 16), v128.load(positions + o, 48), lane2(v), lane3(v), e3);
    v128.store(outPositions + o, out3, 48);
    if (bounded) {
      // One bound update per four vertices keeps the min/max chain short.
      lo = vmin(lo, vmin(vmin(out0, out1), vmin(out2, out3)));
      hi = vmax(hi, vmax(vmax(out0, out1), vmax(out2, out3)));
    }
  }
  for (; o < end; o += 16, jp += jStride, wp += wStride) {
    const jj = load<u32>(jp);
    const w = capped ? cappedWeights(wp) : v128.load64_zero(wp);
    const c = columnsOf(columns, jj & 0xffff);
    const out = pairColumns(
      v128.load(c), v128.load(c, 16), v128.load(c, 32), v128.load(c, 48),
      columnsOf(columns, jj >>> 16), v128.load(positions + o), lane0(w), lane1(w), e3,
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

// Positions of `count` two-influence vertices in any order from the
// transposed palette at `columns`, as a function of its own (V8 allocates
// registers per function, see skinRigidPositions); `capped` as in skinRun,
// `bounds` 0 for none, both dispatched to constants.
export function skinPairColumns(
  bounds: usize,
  capped: bool,
  n: u32,
  count: u32,
  columns: usize,
  jp: usize,
  wp: usize,
  o: usize,
  positions: usize,
  outPositions: usize,
): void {
  if (bounds && capped) pairColumnLoop(true, true, bounds, n, count, columns, jp, wp, o, positions, outPositions);
  else if (bounds) pairColumnLoop(true, false, bounds, n, count, columns, jp, wp, o, positions, outPositions);
  else if (capped) pairColumnLoop(false, true, 0, n, count, columns, jp, wp, o, positions, outPositions);
  else pairColumnLoop(false, false, 0, n, count, columns, jp, wp, o, positions, outPositions);
}
