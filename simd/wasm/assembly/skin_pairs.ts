// Positions of vertices whose first two influences are used, sorted by joint
// pair (as SkinAsset writes them): the pair's columns are held for a run, and
// a position is the weighted sum of its two joints' transforms of it (three
// splats, six multiply-adds, two weight splats, a multiply and a
// multiply-add) instead of collapsing six rows and a transpose-add.

import { madd, vmax, vmin } from "./common";
import { hsum3w, lane0, lane1, lane2, lane3, matrix, runBounds, unitW } from "./skin_common";
import { column } from "./skin_emit";

// `w0 (A p) + w1 (B p)` with A's columns a0..a3 and B's b0..b3; lane 3 is
// the weight sum, not 1: the caller sets it.
// @ts-ignore: decorator
@inline function pairTransform(
  a0: v128, a1: v128, a2: v128, a3: v128,
  b0: v128, b1: v128, b2: v128, b3: v128,
  p: v128, w0: v128, w1: v128,
): v128 {
  const x = lane0(p), y = lane1(p), z = lane2(p);
  const pa = madd(a2, z, madd(a1, y, madd(a0, x, a3)));
  const pb = madd(b2, z, madd(b1, y, madd(b0, x, b3)));
  return madd(pb, w1, f32x4.mul(pa, w0));
}

// The weights of a capped vertex at `wp` divided by their sum.
// @ts-ignore: decorator
@inline export function cappedWeights(wp: usize): v128 {
  const w = v128.load64_zero(wp);
  return f32x4.mul(w, f32x4.div(f32x4.splat(1), f32x4.add(w, i32x4.shuffle(w, w, 1, 0, 3, 2))));
}

// The used weights of two consecutive vertices at `wp`: (w0, w1) of the
// first, then of the second. Uncapped (n is 2) they are adjacent: one load.
// @ts-ignore: decorator
@inline export function weightsOfTwo(capped: bool, wp: usize, wStride: usize): v128 {
  if (!capped) return v128.load(wp);
  return i32x4.shuffle(cappedWeights(wp), cappedWeights(wp + wStride), 0, 1, 4, 5);
}

// One run after another, its vertices two per iteration: one joint-word
// compare and (uncapped) one 16-byte weight load for both, and the held
// columns shared. The bounds of a run are taken from its written positions
// after it (see runBounds).
// @ts-ignore: decorator
@inline function pairRuns(
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
  const jStride = <usize>n << 1, wStride = <usize>n << 2;
  const end = o + (<usize>count << 4);
  while (o < end) {
    const runStart = o;
    const jj = load<u32>(jp);
    // (0 0 0 1) rebuilt per run, not held across it: fewer live values.
    const e3 = unitW(count);
    const m0 = matrix(palette, jj & 0xffff), m1 = matrix(palette, jj >>> 16);
    const r0 = v128.load(m0), r1 = v128.load(m0, 16), r2 = v128.load(m0, 32);
    const a0 = column(r0, r1, r2, e3, 0), a1 = column(r0, r1, r2, e3, 1);
    const a2 = column(r0, r1, r2, e3, 2), a3 = column(r0, r1, r2, e3, 3);
    const s0 = v128.load(m1), s1 = v128.load(m1, 16), s2 = v128.load(m1, 32);
    const b0 = column(s0, s1, s2, e3, 0), b1 = column(s0, s1, s2, e3, 1);
    const b2 = column(s0, s1, s2, e3, 2), b3 = column(s0, s1, s2, e3, 3);
    // Two vertices per iteration while both are in the run: uncapped (n is
    // 2), their joint words are one u64.
    const both = <u64>jj | (<u64>jj << 32);
    for (; o + 16 < end; o += 32, jp += jStride << 1, wp += wStride << 1) {
      if (capped ? load<u32>(jp) != jj || load<u32>(jp + jStride) != jj : load<u64>(jp) != both) break;
      const w = weightsOfTwo(capped, wp, wStride);
      const w0 = lane0(w), w1 = lane1(w), w2 = lane2(w), w3 = lane3(w);
      const p = v128.load(positions + o), q = v128.load(positions + o, 16);
      // Lane 3 is the weight sum there: a position's w is 1, a3's.
      const out0 = i32x4.shuffle(pairTransform(a0, a1, a2, a3, b0, b1, b2, b3, p, w0, w1), a3, 0, 1, 2, 7);
      const out1 = i32x4.shuffle(pairTransform(a0, a1, a2, a3, b0, b1, b2, b3, q, w2, w3), a3, 0, 1, 2, 7);
      v128.store(outPositions + o, out0);
      v128.store(outPositions + o, out1, 16);
    }
    // The run's last vertex, or the first of a pair that leaves it (the
    // next run begins with the vertex after).
    if (o < end && load<u32>(jp) == jj) {
      const w = capped ? cappedWeights(wp) : v128.load64_zero(wp);
      const out = i32x4.shuffle(pairTransform(a0, a1, a2, a3, b0, b1, b2, b3, v128.load(positions + o), lane0(w), lane1(w)), a3, 0, 1, 2, 7);
      v128.store(outPositions + o, out);
      o += 16;
      jp += jStride;
      wp += wStride;
    }
    if (bounded) runBounds(bounds, outPositions + runStart, outPositions + o);
  }
}

// Positions of `count` two-influence vertices on runs of a joint pair
// (sorted as SkinAsset writes them), as a function of its own: V8
// allocates registers per function (see skinRigidPositions); vertices
// without runs take skinPairRows, a function of their own too (in one
// function with them this loop measured 1.15x slower). `capped` as in
// skinRun; `bounds` 0 for none, and with both dispatched to constants each
// of the four loops is compiled on its own.
export function skinPairPositions(
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
  if (bounds && capped) pairRuns(true, true, bounds, n, count, palette, jp, wp, o, positions, outPositions);
  else if (bounds) pairRuns(true, false, bounds, n, count, palette, jp, wp, o, positions, outPositions);
  else if (capped) pairRuns(false, true, 0, n, count, palette, jp, wp, o, positions, outPositions);
  else pairRuns(false, false, 0, n, count, palette, jp, wp, o, positions, outPositions);
}

// Whether the first (up to) 64 of `count` vertices change joint pair at
// most every fourth vertex on average (see runsOfJoints). One function of
// both with a flag made V8 compile skinVertices' row loops for unsorted
// parts 1.2-1.3x slower (measured; code generation, not this loop).
export function runsOfPairs(jp: usize, jStride: usize, count: u32): bool {
  const sample = min(count, 64);
  let changes: u32 = 0;
  let previous = load<u32>(jp);
  // Stops once the answer is no: parts without runs (1,024 x 2) pay for
  // about 17 vertices, not 64, per call.
  for (let v: u32 = 1; v < sample && changes * 4 <= sample; v++) {
    const j = load<u32>(jp + <usize>v * jStride);
    changes += <u32>(j != previous);
    previous = j;
  }
  return changes * 4 <= sample;
}
