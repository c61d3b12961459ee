// The memory limit of skinning: a kernel that moves the bytes skinVertices
// moves (joints and weights read, the requested input streams read and
// written to the outputs) and does no arithmetic. The benches' `copy` rows.

import { NORMALS, TANGENTS } from "./skin_common";

// XOR of the little-endian 32-bit words of the `bytes` bytes at `p` (a
// partial last word zero-filled).
function fold(p: usize, bytes: usize): i32 {
  const start = p, end = p + (bytes & ~15);
  let acc = i32x4.splat(0);
  for (; p < end; p += 16) acc = v128.xor(acc, v128.load(p));
  let tail: i32 = 0;
  for (; p < start + bytes; p++) tail ^= <i32>load<u8>(p) << (<i32>((p - start) & 3) << 3);
  return tail ^ i32x4.extract_lane(acc, 0) ^ i32x4.extract_lane(acc, 1) ^
    i32x4.extract_lane(acc, 2) ^ i32x4.extract_lane(acc, 3);
}

/**
 * Copies `positions` (and per `flags` `normals`, `tangents`) to the outputs
 * for the vertices of `parts` (as in skinVertices), and reads their joints
 * and weights, returning the XOR of all joint and weight words so that no
 * read can be dropped.
 */
export function copyVertices(
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
): i32 {
  let vertices: usize = 0, influences: usize = 0;
  for (let p = 0; p < partCount; p++) {
    const pp = parts + (<usize>p << 3);
    vertices += <usize>load<u32>(pp, 4);
    influences += <usize>load<u32>(pp) * <usize>load<u32>(pp, 4);
  }
  const read = fold(joints, influences << 1) ^ fold(weights, influences << 2);
  const bytes = vertices << 4;
  for (let o: usize = 0; o < bytes; o += 16) {
    v128.store(outPositions + o, v128.load(positions + o));
    if (flags & NORMALS) v128.store(outNormals + o, v128.load(normals + o));
    if (flags & TANGENTS) v128.store(outTangents + o, v128.load(tangents + o));
  }
  return read;
}
