// The entry points of collapsed-palette skinning (skinning.ts holds the
// loops): per part, the influence count, stream mode and bounds are
// dispatched to constants so each specialised loop is compiled separately.

import {
  JOB_BYTES, SKIN_BOUNDS_BYTES, SKIN_COLUMNS, SKIN_FLAGS, SKIN_JOINT_COUNT, SKIN_JOINTS, SKIN_NORMALS_IN,
  SKIN_OUT_NORMALS, SKIN_OUT_POSITIONS, SKIN_OUT_TANGENTS, SKIN_PALETTE, SKIN_PART_COUNT, SKIN_PARTS,
  SKIN_POSITIONS, SKIN_TANGENTS_IN, SKIN_WEIGHTS,
} from "./abi";
import { field } from "./common";
import { NORMALS, RENORMALIZE, renormalizeDirections, TANGENTS } from "./skin_common";
import { skinAny, skinPart } from "./skinning";
import { transposePalette } from "./skin_pair_columns";
import { runsOfPairs } from "./skin_pairs";
import { skinDualQuaternions } from "./skin_dq";

// One part, its `mode` dispatched to a constant.
// @ts-ignore: decorator
@inline function skinModes(
  bounded: bool,
  mode: i32,
  bounds: usize,
  used: i32,
  capped: bool,
  n: u32,
  count: u32,
  palette: usize,
  columns: usize,
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
  if (mode == 0) {
    skinPart(0, bounded, bounds, used, capped, n, count, palette, columns, jp, wp, o, positions, normals, tangents, outPositions, outNormals, outTangents);
  } else if (mode == NORMALS) {
    skinPart(NORMALS, bounded, bounds, used, capped, n, count, palette, columns, jp, wp, o, positions, normals, tangents, outPositions, outNormals, outTangents);
  } else if (mode == TANGENTS) {
    skinPart(TANGENTS, bounded, bounds, used, capped, n, count, palette, columns, jp, wp, o, positions, normals, tangents, outPositions, outNormals, outTangents);
  } else {
    skinPart(NORMALS | TANGENTS, bounded, bounds, used, capped, n, count, palette, columns, jp, wp, o, positions, normals, tangents, outPositions, outNormals, outTangents);
  }
}

/**
 * Collapsed-palette skinning. `parts` holds `partCount` pairs of `u32`
 * (influences per vertex, vertex count); joints (`u16`) and weights (`f32`)
 * are stored vertex by vertex, parts one after another. Per vertex
 * `C = sum w * palette[j]` over the first `min(n, maxInfluences)`
 * influences (divided by their weight sum when capped), `p' = C * p`, and
 * per `flags` `n' = C.rot * n`, `t' = (C.rot * t.xyz, t.w)`, renormalized
 * on request. With `bounds` not 0, the 32 bytes there receive the
 * component-wise minimum and maximum of the written positions (w included),
 * kept in registers while the loops run; +inf / -inf with no vertex.
 * `columns` (0 for none) is scratch for `jointCount` joints of
 * `JOINT_COLUMN_BYTES` each, which the kernel may fill with the palette
 * transposed (joints 0..jointCount-1, every joint the mesh uses) when the
 * loops that read columns have enough vertices to pay for it.
 */
export function skinVertices(
  palette: usize,
  parts: usize,
  partCount: i32,
  joints: usize,
  weights: usize,
  positions: usize,
  normals: usize,
  tangents: usize,
  outPositions: usize,
  outNormals: usize,
  outTangents: usize,
  flags: i32,
  maxInfluences: i32,
  bounds: usize,
  columns: usize,
  jointCount: u32,
): void {
  if (bounds) {
    // (+inf, +inf, +inf, +inf) and its negation: empty until a vertex lands.
    const inf = f32x4.splat(Infinity);
    v128.store(bounds, inf);
    v128.store(bounds, f32x4.neg(inf), 16);
  }
  // The three-influence loop reads one influence past each vertex; it may
  // do so up to the last influence of the last part.
  let total: u64 = 0;
  const mode = flags & (NORMALS | TANGENTS);
  // Vertices that would read the palette transposed: positions-only parts
  // of two used influences without runs of a joint pair.
  let columnVertices: u64 = 0;
  for (let p = 0; p < partCount; p++) {
    const pp = parts + (<usize>p << 3);
    const n = load<u32>(pp), count = load<u32>(pp, 4);
    if (columns && mode == 0 && count != 0 && min(<i64>n, <i64>maxInfluences) == 2) {
      if (!runsOfPairs(joints + <usize>(total << 1), <usize>n << 1, count)) columnVertices += count;
    }
    total += <u64>n * <u64>count;
  }
  // Transposing costs about three vertices' savings per joint.
  if (columnVertices >= (<u64>jointCount << 2)) transposePalette(palette, jointCount, columns);
  else columns = 0;
  // Directions are renormalized after skinning, four at a time, in chunks
  // that stay in L1: the loops write them unnormalized.
  const renormalize = (flags & RENORMALIZE) != 0 && mode != 0;
  const skinFlags = flags & ~RENORMALIZE;
  let k: u64 = 0;
  let o: usize = 0;
  for (let p = 0; p < partCount; p++) {
    const pp = parts + (<usize>p << 3);
    const n = load<u32>(pp);
    const count = load<u32>(pp, 4);
    const used = <i32>min(<i64>n, <i64>maxInfluences);
    const capped = <i64>used < <i64>n;
    const first = k, start = o;
    k += <u64>n * <u64>count;
    o += <usize>count << 4;
    const chunk = renormalize ? RENORMALIZE_CHUNK : count;
    for (let c: u32 = 0; c < count; c += chunk) {
      const m = min(chunk, count - c);
      const at = first + <u64>c * <u64>n, co = start + (<usize>c << 4);
      skinRange(
        skinFlags, mode, bounds, used, capped, n, m, palette, columns,
        joints + <usize>(at << 1), weights + <usize>(at << 2), co, at + <u64>m * <u64>n, total,
        positions, normals, tangents, outPositions, outNormals, outTangents,
      );
      if (renormalize && (mode & NORMALS)) renormalizeDirections(false, outNormals + co, m);
      // Tangents keep their handedness in w.
      if (renormalize && (mode & TANGENTS)) renormalizeDirections(true, outTangents + co, m);
    }
  }
}

// Vertices renormalized per chunk: 256 vertices' two direction streams are
// 8 KB, in L1 when the pass reads them back.
// @ts-ignore: decorator
@inline const RENORMALIZE_CHUNK: u32 = 256;

// `count` vertices of one part (`used` of `n` influences, from `jp`, `wp`;
// vertex byte offset `o`), `end` the index of the influence after them and
// `total` the stream's influence count. Directions are not renormalized.
// @ts-ignore: decorator
@inline function skinRange(
  flags: i32,
  mode: i32,
  bounds: usize,
  used: i32,
  capped: bool,
  n: u32,
  count: u32,
  palette: usize,
  columns: usize,
  jp: usize,
  wp: usize,
  o: usize,
  end: u64,
  total: u64,
  positions: usize,
  normals: usize,
  tangents: usize,
  outPositions: usize,
  outNormals: usize,
  outTangents: usize,
): void {
  if (used < 1 || used > 4) {
    skinAny(flags, bounds, used, capped, n, count, palette, jp, wp, o, positions, normals, tangents, outPositions, outNormals, outTangents);
    return;
  }
  if (used == 3 && !capped && end + 1 > total) {
    // The last vertex of the stream: no influence after it to over-read.
    count--;
    const last = <usize>count;
    skinAny(flags, bounds, used, capped, n, 1, palette, jp + last * 6, wp + last * 12, o + (last << 4), positions, normals, tangents, outPositions, outNormals, outTangents);
    if (count == 0) return;
  }
  if (bounds) {
    skinModes(true, mode, bounds, used, capped, n, count, palette, columns, jp, wp, o, positions, normals, tangents, outPositions, outNormals, outTangents);
  } else {
    skinModes(false, mode, 0, used, capped, n, count, palette, columns, jp, wp, o, positions, normals, tangents, outPositions, outNormals, outTangents);
  }
}

// Runs skinVertices, or with `dual` skinDualQuaternions, for each job row.
// @ts-ignore: decorator
@inline function eachJob(
  dual: bool,
  jobs: usize,
  jobCount: i32,
  maxInfluences: i32,
  bounds: usize,
): void {
  for (let i = 0; i < jobCount; i++) {
    const j = jobs + <usize>i * JOB_BYTES;
    const b = bounds ? bounds + <usize>i * SKIN_BOUNDS_BYTES : 0;
    if (dual) {
      skinDualQuaternions(field<u32>(j, SKIN_PALETTE), field<u32>(j, SKIN_PARTS), field<i32>(j, SKIN_PART_COUNT), field<u32>(j, SKIN_JOINTS), field<u32>(j, SKIN_WEIGHTS), field<u32>(j, SKIN_POSITIONS), field<u32>(j, SKIN_NORMALS_IN), field<u32>(j, SKIN_TANGENTS_IN), field<u32>(j, SKIN_OUT_POSITIONS), field<u32>(j, SKIN_OUT_NORMALS), field<u32>(j, SKIN_OUT_TANGENTS), field<i32>(j, SKIN_FLAGS), maxInfluences, b);
    } else {
      skinVertices(field<u32>(j, SKIN_PALETTE), field<u32>(j, SKIN_PARTS), field<i32>(j, SKIN_PART_COUNT), field<u32>(j, SKIN_JOINTS), field<u32>(j, SKIN_WEIGHTS), field<u32>(j, SKIN_POSITIONS), field<u32>(j, SKIN_NORMALS_IN), field<u32>(j, SKIN_TANGENTS_IN), field<u32>(j, SKIN_OUT_POSITIONS), field<u32>(j, SKIN_OUT_NORMALS), field<u32>(j, SKIN_OUT_TANGENTS), field<i32>(j, SKIN_FLAGS), maxInfluences, b, field<u32>(j, SKIN_COLUMNS), field<u32>(j, SKIN_JOINT_COUNT));
    }
  }
}

/**
 * {@link skinVertices} over a table of jobs, `JOB_WORDS` `u32` words each:
 * palette, parts, partCount, joints, weights, positions, normals, tangents,
 * outPositions, outNormals, outTangents, flags, columns, jointCount;
 * `bounds` (when not 0) 8 floats per job.
 */
export function skinVerticesBatch(
  jobs: usize,
  jobCount: i32,
  maxInfluences: i32,
  bounds: usize,
): void {
  eachJob(false, jobs, jobCount, maxInfluences, bounds);
}

/**
 * {@link skinDualQuaternions} over a table of jobs laid out as
 * skinVerticesBatch's, the joint table in place of the palette.
 */
export function skinDualQuaternionsBatch(
  jobs: usize,
  jobCount: i32,
  maxInfluences: i32,
  bounds: usize,
): void {
  eachJob(true, jobs, jobCount, maxInfluences, bounds);
}
