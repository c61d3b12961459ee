// Rigid skinning: vertices with one used influence follow their joint's
// palette matrix as is (no weight work; see reference.ts). SkinAsset sorts
// them by joint, so this loop transposes a joint's matrix into columns once
// per run of vertices sharing it and keeps them in registers: a position
// then costs three splats and three multiply-adds, no matrix load, where
// the row form costs three loads, three products and a transpose-add.
// Unsorted vertices (a raw SkinMesh) take skinRun's row form: a transpose
// per vertex measured 1.25x it. More held state (rows and columns, or two
// pairs of bound accumulators) made V8 spill and lost.

import { vmax, vmin } from "./common";
import { NORMALS, TANGENTS, unitW } from "./skin_common";
import { column, emitColumns } from "./skin_emit";

// `count` vertices, the joint of each the first of its `n` (u16) at `jp`;
// joint j's rows at `palette + j * stride` (48: a palette; 96: the palette
// rows of a dual-quaternion table, 48 bytes on). One run after another:
// the run's joint matrix turned into columns once, then four vertices per
// iteration while all four are in the run (one u64 joint compare for the
// four when n is 1), then one at a time to the run's end. One vertex per
// iteration ran the SIMD128 build at 1.5x its copy baseline whatever its
// arithmetic (a tree of adds, broadcast loads: no change), two per
// iteration at 1.05x, four at 0.8x; relaxed SIMD 0.9x -> 0.7x. With
// normals and tangents, four per iteration too (Xbot's frame with normals
// is mostly this loop). The bounds' min/max chain takes one step per four
// vertices (with one step per two it cost 35 %; from the written positions
// after each run, 90 %).
// @ts-ignore: decorator
@inline function rigidRuns(
  stride: usize,
  mode: i32,
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
  const one = n == 1;
  let lo = f32x4.splat(0), hi = lo;
  if (bounded) {
    lo = v128.load(bounds);
    hi = v128.load(bounds, 16);
  }
  while (o < end) {
    const j = <u32>load<u16>(jp);
    const e3 = unitW(count);
    const m = palette + <usize>j * stride;
    const r0 = v128.load(m), r1 = v128.load(m, 16), r2 = v128.load(m, 32);
    const c0 = column(r0, r1, r2, e3, 0), c1 = column(r0, r1, r2, e3, 1);
    const c2 = column(r0, r1, r2, e3, 2), c3 = column(r0, r1, r2, e3, 3);
    const both = <u64>(j | (j << 16)), four = both | (both << 32);
    for (; o + 48 < end; o += 64, jp += jStride << 2) {
      if (one) {
        if (load<u64>(jp) != four) break;
      } else if (
        <u32>load<u16>(jp) != j || <u32>load<u16>(jp + jStride) != j ||
        <u32>load<u16>(jp + jStride * 2) != j || <u32>load<u16>(jp + jStride * 3) != j
      ) {
        break;
      }
      const q0 = emitColumns(mode, c0, c1, c2, c3, o, positions, normals, tangents, outPositions, outNormals, outTangents);
      const q1 = emitColumns(mode, c0, c1, c2, c3, o + 16, positions, normals, tangents, outPositions, outNormals, outTangents);
      const q2 = emitColumns(mode, c0, c1, c2, c3, o + 32, positions, normals, tangents, outPositions, outNormals, outTangents);
      const q3 = emitColumns(mode, c0, c1, c2, c3, o + 48, positions, normals, tangents, outPositions, outNormals, outTangents);
      if (bounded) {
        lo = vmin(lo, vmin(vmin(q0, q1), vmin(q2, q3)));
        hi = vmax(hi, vmax(vmax(q0, q1), vmax(q2, q3)));
      }
    }
    for (; o < end && <u32>load<u16>(jp) == j; o += 16, jp += jStride) {
      const q = emitColumns(mode, c0, c1, c2, c3, o, positions, normals, tangents, outPositions, outNormals, outTangents);
      if (bounded) {
        lo = vmin(lo, q);
        hi = vmax(hi, q);
      }
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

// Rigid positions, as a function of its own: V8 allocates registers per
// function, and inlined among skinVertices' other loops the same loop
// measured 1.25x slower.
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
    rigidRuns(stride, 0, true, bounds, n, count, palette, jp, o, positions, 0, 0, outPositions, 0, 0);
  } else {
    rigidRuns(stride, 0, false, 0, n, count, palette, jp, o, positions, 0, 0, outPositions, 0, 0);
  }
}

// Rigid positions with normals, tangents or both (`mode`, not 0), as a
// function of its own like skinRigidPositions; `mode` and `bounds`
// dispatched to constants.
export function skinRigidDirections(
  mode: i32,
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
  if (mode == NORMALS) {
    if (bounds) rigidRuns(48, NORMALS, true, bounds, n, count, palette, jp, o, positions, normals, tangents, outPositions, outNormals, outTangents);
    else rigidRuns(48, NORMALS, false, 0, n, count, palette, jp, o, positions, normals, tangents, outPositions, outNormals, outTangents);
  } else if (mode == TANGENTS) {
    if (bounds) rigidRuns(48, TANGENTS, true, bounds, n, count, palette, jp, o, positions, normals, tangents, outPositions, outNormals, outTangents);
    else rigidRuns(48, TANGENTS, false, 0, n, count, palette, jp, o, positions, normals, tangents, outPositions, outNormals, outTangents);
  } else if (bounds) {
    rigidRuns(48, NORMALS | TANGENTS, true, bounds, n, count, palette, jp, o, positions, normals, tangents, outPositions, outNormals, outTangents);
  } else {
    rigidRuns(48, NORMALS | TANGENTS, false, 0, n, count, palette, jp, o, positions, normals, tangents, outPositions, outNormals, outTangents);
  }
}
