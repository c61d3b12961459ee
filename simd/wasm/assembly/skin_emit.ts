// The output side of the skinning loops: a vertex's streams transformed by
// its matrix C, given as rows or as columns, and stored.

import { madd } from "./common";
import { hsum3w, lane0, lane1, lane2, NORMALS, TANGENTS } from "./skin_common";

// Transforms vertex byte offset `o` of the streams by the collapsed rows
// r0..r2 and stores the results. `mode` is flags & (NORMALS | TANGENTS);
// a constant at the inlined call sites of the specialised loops.
// @ts-ignore: decorator
@inline export function emit(
  mode: i32,
  e3: v128,
  r0: v128,
  r1: v128,
  r2: v128,
  o: usize,
  positions: usize,
  normals: usize,
  tangents: usize,
  outPositions: usize,
  outNormals: usize,
  outTangents: usize,
): v128 {
  if (mode == 0) {
    // Positions only: three row dot products and one transpose-add are
    // fewer shuffles than transposing C into columns.
    const p = v128.load(positions + o);
    const q = i32x4.shuffle(p, e3, 0, 1, 2, 7);
    const out = hsum3w(f32x4.mul(r0, q), f32x4.mul(r1, q), f32x4.mul(r2, q), e3);
    v128.store(outPositions + o, out);
    return out;
  }
  // Columns of C, with the implicit fourth row (0 0 0 1) so that the
  // position's w comes out as 1 and directions' w as 0.
  const t0 = i32x4.shuffle(r0, r1, 0, 4, 1, 5);
  const t1 = i32x4.shuffle(r0, r1, 2, 6, 3, 7);
  const t2 = i32x4.shuffle(r2, e3, 0, 4, 1, 5);
  const t3 = i32x4.shuffle(r2, e3, 2, 6, 3, 7);
  return emitColumns(
    mode,
    i32x4.shuffle(t0, t2, 0, 1, 4, 5), i32x4.shuffle(t0, t2, 2, 3, 6, 7),
    i32x4.shuffle(t1, t3, 0, 1, 4, 5), i32x4.shuffle(t1, t3, 2, 3, 6, 7),
    o, positions, normals, tangents, outPositions, outNormals, outTangents,
  );
}

// emit with C given as its columns c0..c3 (c3 the translation, w 1).
// @ts-ignore: decorator
@inline export function emitColumns(
  mode: i32,
  c0: v128,
  c1: v128,
  c2: v128,
  c3: v128,
  o: usize,
  positions: usize,
  normals: usize,
  tangents: usize,
  outPositions: usize,
  outNormals: usize,
  outTangents: usize,
): v128 {
  const p = v128.load(positions + o);
  const out = madd(c2, lane2(p), madd(c1, lane1(p), madd(c0, lane0(p), c3)));
  v128.store(outPositions + o, out);
  if (mode & NORMALS) {
    const nv = v128.load(normals + o);
    // Starting from +0 rather than a product keeps w at +0, as the
    // reference writes it, where 0 * -x would leave -0.
    const n = madd(c2, lane2(nv), madd(c1, lane1(nv), madd(c0, lane0(nv), f32x4.splat(0))));
    v128.store(outNormals + o, n);
  }
  if (mode & TANGENTS) {
    const tv = v128.load(tangents + o);
    const t = madd(c2, lane2(tv), madd(c1, lane1(tv), f32x4.mul(c0, lane0(tv))));
    v128.store(outTangents + o, i32x4.shuffle(t, tv, 0, 1, 2, 7));
  }
  return out;
}

// The 4x4 columns of a palette matrix's rows r0..r2 and (0 0 0 1).
// @ts-ignore: decorator
@inline export function column(r0: v128, r1: v128, r2: v128, e3: v128, c: i32): v128 {
  const lo = c < 2;
  const t0 = lo ? i32x4.shuffle(r0, r1, 0, 4, 1, 5) : i32x4.shuffle(r0, r1, 2, 6, 3, 7);
  const t2 = lo ? i32x4.shuffle(r2, e3, 0, 4, 1, 5) : i32x4.shuffle(r2, e3, 2, 6, 3, 7);
  return c & 1 ? i32x4.shuffle(t0, t2, 2, 3, 6, 7) : i32x4.shuffle(t0, t2, 0, 1, 4, 5);
}
