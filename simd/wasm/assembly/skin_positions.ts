// Positions-only skinning from weighted base vectors (paper 002, sec. 3).
// Semantics are those of skinPositions in reference.ts.
//
// Deno compiles WebAssembly with an explicit bounds check on every memory
// access, so the loops load each input once, as wide as the data allows,
// and rebuild weight splats and joint indices in registers instead of
// reloading them.

import {
  JOB_BYTES, POSITIONS_BASES, POSITIONS_COUNTS, POSITIONS_JOINTS, POSITIONS_MODEL, POSITIONS_OUT,
  POSITIONS_VERTEX_COUNT,
} from "./abi";
import { field, madd } from "./common";
import { addresses4, hsum3w, lane3, matrix, unitW } from "./skin_common";

// The vertex loop of skinPositions over counts `c` to `cEnd`. With
// `cappable` false (a cap of 255 or more, which no u8 count exceeds) it
// skips the cap tests, and one register goes free.
// @ts-ignore: decorator
@inline function skinPositionsLoop(
  cappable: bool,
  cap: i32,
  model: usize,
  b: usize,
  jp: usize,
  c: usize,
  cEnd: usize,
  o: usize,
  e3: v128,
  base: v128,
): void {
  for (; c < cEnd; c++) {
    const n = <i32>load<u8>(c);
    // Row accumulators: lane i of a_r sums model[j][r][i] * b[i].
    let a0: v128, a1: v128, a2: v128;
    // Uncapped vertices of one to four influences take a specialised body.
    const sel = cappable && n > cap ? 0 : n;
    if (sel == 4) {
      const ms = addresses4(jp, base);
      const m0 = <usize>i32x4.extract_lane(ms, 0), m1 = <usize>i32x4.extract_lane(ms, 1);
      const m2 = <usize>i32x4.extract_lane(ms, 2), m3 = <usize>i32x4.extract_lane(ms, 3);
      const b0 = v128.load(b), b1 = v128.load(b, 16);
      const b2 = v128.load(b, 32), b3 = v128.load(b, 48);
      a0 = madd(v128.load(m3), b3, madd(v128.load(m2), b2, madd(v128.load(m1), b1, f32x4.mul(v128.load(m0), b0))));
      a1 = madd(v128.load(m3, 16), b3, madd(v128.load(m2, 16), b2, madd(v128.load(m1, 16), b1, f32x4.mul(v128.load(m0, 16), b0))));
      a2 = madd(v128.load(m3, 32), b3, madd(v128.load(m2, 32), b2, madd(v128.load(m1, 32), b1, f32x4.mul(v128.load(m0, 32), b0))));
    } else if (sel == 2) {
      const jj = load<u32>(jp);
      const m0 = matrix(model, jj & 0xffff), m1 = matrix(model, jj >>> 16);
      const b0 = v128.load(b), b1 = v128.load(b, 16);
      a0 = madd(v128.load(m1), b1, f32x4.mul(v128.load(m0), b0));
      a1 = madd(v128.load(m1, 16), b1, f32x4.mul(v128.load(m0, 16), b0));
      a2 = madd(v128.load(m1, 32), b1, f32x4.mul(v128.load(m0, 32), b0));
    } else if (sel == 3) {
      const jj = load<u32>(jp);
      const m0 = matrix(model, jj & 0xffff), m1 = matrix(model, jj >>> 16);
      const m2 = matrix(model, load<u16>(jp, 4));
      const b0 = v128.load(b), b1 = v128.load(b, 16), b2 = v128.load(b, 32);
      a0 = madd(v128.load(m2), b2, madd(v128.load(m1), b1, f32x4.mul(v128.load(m0), b0)));
      a1 = madd(v128.load(m2, 16), b2, madd(v128.load(m1, 16), b1, f32x4.mul(v128.load(m0, 16), b0)));
      a2 = madd(v128.load(m2, 32), b2, madd(v128.load(m1, 32), b1, f32x4.mul(v128.load(m0, 32), b0)));
    } else if (sel == 1) {
      const m0 = matrix(model, load<u16>(jp));
      const b0 = v128.load(b);
      a0 = f32x4.mul(v128.load(m0), b0);
      a1 = f32x4.mul(v128.load(m0, 16), b0);
      a2 = f32x4.mul(v128.load(m0, 32), b0);
    } else {
      // Capped, five or more, or none: quads, a pair, a single. `bs` sums
      // the base vectors, so lane 3 is the used weight sum. Capping in the
      // specialised bodies instead slowed the uncapped ones down.
      const used = cappable ? min(n, cap) : n;
      a0 = f32x4.splat(0);
      a1 = a0;
      a2 = a0;
      let bs = a0;
      let i = 0;
      let bi = b, ji = jp;
      for (; i + 4 <= used; i += 4, bi += 64, ji += 8) {
        const ms = addresses4(ji, base);
        const m0 = <usize>i32x4.extract_lane(ms, 0), m1 = <usize>i32x4.extract_lane(ms, 1);
        const m2 = <usize>i32x4.extract_lane(ms, 2), m3 = <usize>i32x4.extract_lane(ms, 3);
        const b0 = v128.load(bi), b1 = v128.load(bi, 16);
        const b2 = v128.load(bi, 32), b3 = v128.load(bi, 48);
        a0 = madd(v128.load(m3), b3, madd(v128.load(m2), b2, madd(v128.load(m1), b1, madd(v128.load(m0), b0, a0))));
        a1 = madd(v128.load(m3, 16), b3, madd(v128.load(m2, 16), b2, madd(v128.load(m1, 16), b1, madd(v128.load(m0, 16), b0, a1))));
        a2 = madd(v128.load(m3, 32), b3, madd(v128.load(m2, 32), b2, madd(v128.load(m1, 32), b1, madd(v128.load(m0, 32), b0, a2))));
        bs = f32x4.add(bs, f32x4.add(f32x4.add(b0, b1), f32x4.add(b2, b3)));
      }
      if (i + 2 <= used) {
        const jj = load<u32>(ji);
        const m0 = matrix(model, jj & 0xffff), m1 = matrix(model, jj >>> 16);
        const b0 = v128.load(bi), b1 = v128.load(bi, 16);
        a0 = madd(v128.load(m1), b1, madd(v128.load(m0), b0, a0));
        a1 = madd(v128.load(m1, 16), b1, madd(v128.load(m0, 16), b0, a1));
        a2 = madd(v128.load(m1, 32), b1, madd(v128.load(m0, 32), b0, a2));
        bs = f32x4.add(bs, f32x4.add(b0, b1));
        i += 2;
        bi += 32;
        ji += 4;
      }
      if (i < used) {
        const m0 = matrix(model, load<u16>(ji));
        const b0 = v128.load(bi);
        a0 = madd(v128.load(m0), b0, a0);
        a1 = madd(v128.load(m0, 16), b0, a1);
        a2 = madd(v128.load(m0, 32), b0, a2);
        bs = f32x4.add(bs, b0);
      }
      if (cappable && used < n) {
        const s = f32x4.div(f32x4.splat(1), lane3(bs));
        a0 = f32x4.mul(a0, s);
        a1 = f32x4.mul(a1, s);
        a2 = f32x4.mul(a2, s);
      }
    }
    v128.store(o, hsum3w(a0, a1, a2, e3));
    b += <usize>n << 4;
    jp += <usize>n << 1;
    o += 16;
  }
}

/**
 * `out[v] = (sum model[j] * b, 1)` over the first `min(counts[v],
 * maxInfluences)` influences of each vertex, divided by their weight sum
 * when the cap drops influences. Bases are `(w * inverseBind[j] * p, w)`,
 * 16 bytes per influence; joints are `u16`, counts `u8` per vertex.
 */
export function skinPositions(
  model: usize,
  bases: usize,
  joints: usize,
  counts: usize,
  out: usize,
  vertexCount: i32,
  maxInfluences: i32,
): void {
  if (vertexCount <= 0) return;
  const e3 = unitW(vertexCount);
  const base = i32x4.splat(<i32>model);
  const end = counts + <usize>vertexCount;
  if (maxInfluences >= 255) {
    skinPositionsLoop(false, maxInfluences, model, bases, joints, counts, end, out, e3, base);
  } else {
    skinPositionsLoop(true, maxInfluences, model, bases, joints, counts, end, out, e3, base);
  }
}

/**
 * {@link skinPositions} over a table of jobs, `JOB_WORDS` `u32` words each:
 * model, bases, joints, counts, out, vertexCount.
 */
export function skinPositionsBatch(
  jobs: usize,
  jobCount: i32,
  maxInfluences: i32,
): void {
  for (let i = 0; i < jobCount; i++) {
    const j = jobs + <usize>i * JOB_BYTES;
    skinPositions(
      field<u32>(j, POSITIONS_MODEL),
      field<u32>(j, POSITIONS_BASES),
      field<u32>(j, POSITIONS_JOINTS),
      field<u32>(j, POSITIONS_COUNTS),
      field<u32>(j, POSITIONS_OUT),
      field<i32>(j, POSITIONS_VERTEX_COUNT),
      maxInfluences,
    );
  }
}
