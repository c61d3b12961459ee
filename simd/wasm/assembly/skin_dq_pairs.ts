// Dual-quaternion skinning of two-influence vertices sorted by joint pair
// (as SkinAsset writes them), with the semantics of skinDualQuaternions.
//
// For a run of vertices sharing joints A and B (B's dual quaternion negated
// when its rotation is more than 90 degrees from A's), a vertex blends
// b = w0 qA + w1 qB. The transform of b normalised is quadratic in the
// weights: with n^2 = |b.qr|^2 = w0^2 + w1^2 + 2 d w0 w1 (d = qA.qr . qB.qr),
//   n^2 (R | t) = w0^2 A + w1^2 B + w0 w1 X,
// where A and B are the joints' rigid transforms (3x4) and X their
// symmetric cross term (q v p* + p v q* for the rotations, 2 vec(dA rB* +
// dB rA*) for the translation). Since w0^2 + w1^2 = n^2 - 2 d w0 w1,
//   (R | t) = B + a (A - B) + c (X - 2 d B),  a = w0^2 / n^2, c = w0 w1 / n^2.
// So a run computes three 3x4 matrices once, and a vertex costs three
// column transforms, two multiply-adds and its coefficients (no square
// root, no cross product). The joints' scales blend linearly and scale the
// position first, as in the reference.

import { madd, vmax, vmin } from "./common";
import { hsum, lane0, lane1, lane2, lane3, NORMALS, TANGENTS, unitW } from "./skin_common";

// Byte address of joint `index` of a dual-quaternion table (96 bytes each).
// @ts-ignore: decorator
@inline function entry(table: usize, index: u32): usize {
  return table + <usize>index * 96;
}

// Column `i` of M(a, b) = (a v b* + b v a*) / 2 as a matrix acting on v,
// for quaternions a and b (x y z w): h e_i + a_i b.xyz + b_i a.xyz + g x e_i
// with h = a.w b.w - a.xyz . b.xyz and g = a.w b.xyz + b.w a.xyz. M(q, q)
// is q's rotation matrix times |q|^2. Lane 3 is 0.
// @ts-ignore: decorator
@inline function bilinearColumn(a: v128, b: v128, i: i32, xyz: v128): v128 {
  const ab = f32x4.mul(a, b);
  const h = f32x4.sub(lane3(ab), f32x4.add(f32x4.add(lane0(ab), lane1(ab)), lane2(ab)));
  const g = madd(b, lane3(a), f32x4.mul(a, lane3(b)));
  const ng = f32x4.neg(g);
  // h e_i + g x e_i: (h, gz, -gy), (-gz, h, gx), (gy, -gx, h).
  let k: v128;
  if (i == 0) k = i32x4.shuffle(i32x4.shuffle(g, ng, 0, 2, 5, 3), h, 4, 1, 2, 3);
  else if (i == 1) k = i32x4.shuffle(i32x4.shuffle(g, ng, 6, 1, 0, 3), h, 0, 4, 2, 3);
  else k = i32x4.shuffle(i32x4.shuffle(g, ng, 1, 4, 2, 3), h, 0, 1, 4, 3);
  const ai = i == 0 ? lane0(a) : i == 1 ? lane1(a) : lane2(a);
  const bi = i == 0 ? lane0(b) : i == 1 ? lane1(b) : lane2(b);
  return v128.and(madd(b, ai, madd(a, bi, k)), xyz);
}

// 2 vec(d r*) = 2 (r.w d - d.w r + r x d) for quaternions d and r, lane 3 0:
// the translation of the unit dual quaternion (r, d), bilinear in d and r.
// @ts-ignore: decorator
@inline function translation(d: v128, r: v128): v128 {
  const yzxR = i32x4.shuffle(r, r, 1, 2, 0, 3), zxyR = i32x4.shuffle(r, r, 2, 0, 1, 3);
  const yzxD = i32x4.shuffle(d, d, 1, 2, 0, 3), zxyD = i32x4.shuffle(d, d, 2, 0, 1, 3);
  const cross = f32x4.sub(f32x4.mul(yzxR, zxyD), f32x4.mul(zxyR, yzxD));
  const t = f32x4.add(f32x4.sub(f32x4.mul(lane3(r), d), f32x4.mul(lane3(d), r)), cross);
  return f32x4.add(t, t);
}

// The translation of a joint's palette rows (48 bytes into its entry), lane 3 0.
// @ts-ignore: decorator
@inline function jointTranslation(e: usize, xyz: v128): v128 {
  const r01 = i32x4.shuffle(v128.load(e, 48), v128.load(e, 64), 3, 7, 3, 7);
  return v128.and(i32x4.shuffle(r01, v128.load(e, 80), 0, 1, 7, 7), xyz);
}

// `m0 x + m1 y + m2 z + m3` for the splats x, y, z.
// @ts-ignore: decorator
@inline function affine(m0: v128, m1: v128, m2: v128, m3: v128, x: v128, y: v128, z: v128): v128 {
  return madd(m2, z, madd(m1, y, madd(m0, x, m3)));
}

// One vertex at byte offset `o` with coefficients a, c and scale s (splats):
// streams transformed by B + a A' + c X' and stored; returns the position.
// Directions start from +0 so that their w is +0, as the reference writes.
// @ts-ignore: decorator
@inline function pairVertex(
  mode: i32,
  a: v128, c: v128, s: v128,
  b0: v128, b1: v128, b2: v128, b3: v128,
  a0: v128, a1: v128, a2: v128, a3: v128,
  x0: v128, x1: v128, x2: v128, x3: v128,
  o: usize,
  positions: usize,
  normals: usize,
  tangents: usize,
  outPositions: usize,
  outNormals: usize,
  outTangents: usize,
): v128 {
  const p = f32x4.mul(v128.load(positions + o), s);
  const x = lane0(p), y = lane1(p), z = lane2(p);
  const out = madd(affine(x0, x1, x2, x3, x, y, z), c, madd(affine(a0, a1, a2, a3, x, y, z), a, affine(b0, b1, b2, b3, x, y, z)));
  v128.store(outPositions + o, out);
  if (mode & NORMALS) {
    const nv = v128.load(normals + o);
    const zero = f32x4.splat(0);
    const nx = lane0(nv), ny = lane1(nv), nz = lane2(nv);
    const n = madd(affine(x0, x1, x2, zero, nx, ny, nz), c, madd(affine(a0, a1, a2, zero, nx, ny, nz), a, affine(b0, b1, b2, zero, nx, ny, nz)));
    v128.store(outNormals + o, n);
  }
  if (mode & TANGENTS) {
    const tv = v128.load(tangents + o);
    const zero = f32x4.splat(0);
    const tx = lane0(tv), ty = lane1(tv), tz = lane2(tv);
    const t = madd(affine(x0, x1, x2, zero, tx, ty, tz), c, madd(affine(a0, a1, a2, zero, tx, ty, tz), a, affine(b0, b1, b2, zero, tx, ty, tz)));
    v128.store(outTangents + o, i32x4.shuffle(t, tv, 0, 1, 2, 7));
  }
  return out;
}

// The runs one after another, two vertices per iteration while both are in
// the run (one joint-word compare, one weight load and one reciprocal for
// both). `w` holds (w0, w1) of the first vertex, then of the second.
// @ts-ignore: decorator
@inline function pairRuns(
  mode: i32,
  bounded: bool,
  capped: bool,
  bounds: usize,
  n: u32,
  count: u32,
  table: usize,
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
  let lo = f32x4.splat(0), hi = lo;
  if (bounded) {
    lo = v128.load(bounds);
    hi = v128.load(bounds, 16);
  }
  while (o < end) {
    const jj = load<u32>(jp);
    const e3 = unitW(count);
    const xyz = i32x4(-1, -1, -1, 0);
    const ea = entry(table, jj & 0xffff), eb = entry(table, jj >>> 16);
    const rA = v128.load(ea), dA = v128.load(ea, 16);
    // The shorter arc: B negated when its rotation is more than 90 degrees
    // from A's (as the reference, which tests qr . q0 < 0).
    const dot = hsum(f32x4.mul(rA, v128.load(eb)));
    const flip = v128.and(dot, i32x4.splat(0x80000000));
    const rB = v128.xor(v128.load(eb), flip), dB = v128.xor(v128.load(eb, 16), flip);
    const twoD = f32x4.abs(f32x4.add(dot, dot));
    const scales = i32x4.shuffle(v128.load(ea, 32), v128.load(eb, 32), 0, 4, 0, 4);
    // B, A - B and X - 2 d B; lane 3 of B's translation 1, of the others 0.
    const b0 = bilinearColumn(rB, rB, 0, xyz), b1 = bilinearColumn(rB, rB, 1, xyz), b2 = bilinearColumn(rB, rB, 2, xyz);
    // The joints' own translations are their palette rows' fourth column
    // (2 qd qr* reproduces it up to rounding).
    const tB = jointTranslation(eb, xyz);
    const b3 = i32x4.shuffle(tB, e3, 0, 1, 2, 7);
    const a0 = f32x4.sub(bilinearColumn(rA, rA, 0, xyz), b0);
    const a1 = f32x4.sub(bilinearColumn(rA, rA, 1, xyz), b1);
    const a2 = f32x4.sub(bilinearColumn(rA, rA, 2, xyz), b2);
    const a3 = f32x4.sub(jointTranslation(ea, xyz), tB);
    const nd = f32x4.neg(twoD);
    const x0 = madd(b0, nd, f32x4.add(bilinearColumn(rA, rB, 0, xyz), bilinearColumn(rA, rB, 0, xyz)));
    const x1 = madd(b1, nd, f32x4.add(bilinearColumn(rA, rB, 1, xyz), bilinearColumn(rA, rB, 1, xyz)));
    const x2 = madd(b2, nd, f32x4.add(bilinearColumn(rA, rB, 2, xyz), bilinearColumn(rA, rB, 2, xyz)));
    const x3 = madd(tB, nd, f32x4.add(translation(dA, rB), translation(dB, rA)));
    const both = <u64>jj | (<u64>jj << 32);
    const one = f32x4.splat(1);
    for (; o + 16 < end; o += 32, jp += jStride << 1, wp += wStride << 1) {
      if (capped ? load<u32>(jp) != jj || load<u32>(jp + jStride) != jj : load<u64>(jp) != both) break;
      const w = capped ? i32x4.shuffle(v128.load64_zero(wp), v128.load64_zero(wp + wStride), 0, 1, 4, 5) : v128.load(wp);
      const sw = i32x4.shuffle(w, w, 1, 0, 3, 2);
      const prod = f32x4.mul(w, sw);
      const sq = f32x4.mul(w, w);
      // 1 / n^2 of each vertex in both of its lanes; the scale
      // (w0 sA + w1 sB) / (w0 + w1).
      const inv = f32x4.div(one, madd(prod, twoD, madd(sw, sw, sq)));
      const ca = f32x4.mul(sq, inv), cc = f32x4.mul(prod, inv);
      const s = f32x4.div(madd(sw, i32x4.shuffle(scales, scales, 1, 0, 3, 2), f32x4.mul(w, scales)), f32x4.add(w, sw));
      const out0 = pairVertex(mode, lane0(ca), lane0(cc), lane0(s), b0, b1, b2, b3, a0, a1, a2, a3, x0, x1, x2, x3, o, positions, normals, tangents, outPositions, outNormals, outTangents);
      const out1 = pairVertex(mode, lane2(ca), lane2(cc), lane2(s), b0, b1, b2, b3, a0, a1, a2, a3, x0, x1, x2, x3, o + 16, positions, normals, tangents, outPositions, outNormals, outTangents);
      if (bounded) {
        lo = vmin(lo, vmin(out0, out1));
        hi = vmax(hi, vmax(out0, out1));
      }
    }
    // The run's last vertex, or the first of a pair that leaves it.
    if (o < end && load<u32>(jp) == jj) {
      const w = v128.load64_zero(wp);
      const sw = i32x4.shuffle(w, w, 1, 0, 3, 2);
      const prod = f32x4.mul(w, sw);
      const sq = f32x4.mul(w, w);
      const inv = f32x4.div(one, madd(prod, twoD, madd(sw, sw, sq)));
      const s = f32x4.div(madd(sw, i32x4.shuffle(scales, scales, 1, 0, 3, 2), f32x4.mul(w, scales)), f32x4.add(w, sw));
      const out = pairVertex(mode, lane0(f32x4.mul(sq, inv)), lane0(f32x4.mul(prod, inv)), lane0(s), b0, b1, b2, b3, a0, a1, a2, a3, x0, x1, x2, x3, o, positions, normals, tangents, outPositions, outNormals, outTangents);
      if (bounded) {
        lo = vmin(lo, out);
        hi = vmax(hi, out);
      }
      o += 16;
      jp += jStride;
      wp += wStride;
    }
  }
  if (bounded) {
    v128.store(bounds, lo);
    v128.store(bounds, hi, 16);
  }
}

// pairRuns with `bounds` dispatched to a constant; `capped` stays a value
// (a predictable branch per iteration: each constant doubles the code).
// @ts-ignore: decorator
@inline function pairRunsOf(
  mode: i32,
  bounds: usize,
  capped: bool,
  n: u32,
  count: u32,
  table: usize,
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
  if (bounds) pairRuns(mode, true, capped, bounds, n, count, table, jp, wp, o, positions, normals, tangents, outPositions, outNormals, outTangents);
  else pairRuns(mode, false, capped, 0, n, count, table, jp, wp, o, positions, normals, tangents, outPositions, outNormals, outTangents);
}

// Dual-quaternion skinning of `count` vertices whose first two of `n`
// influences are used (`capped` when n > 2), sorted by joint pair, as a
// function of its own (V8 allocates registers per function). `mode` is
// flags & (NORMALS | TANGENTS); `bounds` 0 for none.
export function skinDualQuaternionPairs(
  mode: i32,
  bounds: usize,
  capped: bool,
  n: u32,
  count: u32,
  table: usize,
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
  if (mode == 0) pairRunsOf(0, bounds, capped, n, count, table, jp, wp, o, positions, normals, tangents, outPositions, outNormals, outTangents);
  else if (mode == NORMALS) pairRunsOf(NORMALS, bounds, capped, n, count, table, jp, wp, o, positions, normals, tangents, outPositions, outNormals, outTangents);
  else if (mode == TANGENTS) pairRunsOf(TANGENTS, bounds, capped, n, count, table, jp, wp, o, positions, normals, tangents, outPositions, outNormals, outTangents);
  else pairRunsOf(NORMALS | TANGENTS, bounds, capped, n, count, table, jp, wp, o, positions, normals, tangents, outPositions, outNormals, outTangents);
}
