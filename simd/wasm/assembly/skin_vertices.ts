// The entry points of skinning, linear (collapsed palette) and dual
// quaternion, and their one dispatch table, as ozz-animation's
// `kSkinningFct`: each part's loop is chosen by its traits (influences
// used, streams, bounds, dual quaternions) in `skinLoop`, each entry a loop
// of skinning.ts, skin_dq.ts or the run loops specialised to those
// constants. Five or more influences take the general loops.
//
// A job's pointers are globals, set once per job (`setJob`) and copied to
// locals by each loop on entry, so that a part passes only what changes per
// part. WebAssembly globals belong to one instance: each thread of the
// shared builds has its own.

import {
  DUAL_QUATERNION_JOINT_BYTES, DUAL_QUATERNION_ROWS, JOB_BYTES, MATRIX_BYTES, SKIN_BOUNDS_BYTES, SKIN_COLUMNS,
  SKIN_FLAGS, SKIN_JOINT_COUNT, SKIN_JOINTS, SKIN_NORMALS_IN, SKIN_OUT_NORMALS, SKIN_OUT_POSITIONS,
  SKIN_OUT_TANGENTS, SKIN_PALETTE, SKIN_PART_COUNT, SKIN_PARTS, SKIN_POSITIONS, SKIN_TANGENTS_IN, SKIN_WEIGHTS,
} from "./abi";
import { field } from "./common";
import { NORMALS, RENORMALIZE, renormalizeDirections, TANGENTS } from "./skin_common";
import { dqRun } from "./skin_dq";
import { skinDualQuaternionPairs } from "./skin_dq_pairs";
import { skinPairColumns, transposePalette } from "./skin_pair_columns";
import { skinPairRows } from "./skin_pair_rows";
import { runsOfPairs, skinPairPositions } from "./skin_pairs";
import { skinQuadPositions } from "./skin_quads";
import { runsOfJoints, skinRigidDirections, skinRigidPositions } from "./skin_rigid";
import { skinAny, skinRun } from "./skinning";

// The job being skinned (see above): the palette (a dual-quaternion table
// for dual-quaternion skinning), the palette transposed (0: none), the
// bounds (0: none) and the streams.
let jobPalette: usize = 0, jobColumns: usize = 0, jobBounds: usize = 0;
let jobPositions: usize = 0, jobNormals: usize = 0, jobTangents: usize = 0;
let jobOutPositions: usize = 0, jobOutNormals: usize = 0, jobOutTangents: usize = 0;

// @ts-ignore: decorator
@inline function setJob(
  palette: usize,
  columns: usize,
  bounds: usize,
  positions: usize,
  normals: usize,
  tangents: usize,
  outPositions: usize,
  outNormals: usize,
  outTangents: usize,
): void {
  jobPalette = palette, jobColumns = columns, jobBounds = bounds;
  jobPositions = positions, jobNormals = normals, jobTangents = tangents;
  jobOutPositions = outPositions, jobOutNormals = outNormals, jobOutTangents = outTangents;
}

// A part's traits, the table's key: the influences used (1..4) less one in
// bits 0..1, the streams (NORMALS | TANGENTS) in bits 2..3, BOUNDED, DUAL.
// The dual-quaternion loops test their bounds pointer, so never BOUNDED.
// @ts-ignore: decorator
@inline const BOUNDED = 16;
// @ts-ignore: decorator
@inline const DUAL = 32;

// @ts-ignore: decorator
@inline function traitsOf(used: i32, mode: i32, bounded: bool, dual: bool): i32 {
  return (used - 1) | (mode << 2) | (bounded ? BOUNDED : 0) | (dual ? DUAL : 0);
}

// Linear skinning of `count` vertices (`n` influences stored each, from
// `jp`, `wp`; vertex byte offset `o`), `traits` a constant: positions alone
// of four influences take the quad loop, of two the pair loops (runs of a
// joint pair, the palette transposed, or rows), of one sorted by joint the
// rigid runs; the rest the row loop.
// @ts-ignore: decorator
@inline function linearLoop(traits: i32, capped: bool, n: u32, count: u32, jp: usize, wp: usize, o: usize): void {
  const used = (traits & 3) + 1, mode = (traits >> 2) & 3, bounded = (traits & BOUNDED) != 0;
  const palette = jobPalette, bounds = bounded ? jobBounds : 0;
  const positions = jobPositions, normals = jobNormals, tangents = jobTangents;
  const outPositions = jobOutPositions, outNormals = jobOutNormals, outTangents = jobOutTangents;
  if (used == 4 && mode == 0) {
    skinQuadPositions(bounds, capped, n, count, palette, jp, wp, o, positions, outPositions);
  } else if (used == 2 && mode == 0) {
    const columns = jobColumns;
    if (runsOfPairs(jp, <usize>n << 1, count)) {
      skinPairPositions(bounds, capped, n, count, palette, jp, wp, o, positions, outPositions);
    } else if (columns) {
      skinPairColumns(bounds, capped, n, count, columns, jp, wp, o, positions, outPositions);
    } else {
      skinPairRows(bounds, capped, n, count, palette, jp, wp, o, positions, outPositions);
    }
  } else if (used == 1 && mode == 0 && runsOfJoints(jp, <usize>n << 1, count)) {
    skinRigidPositions(MATRIX_BYTES, bounds, n, count, palette, jp, o, positions, outPositions);
  } else if (used == 1 && runsOfJoints(jp, <usize>n << 1, count)) {
    skinRigidDirections(mode, bounds, n, count, palette, jp, o, positions, normals, tangents, outPositions, outNormals, outTangents);
  } else {
    skinRun(used, mode, bounded, bounds, capped, n, count, palette, jp, wp, o, positions, normals, tangents, outPositions, outNormals, outTangents);
  }
}

// Dual-quaternion skinning, as linearLoop: positions alone of one
// influence sorted by joint take linear skinning's rigid runs on the
// table's palette rows, two influences sorted by joint pair the pair runs.
// @ts-ignore: decorator
@inline function dualLoop(traits: i32, capped: bool, n: u32, count: u32, jp: usize, wp: usize, o: usize): void {
  const used = (traits & 3) + 1, mode = (traits >> 2) & 3;
  const table = jobPalette, bounds = jobBounds;
  const positions = jobPositions, normals = jobNormals, tangents = jobTangents;
  const outPositions = jobOutPositions, outNormals = jobOutNormals, outTangents = jobOutTangents;
  if (used == 1 && mode == 0 && runsOfJoints(jp, <usize>n << 1, count)) {
    skinRigidPositions(DUAL_QUATERNION_JOINT_BYTES, bounds, n, count, table + DUAL_QUATERNION_ROWS, jp, o, positions, outPositions);
  } else if (used == 2 && runsOfPairs(jp, <usize>n << 1, count)) {
    skinDualQuaternionPairs(mode, bounds, capped, n, count, table, jp, wp, o, positions, normals, tangents, outPositions, outNormals, outTangents);
  } else {
    dqRun(used, used, mode, bounds, n, count, table, jp, wp, o, positions, normals, tangents, outPositions, outNormals, outTangents);
  }
}

// The table: one loop per traits key, each compiled with its traits as
// constants (a br_table, no indirect call).
function skinLoop(traits: i32, capped: bool, n: u32, count: u32, jp: usize, wp: usize, o: usize): void {
  switch (traits) {
    case 0: linearLoop(0, capped, n, count, jp, wp, o); break;
    case 1: linearLoop(1, capped, n, count, jp, wp, o); break;
    case 2: linearLoop(2, capped, n, count, jp, wp, o); break;
    case 3: linearLoop(3, capped, n, count, jp, wp, o); break;
    case 4: linearLoop(4, capped, n, count, jp, wp, o); break;
    case 5: linearLoop(5, capped, n, count, jp, wp, o); break;
    case 6: linearLoop(6, capped, n, count, jp, wp, o); break;
    case 7: linearLoop(7, capped, n, count, jp, wp, o); break;
    case 8: linearLoop(8, capped, n, count, jp, wp, o); break;
    case 9: linearLoop(9, capped, n, count, jp, wp, o); break;
    case 10: linearLoop(10, capped, n, count, jp, wp, o); break;
    case 11: linearLoop(11, capped, n, count, jp, wp, o); break;
    case 12: linearLoop(12, capped, n, count, jp, wp, o); break;
    case 13: linearLoop(13, capped, n, count, jp, wp, o); break;
    case 14: linearLoop(14, capped, n, count, jp, wp, o); break;
    case 15: linearLoop(15, capped, n, count, jp, wp, o); break;
    case 16: linearLoop(16, capped, n, count, jp, wp, o); break;
    case 17: linearLoop(17, capped, n, count, jp, wp, o); break;
    case 18: linearLoop(18, capped, n, count, jp, wp, o); break;
    case 19: linearLoop(19, capped, n, count, jp, wp, o); break;
    case 20: linearLoop(20, capped, n, count, jp, wp, o); break;
    case 21: linearLoop(21, capped, n, count, jp, wp, o); break;
    case 22: linearLoop(22, capped, n, count, jp, wp, o); break;
    case 23: linearLoop(23, capped, n, count, jp, wp, o); break;
    case 24: linearLoop(24, capped, n, count, jp, wp, o); break;
    case 25: linearLoop(25, capped, n, count, jp, wp, o); break;
    case 26: linearLoop(26, capped, n, count, jp, wp, o); break;
    case 27: linearLoop(27, capped, n, count, jp, wp, o); break;
    case 28: linearLoop(28, capped, n, count, jp, wp, o); break;
    case 29: linearLoop(29, capped, n, count, jp, wp, o); break;
    case 30: linearLoop(30, capped, n, count, jp, wp, o); break;
    case 31: linearLoop(31, capped, n, count, jp, wp, o); break;
    case 32: dualLoop(32, capped, n, count, jp, wp, o); break;
    case 33: dualLoop(33, capped, n, count, jp, wp, o); break;
    case 34: dualLoop(34, capped, n, count, jp, wp, o); break;
    case 35: dualLoop(35, capped, n, count, jp, wp, o); break;
    case 36: dualLoop(36, capped, n, count, jp, wp, o); break;
    case 37: dualLoop(37, capped, n, count, jp, wp, o); break;
    case 38: dualLoop(38, capped, n, count, jp, wp, o); break;
    case 39: dualLoop(39, capped, n, count, jp, wp, o); break;
    case 40: dualLoop(40, capped, n, count, jp, wp, o); break;
    case 41: dualLoop(41, capped, n, count, jp, wp, o); break;
    case 42: dualLoop(42, capped, n, count, jp, wp, o); break;
    case 43: dualLoop(43, capped, n, count, jp, wp, o); break;
    case 44: dualLoop(44, capped, n, count, jp, wp, o); break;
    case 45: dualLoop(45, capped, n, count, jp, wp, o); break;
    case 46: dualLoop(46, capped, n, count, jp, wp, o); break;
    case 47: dualLoop(47, capped, n, count, jp, wp, o); break;
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
  setJob(palette, columns, bounds, positions, normals, tangents, outPositions, outNormals, outTangents);
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
      const jp = joints + <usize>(at << 1), wp = weights + <usize>(at << 2);
      if (used < 1 || used > 4) {
        skinAny(skinFlags, bounds, used, capped, n, m, palette, jp, wp, co, positions, normals, tangents, outPositions, outNormals, outTangents);
      } else {
        let looped = m;
        if (used == 3 && !capped && at + <u64>m * <u64>n + 1 > total) {
          // The last vertex of the stream: no influence after it to over-read.
          const last = <usize>(--looped);
          skinAny(skinFlags, bounds, used, capped, n, 1, palette, jp + last * 6, wp + last * 12, co + (last << 4), positions, normals, tangents, outPositions, outNormals, outTangents);
        }
        if (looped != 0) skinLoop(traitsOf(used, mode, bounds != 0, false), capped, n, looped, jp, wp, co);
      }
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

/**
 * Dual-quaternion skinning: the arguments of skinVertices with `table`
 * (24 floats per joint: qr, qd, scale, 1 / scale, 2 unused, palette
 * matrix) in place of the palette.
 * RENORMALIZE has no effect (rotations keep lengths).
 */
export function skinDualQuaternions(
  table: usize,
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
): void {
  if (bounds) {
    const inf = f32x4.splat(Infinity);
    v128.store(bounds, inf);
    v128.store(bounds, f32x4.neg(inf), 16);
  }
  const mode = flags & (NORMALS | TANGENTS);
  setJob(table, 0, bounds, positions, normals, tangents, outPositions, outNormals, outTangents);
  let k: usize = 0;
  let o: usize = 0;
  for (let p = 0; p < partCount; p++) {
    const pp = parts + (<usize>p << 3);
    const n = load<u32>(pp);
    const count = load<u32>(pp, 4);
    const used = <i32>min(<i64>n, <i64>maxInfluences);
    const jp = joints + (k << 1), wp = weights + (k << 2);
    const start = o;
    k += <usize>n * <usize>count;
    o += <usize>count << 4;
    if (count == 0 || used < 1) continue;
    if (used > 4) {
      // Five or more: the general loop, the mode tested per vertex.
      dqRun(0, used, mode, bounds, n, count, table, jp, wp, start, positions, normals, tangents, outPositions, outNormals, outTangents);
    } else {
      skinLoop(traitsOf(used, mode, false, true), used < <i32>n, n, count, jp, wp, start);
    }
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
