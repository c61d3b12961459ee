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
import { matrix, unitW } from "./skin_common";
import { emitColumns } from "./skin_emit";

// `count` vertices, the joint of each the first of its `n` (u16) at `jp`.
// @ts-ignore: decorator
@inline export function skinRigid(
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
      const m = matrix(palette, j);
      const r0 = v128.load(m), r1 = v128.load(m, 16), r2 = v128.load(m, 32);
      const t0 = i32x4.shuffle(r0, r1, 0, 4, 1, 5);
      const t1 = i32x4.shuffle(r0, r1, 2, 6, 3, 7);
      const t2 = i32x4.shuffle(r2, e3, 0, 4, 1, 5);
      const t3 = i32x4.shuffle(r2, e3, 2, 6, 3, 7);
      c0 = i32x4.shuffle(t0, t2, 0, 1, 4, 5);
      c1 = i32x4.shuffle(t0, t2, 2, 3, 6, 7);
      c2 = i32x4.shuffle(t1, t3, 0, 1, 4, 5);
      c3 = i32x4.shuffle(t1, t3, 2, 3, 6, 7);
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
