// Rigid skinning: vertices with one used influence follow their joint's
// palette matrix as is (no weight work; see reference.ts). SkinAsset sorts
// them by joint, so this loop transposes a joint's matrix into columns once
// per run of vertices sharing it and keeps them in registers: a position
// then costs three splats and three multiply-adds, no matrix load, where
// the row form costs three loads, three products and a transpose-add.
// Unsorted vertices (a raw SkinMesh) take skinRun's row form: a transpose
// per vertex measured 1.25x it. More held state (rows and columns, or two
// pairs of bound accumulators) made V8 spill and lost.

import { madd, vmax, vmin } from "./common";
import { lane0, lane1, lane2, matrix, unitW } from "./skin_common";
import { column, emitColumns } from "./skin_emit";

// `count` vertices, the joint of each the first of its `n` (u16) at `jp`;
// joint j's rows at `palette + j * stride` (48: a palette; 96: the palette
// rows of a dual-quaternion table, 48 bytes on).
// @ts-ignore: decorator
@inline export function skinRigid(
  stride: usize,
  mode: i32,
  renormalize: bool,
  bounded: bool,
  bounds: usize,
  n: u32,
  count: u32,
  palette: usize,
  jp: usize,
  o: usize,
  positions: usize,
  normals: usize,
  tangents: usize,
  outPositions: usize,
  outNormals: usize,
  outTangents: usize,
): void {
  const jStride = <usize>n << 1;
  const end = o + (<usize>count << 4);
  const e3 = unitW(count);
  let lo = e3, hi = e3;
  if (bounded) {
    lo = v128.load(bounds);
    hi = v128.load(bounds, 16);
  }
  let c0 = e3, c1 = e3, c2 = e3, c3 = e3;
  // The joint whose columns are held; no joint index is 0x10000.
  let held: u32 = 0x10000;
  for (; o < end; o += 16, jp += jStride) {
    const j = <u32>load<u16>(jp);
    if (j != held) {
      held = j;
      const m = palette + <usize>j * stride;
      const r0 = v128.load(m), r1 = v128.load(m, 16), r2 = v128.load(m, 32);
      c0 = column(r0, r1, r2, e3, 0);
      c1 = column(r0, r1, r2, e3, 1);
      c2 = column(r0, r1, r2, e3, 2);
      c3 = column(r0, r1, r2, e3, 3);
    }
    const q = emitColumns(mode, renormalize, c0, c1, c2, c3, o, positions, normals, tangents, outPositions, outNormals, outTangents);
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

// Whether the first (up to) 64 of `count` vertices change joint at most
// every fourth vertex on average: sorted by joint, as SkinAsset writes
// them, where skinRigid wins; unsorted, the row loop of skinRun wins.
export function runsOfJoints(jp: usize, jStride: usize, count: u32): bool {
  const sample = min(count, 64);
  let changes: u32 = 0;
  let previous = <u32>load<u16>(jp);
  for (let v: u32 = 1; v < sample; v++) {
    const j = <u32>load<u16>(jp + <usize>v * jStride);
    changes += <u32>(j != previous);
    previous = j;
  }
  return changes * 4 <= sample;
}

// Positions of `count` vertices whose first two influences are used, sorted
// by joint pair: the pair's columns are held for a run, and a position is
// the weighted sum of its two joints' transforms of it (three splats, six
// multiply-adds, two weight splats, a multiply and a multiply-add) instead
// of collapsing six rows and a transpose-add. `capped` as in skinRun.
// @ts-ignore: decorator
@inline export function skinPairs(
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
  outPositions: usize,
): void {
  const jStride = <usize>n << 1, wStride = <usize>n << 2;
  const end = o + (<usize>count << 4);
  // Few values live across iterations (eight columns and the bounds), or V8
  // spills: (0 0 0 1) is rebuilt where the columns are.
  let lo = f32x4.splat(0), hi = lo;
  if (bounded) {
    lo = v128.load(bounds);
    hi = v128.load(bounds, 16);
  }
  let a0 = lo, a1 = lo, a2 = lo, a3 = lo, b0 = lo, b1 = lo, b2 = lo, b3 = lo;
  // Two u16 joints in one word: no pair is 0xffffffff (joints are < 0xffff).
  let held: u32 = 0xffffffff;
  for (; o < end; o += 16, jp += jStride, wp += wStride) {
    const jj = load<u32>(jp);
    if (jj != held) {
      held = jj;
      const e3 = unitW(count);
      const m0 = matrix(palette, jj & 0xffff), m1 = matrix(palette, jj >>> 16);
      const r0 = v128.load(m0), r1 = v128.load(m0, 16), r2 = v128.load(m0, 32);
      a0 = column(r0, r1, r2, e3, 0);
      a1 = column(r0, r1, r2, e3, 1);
      a2 = column(r0, r1, r2, e3, 2);
      a3 = column(r0, r1, r2, e3, 3);
      const s0 = v128.load(m1), s1 = v128.load(m1, 16), s2 = v128.load(m1, 32);
      b0 = column(s0, s1, s2, e3, 0);
      b1 = column(s0, s1, s2, e3, 1);
      b2 = column(s0, s1, s2, e3, 2);
      b3 = column(s0, s1, s2, e3, 3);
    }
    let w = v128.load64_zero(wp);
    if (capped) {
      w = f32x4.mul(w, f32x4.div(f32x4.splat(1), f32x4.add(w, i32x4.shuffle(w, w, 1, 0, 3, 2))));
    }
    const p = v128.load(positions + o);
    const x = lane0(p), y = lane1(p), z = lane2(p);
    const pa = madd(a2, z, madd(a1, y, madd(a0, x, a3)));
    const pb = madd(b2, z, madd(b1, y, madd(b0, x, b3)));
    const q = madd(pb, lane1(w), f32x4.mul(pa, lane0(w)));
    // w is the weight sum there: the position's w is 1, a3's.
    const out = i32x4.shuffle(q, a3, 0, 1, 2, 7);
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

// Whether the first (up to) 64 of `count` vertices change joint pair at
// most every fourth vertex on average (see runsOfJoints). One function of
// both with a flag made V8 compile skinVertices' row loops for unsorted
// parts 1.2-1.3x slower (measured; code generation, not this loop).
export function runsOfPairs(jp: usize, jStride: usize, count: u32): bool {
  const sample = min(count, 64);
  let changes: u32 = 0;
  let previous = load<u32>(jp);
  for (let v: u32 = 1; v < sample; v++) {
    const j = load<u32>(jp + <usize>v * jStride);
    changes += <u32>(j != previous);
    previous = j;
  }
  return changes * 4 <= sample;
}

// skinRigid for positions only, as a function of its own: V8 allocates
// registers per function, and inlined among skinVertices' other loops the
// same loop measured 1.25x slower.
export function skinRigidPositions(
  stride: usize,
  bounds: usize,
  n: u32,
  count: u32,
  palette: usize,
  jp: usize,
  o: usize,
  positions: usize,
  outPositions: usize,
): void {
  if (bounds) {
    skinRigid(stride, 0, false, true, bounds, n, count, palette, jp, o, positions, 0, 0, outPositions, 0, 0);
  } else {
    skinRigid(stride, 0, false, false, 0, n, count, palette, jp, o, positions, 0, 0, outPositions, 0, 0);
  }
}
