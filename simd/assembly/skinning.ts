// Skinning kernels: positions from weighted base vectors (paper 002, sec. 3)
// and the collapsed palette for positions, normals and tangents (sec. 4).
// Semantics are those of skinPositions and skinVertices in reference.ts.
//
// Deno compiles WebAssembly with an explicit bounds check on every memory
// access, so the loops load each input once, as wide as the data allows,
// and rebuild weight splats and joint indices in registers instead of
// reloading them.

import { madd } from "./common";

// @ts-ignore: decorator
@inline const NORMALS = 1;
// @ts-ignore: decorator
@inline const TANGENTS = 2;
// @ts-ignore: decorator
@inline const RENORMALIZE = 4;

// Byte address of joint matrix `joint` (48 bytes each).
// @ts-ignore: decorator
@inline function matrix(base: usize, joint: u32): usize {
  return base + <usize>joint * 48;
}

// @ts-ignore: decorator
@inline function lane0(v: v128): v128 {
  return i32x4.shuffle(v, v, 0, 0, 0, 0);
}
// @ts-ignore: decorator
@inline function lane1(v: v128): v128 {
  return i32x4.shuffle(v, v, 1, 1, 1, 1);
}
// @ts-ignore: decorator
@inline function lane2(v: v128): v128 {
  return i32x4.shuffle(v, v, 2, 2, 2, 2);
}
// @ts-ignore: decorator
@inline function lane3(v: v128): v128 {
  return i32x4.shuffle(v, v, 3, 3, 3, 3);
}

// The horizontal sum of all four lanes, in every lane.
// @ts-ignore: decorator
@inline function hsum(v: v128): v128 {
  const s = f32x4.add(v, i32x4.shuffle(v, v, 1, 0, 3, 2));
  return f32x4.add(s, i32x4.shuffle(s, s, 2, 3, 0, 1));
}

// (sum a, sum b, sum c, 1): the transpose-add of three dot-product rows.
// `e3` = (0, 0, 0, 1) as a fourth row makes w come out as exactly 1.
// @ts-ignore: decorator
@inline function hsum3w(a: v128, b: v128, c: v128, e3: v128): v128 {
  const ab = f32x4.add(
    i32x4.shuffle(a, b, 0, 4, 1, 5),
    i32x4.shuffle(a, b, 2, 6, 3, 7),
  );
  const cu = f32x4.add(
    i32x4.shuffle(c, e3, 0, 4, 1, 5),
    i32x4.shuffle(c, e3, 2, 6, 3, 7),
  );
  return f32x4.add(
    i32x4.shuffle(ab, cu, 0, 1, 4, 5),
    i32x4.shuffle(ab, cu, 2, 3, 6, 7),
  );
}

// (0, 0, 0, 1), built from `seed` so that it is computed once before a loop
// and kept: V8 rematerializes a v128 constant at every use, three to five
// instructions each time, where a held value costs at most a reload.
// @ts-ignore: decorator
@inline function unitW(seed: i32): v128 {
  const s = f32x4.splat(<f32>seed);
  return v128.and(f32x4.eq(s, s), f32x4(0, 0, 0, 1));
}

// Byte addresses of the four joint matrices whose u16 indices are at `jp`,
// `base` = splat(palette): one widening load and three vector ops instead of
// splitting a 64-bit word and multiplying in general registers. Faster in
// skinPositions; in the collapsed-palette loops, which hold more values,
// the lane extracts cost more than they save, so those split a u64.
// @ts-ignore: decorator
@inline function addresses4(jp: usize, base: v128): v128 {
  const j16 = i32x4.shl(v128.load16x4_u(jp), 4);
  return i32x4.add(i32x4.add(j16, i32x4.add(j16, j16)), base);
}

// `v / |v|`, or zero when |v| is zero. Lane 3 of `v` must be zero.
// @ts-ignore: decorator
@inline function unit(v: v128): v128 {
  const s = hsum(f32x4.mul(v, v));
  const inv = v128.and(
    f32x4.div(f32x4.splat(1), f32x4.sqrt(s)),
    f32x4.gt(s, f32x4.splat(0)),
  );
  return f32x4.mul(v, inv);
}

// ---------------------------------------------------------------------------
// Positions from weighted base vectors

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
 * {@link skinPositions} over a table of jobs, 12 `u32` words each:
 * model, bases, joints, counts, out, vertexCount.
 */
export function skinPositionsBatch(
  jobs: usize,
  jobCount: i32,
  maxInfluences: i32,
): void {
  for (let i = 0; i < jobCount; i++) {
    const j = jobs + <usize>i * 48;
    skinPositions(
      load<u32>(j),
      load<u32>(j, 4),
      load<u32>(j, 8),
      load<u32>(j, 12),
      load<u32>(j, 16),
      load<i32>(j, 20),
      maxInfluences,
    );
  }
}

// ---------------------------------------------------------------------------
// Collapsed palette

// Transforms vertex byte offset `o` of the streams by the collapsed rows
// r0..r2 and stores the results. `mode` is flags & (NORMALS | TANGENTS);
// a constant at the inlined call sites of the specialised loops.
// @ts-ignore: decorator
@inline function emit(
  mode: i32,
  renormalize: bool,
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
): void {
  const p = v128.load(positions + o);
  if (mode == 0) {
    // Positions only: three row dot products and one transpose-add are
    // fewer shuffles than transposing C into columns.
    const q = i32x4.shuffle(p, e3, 0, 1, 2, 7);
    v128.store(
      outPositions + o,
      hsum3w(f32x4.mul(r0, q), f32x4.mul(r1, q), f32x4.mul(r2, q), e3),
    );
  } else {
    // Columns of C, with the implicit fourth row (0 0 0 1) so that the
    // position's w comes out as 1 and directions' w as 0.
    const t0 = i32x4.shuffle(r0, r1, 0, 4, 1, 5);
    const t1 = i32x4.shuffle(r0, r1, 2, 6, 3, 7);
    const t2 = i32x4.shuffle(r2, e3, 0, 4, 1, 5);
    const t3 = i32x4.shuffle(r2, e3, 2, 6, 3, 7);
    const c0 = i32x4.shuffle(t0, t2, 0, 1, 4, 5);
    const c1 = i32x4.shuffle(t0, t2, 2, 3, 6, 7);
    const c2 = i32x4.shuffle(t1, t3, 0, 1, 4, 5);
    const c3 = i32x4.shuffle(t1, t3, 2, 3, 6, 7);
    v128.store(
      outPositions + o,
      madd(c2, lane2(p), madd(c1, lane1(p), madd(c0, lane0(p), c3))),
    );
    if (mode & NORMALS) {
      const nv = v128.load(normals + o);
      // Starting from +0 rather than a product keeps w at +0, as the
      // reference writes it, where 0 * -x would leave -0.
      let n = madd(c2, lane2(nv), madd(c1, lane1(nv), madd(c0, lane0(nv), f32x4.splat(0))));
      if (renormalize) n = unit(n);
      v128.store(outNormals + o, n);
    }
    if (mode & TANGENTS) {
      const tv = v128.load(tangents + o);
      let t = madd(c2, lane2(tv), madd(c1, lane1(tv), f32x4.mul(c0, lane0(tv))));
      if (renormalize) t = unit(t);
      v128.store(outTangents + o, i32x4.shuffle(t, tv, 0, 1, 2, 7));
    }
  }
}

// `count` vertices whose first `K` (1..4) influences are used, `n` stored
// per vertex. Loads per vertex: one for the weights, one for the joints,
// three rows per influence and the input streams. `capped` (n > K) scales
// the weights by the inverse of their sum before collapsing. With K = 3 the
// weight and joint loads read one influence past the vertex: the caller
// guarantees that it exists.
// @ts-ignore: decorator
@inline function skinRun(
  K: i32,
  mode: i32,
  renormalize: bool,
  capped: bool,
  n: u32,
  count: u32,
  palette: usize,
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
  const jStride = <usize>n << 1, wStride = <usize>n << 2;
  const end = o + (<usize>count << 4);
  const e3 = unitW(count);
  for (; o < end; o += 16, jp += jStride, wp += wStride) {
    let r0: v128, r1: v128, r2: v128;
    if (K == 1) {
      let w = v128.load32_splat(wp);
      if (capped) w = f32x4.mul(w, f32x4.div(f32x4.splat(1), w));
      const m0 = matrix(palette, load<u16>(jp));
      r0 = f32x4.mul(v128.load(m0), w);
      r1 = f32x4.mul(v128.load(m0, 16), w);
      r2 = f32x4.mul(v128.load(m0, 32), w);
    } else if (K == 2) {
      let w = v128.load64_zero(wp);
      if (capped) {
        w = f32x4.mul(
          w,
          f32x4.div(f32x4.splat(1), f32x4.add(w, i32x4.shuffle(w, w, 1, 0, 3, 2))),
        );
      }
      const jj = load<u32>(jp);
      const m0 = matrix(palette, jj & 0xffff), m1 = matrix(palette, jj >>> 16);
      const w0 = lane0(w), w1 = lane1(w);
      r0 = madd(v128.load(m1), w1, f32x4.mul(v128.load(m0), w0));
      r1 = madd(v128.load(m1, 16), w1, f32x4.mul(v128.load(m0, 16), w0));
      r2 = madd(v128.load(m1, 32), w1, f32x4.mul(v128.load(m0, 32), w0));
    } else if (K == 3) {
      let w = v128.load(wp);
      if (capped) {
        w = f32x4.mul(
          w,
          f32x4.div(f32x4.splat(1), hsum(v128.and(w, i32x4(-1, -1, -1, 0)))),
        );
      }
      const jj = load<u64>(jp);
      const lo = <u32>jj, hi = <u32>(jj >>> 32);
      const m0 = matrix(palette, lo & 0xffff), m1 = matrix(palette, lo >>> 16);
      const m2 = matrix(palette, hi & 0xffff);
      const w0 = lane0(w), w1 = lane1(w), w2 = lane2(w);
      r0 = madd(v128.load(m2), w2, madd(v128.load(m1), w1, f32x4.mul(v128.load(m0), w0)));
      r1 = madd(v128.load(m2, 16), w2, madd(v128.load(m1, 16), w1, f32x4.mul(v128.load(m0, 16), w0)));
      r2 = madd(v128.load(m2, 32), w2, madd(v128.load(m1, 32), w1, f32x4.mul(v128.load(m0, 32), w0)));
    } else {
      let w = v128.load(wp);
      if (capped) w = f32x4.mul(w, f32x4.div(f32x4.splat(1), hsum(w)));
      const jj = load<u64>(jp);
      const lo = <u32>jj, hi = <u32>(jj >>> 32);
      const m0 = matrix(palette, lo & 0xffff), m1 = matrix(palette, lo >>> 16);
      const m2 = matrix(palette, hi & 0xffff), m3 = matrix(palette, hi >>> 16);
      const w0 = lane0(w), w1 = lane1(w), w2 = lane2(w), w3 = lane3(w);
      r0 = madd(v128.load(m3), w3, madd(v128.load(m2), w2, madd(v128.load(m1), w1, f32x4.mul(v128.load(m0), w0))));
      r1 = madd(v128.load(m3, 16), w3, madd(v128.load(m2, 16), w2, madd(v128.load(m1, 16), w1, f32x4.mul(v128.load(m0, 16), w0))));
      r2 = madd(v128.load(m3, 32), w3, madd(v128.load(m2, 32), w2, madd(v128.load(m1, 32), w1, f32x4.mul(v128.load(m0, 32), w0))));
    }
    emit(mode, renormalize, e3, r0, r1, r2, o, positions, normals, tangents, outPositions, outNormals, outTangents);
  }
}

// Any number of used influences (five or more, the exact tail of a
// three-influence part, or none): quads, a pair, a single, each loaded
// exactly, and the flags tested per vertex. Capped sums are divided after
// collapsing.
function skinAny(
  flags: i32,
  used: i32,
  capped: bool,
  n: u32,
  count: u32,
  palette: usize,
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
  const jStride = <usize>n << 1, wStride = <usize>n << 2;
  const end = o + (<usize>count << 4);
  const mode = flags & (NORMALS | TANGENTS);
  const renormalize = (flags & RENORMALIZE) != 0;
  const e3 = unitW(count);
  const base = i32x4.splat(<i32>palette);
  for (; o < end; o += 16, jp += jStride, wp += wStride) {
    let r0 = f32x4.splat(0), r1 = r0, r2 = r0, ws = r0;
    let i = 0;
    let ji = jp, wi = wp;
    for (; i + 4 <= used; i += 4, ji += 8, wi += 16) {
      const w = v128.load(wi);
      const ms = addresses4(ji, base);
      const m0 = <usize>i32x4.extract_lane(ms, 0), m1 = <usize>i32x4.extract_lane(ms, 1);
      const m2 = <usize>i32x4.extract_lane(ms, 2), m3 = <usize>i32x4.extract_lane(ms, 3);
      const w0 = lane0(w), w1 = lane1(w), w2 = lane2(w), w3 = lane3(w);
      r0 = madd(v128.load(m3), w3, madd(v128.load(m2), w2, madd(v128.load(m1), w1, madd(v128.load(m0), w0, r0))));
      r1 = madd(v128.load(m3, 16), w3, madd(v128.load(m2, 16), w2, madd(v128.load(m1, 16), w1, madd(v128.load(m0, 16), w0, r1))));
      r2 = madd(v128.load(m3, 32), w3, madd(v128.load(m2, 32), w2, madd(v128.load(m1, 32), w1, madd(v128.load(m0, 32), w0, r2))));
      ws = f32x4.add(ws, w);
    }
    if (i + 2 <= used) {
      const w = v128.load64_zero(wi);
      const jj = load<u32>(ji);
      const m0 = matrix(palette, jj & 0xffff), m1 = matrix(palette, jj >>> 16);
      const w0 = lane0(w), w1 = lane1(w);
      r0 = madd(v128.load(m1), w1, madd(v128.load(m0), w0, r0));
      r1 = madd(v128.load(m1, 16), w1, madd(v128.load(m0, 16), w0, r1));
      r2 = madd(v128.load(m1, 32), w1, madd(v128.load(m0, 32), w0, r2));
      ws = f32x4.add(ws, w);
      i += 2;
      ji += 4;
      wi += 8;
    }
    if (i < used) {
      const w = v128.load32_zero(wi);
      const w0 = lane0(w);
      const m0 = matrix(palette, load<u16>(ji));
      r0 = madd(v128.load(m0), w0, r0);
      r1 = madd(v128.load(m0, 16), w0, r1);
      r2 = madd(v128.load(m0, 32), w0, r2);
      ws = f32x4.add(ws, w);
    }
    if (capped) {
      const s = f32x4.div(f32x4.splat(1), hsum(ws));
      r0 = f32x4.mul(r0, s);
      r1 = f32x4.mul(r1, s);
      r2 = f32x4.mul(r2, s);
    }
    emit(mode, renormalize, e3, r0, r1, r2, o, positions, normals, tangents, outPositions, outNormals, outTangents);
  }
}

// One part with `used` (1..4) influences per vertex and a constant `mode`.
// @ts-ignore: decorator
@inline function skinPart(
  mode: i32,
  renormalize: bool,
  used: i32,
  capped: bool,
  n: u32,
  count: u32,
  palette: usize,
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
  if (used == 4) {
    skinRun(4, mode, renormalize, capped, n, count, palette, jp, wp, o, positions, normals, tangents, outPositions, outNormals, outTangents);
  } else if (used == 2) {
    skinRun(2, mode, renormalize, capped, n, count, palette, jp, wp, o, positions, normals, tangents, outPositions, outNormals, outTangents);
  } else if (used == 3) {
    skinRun(3, mode, renormalize, capped, n, count, palette, jp, wp, o, positions, normals, tangents, outPositions, outNormals, outTangents);
  } else {
    skinRun(1, mode, renormalize, capped, n, count, palette, jp, wp, o, positions, normals, tangents, outPositions, outNormals, outTangents);
  }
}

/**
 * Collapsed-palette skinning. `parts` holds `partCount` pairs of `u32`
 * (influences per vertex, vertex count); joints (`u16`) and weights (`f32`)
 * are stored vertex by vertex, parts one after another. Per vertex
 * `C = sum w * palette[j]` over the first `min(n, maxInfluences)`
 * influences (divided by their weight sum when capped), `p' = C * p`, and
 * per `flags` `n' = C.rot * n`, `t' = (C.rot * t.xyz, t.w)`, renormalized
 * on request.
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
): void {
  // The three-influence loop reads one influence past each vertex; it may
  // do so up to the last influence of the last part.
  let total: u64 = 0;
  for (let p = 0; p < partCount; p++) {
    const pp = parts + (<usize>p << 3);
    total += <u64>load<u32>(pp) * <u64>load<u32>(pp, 4);
  }
  const mode = flags & (NORMALS | TANGENTS);
  const renormalize = (flags & RENORMALIZE) != 0;
  let k: usize = 0;
  let o: usize = 0;
  for (let p = 0; p < partCount; p++) {
    const pp = parts + (<usize>p << 3);
    const n = load<u32>(pp);
    let count = load<u32>(pp, 4);
    const used = <i32>min(<i64>n, <i64>maxInfluences);
    const capped = <i64>used < <i64>n;
    const jp = joints + (k << 1), wp = weights + (k << 2);
    const start = o;
    k += <usize>n * <usize>count;
    o += <usize>count << 4;
    if (count == 0) continue;
    if (used < 1 || used > 4) {
      skinAny(flags, used, capped, n, count, palette, jp, wp, start, positions, normals, tangents, outPositions, outNormals, outTangents);
      continue;
    }
    if (used == 3 && !capped && <u64>k + 1 > total) {
      // The last vertex of the stream: no influence after it to over-read.
      count--;
      const last = <usize>count;
      skinAny(flags, used, capped, n, 1, palette, jp + last * 6, wp + last * 12, start + (last << 4), positions, normals, tangents, outPositions, outNormals, outTangents);
      if (count == 0) continue;
    }
    if (mode == 0) {
      skinPart(0, renormalize, used, capped, n, count, palette, jp, wp, start, positions, normals, tangents, outPositions, outNormals, outTangents);
    } else if (mode == NORMALS) {
      skinPart(NORMALS, renormalize, used, capped, n, count, palette, jp, wp, start, positions, normals, tangents, outPositions, outNormals, outTangents);
    } else if (mode == TANGENTS) {
      skinPart(TANGENTS, renormalize, used, capped, n, count, palette, jp, wp, start, positions, normals, tangents, outPositions, outNormals, outTangents);
    } else {
      skinPart(NORMALS | TANGENTS, renormalize, used, capped, n, count, palette, jp, wp, start, positions, normals, tangents, outPositions, outNormals, outTangents);
    }
  }
}

/**
 * {@link skinVertices} over a table of jobs, 12 `u32` words each: palette,
 * parts, partCount, joints, weights, positions, normals, tangents,
 * outPositions, outNormals, outTangents, flags.
 */
export function skinVerticesBatch(
  jobs: usize,
  jobCount: i32,
  maxInfluences: i32,
): void {
  for (let i = 0; i < jobCount; i++) {
    const j = jobs + <usize>i * 48;
    skinVertices(
      load<u32>(j),
      load<u32>(j, 4),
      load<i32>(j, 8),
      load<u32>(j, 12),
      load<u32>(j, 16),
      load<u32>(j, 20),
      load<u32>(j, 24),
      load<u32>(j, 28),
      load<u32>(j, 32),
      load<u32>(j, 36),
      load<u32>(j, 40),
      load<i32>(j, 44),
      maxInfluences,
    );
  }
}
