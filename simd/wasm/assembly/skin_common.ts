// Vector helpers and flags shared by the skinning kernels.

import { MATRIX_BYTES, SKIN_NORMALS, SKIN_RENORMALIZE, SKIN_TANGENTS } from "./abi";
import { vmax, vmin } from "./common";

// The skinning flags of abi.ts, under the loops' short names.
// @ts-ignore: decorator
@inline export const NORMALS = SKIN_NORMALS;
// @ts-ignore: decorator
@inline export const TANGENTS = SKIN_TANGENTS;
// @ts-ignore: decorator
@inline export const RENORMALIZE = SKIN_RENORMALIZE;

// Byte address of joint matrix `joint`.
// @ts-ignore: decorator
@inline export function matrix(base: usize, joint: u32): usize {
  return base + <usize>joint * MATRIX_BYTES;
}

// @ts-ignore: decorator
@inline export function lane0(v: v128): v128 {
  return i32x4.shuffle(v, v, 0, 0, 0, 0);
}
// @ts-ignore: decorator
@inline export function lane1(v: v128): v128 {
  return i32x4.shuffle(v, v, 1, 1, 1, 1);
}
// @ts-ignore: decorator
@inline export function lane2(v: v128): v128 {
  return i32x4.shuffle(v, v, 2, 2, 2, 2);
}
// @ts-ignore: decorator
@inline export function lane3(v: v128): v128 {
  return i32x4.shuffle(v, v, 3, 3, 3, 3);
}

// The horizontal sum of all four lanes, in every lane.
// @ts-ignore: decorator
@inline export function hsum(v: v128): v128 {
  const s = f32x4.add(v, i32x4.shuffle(v, v, 1, 0, 3, 2));
  return f32x4.add(s, i32x4.shuffle(s, s, 2, 3, 0, 1));
}

// (sum a, sum b, sum c, sum d): the horizontal sums of four vectors, one
// transpose-add.
// @ts-ignore: decorator
@inline function hsum4(a: v128, b: v128, c: v128, d: v128): v128 {
  const ab = f32x4.add(
    i32x4.shuffle(a, b, 0, 4, 1, 5),
    i32x4.shuffle(a, b, 2, 6, 3, 7),
  );
  const cd = f32x4.add(
    i32x4.shuffle(c, d, 0, 4, 1, 5),
    i32x4.shuffle(c, d, 2, 6, 3, 7),
  );
  return f32x4.add(
    i32x4.shuffle(ab, cd, 0, 1, 4, 5),
    i32x4.shuffle(ab, cd, 2, 3, 6, 7),
  );
}

// (sum a, sum b, sum c, 1): the transpose-add of three dot-product rows.
// `e3` = (0, 0, 0, 1) as a fourth row makes w come out as exactly 1.
// @ts-ignore: decorator
@inline export function hsum3w(a: v128, b: v128, c: v128, e3: v128): v128 {
  return hsum4(a, b, c, e3);
}

// (0, 0, 0, 1), built from `seed` so that it is computed once before a loop
// and kept: V8 rematerializes a v128 constant at every use, three to five
// instructions each time, where a held value costs at most a reload.
// @ts-ignore: decorator
@inline export function unitW(seed: i32): v128 {
  const s = f32x4.splat(<f32>seed);
  return v128.and(f32x4.eq(s, s), f32x4(0, 0, 0, 1));
}

// Byte addresses of the four joint matrices whose u16 indices are at `jp`,
// `base` = splat(palette): one widening load and three vector ops instead of
// splitting a 64-bit word and multiplying in general registers. Faster in
// skinPositions; in the collapsed-palette loops, which hold more values,
// the lane extracts cost more than they save, so those split a u64.
// @ts-ignore: decorator
@inline export function addresses4(jp: usize, base: v128): v128 {
  const j16 = i32x4.shl(v128.load16x4_u(jp), 4);
  return i32x4.add(i32x4.add(j16, i32x4.add(j16, j16)), base);
}

// (xyz * inv[k], w). With `keepW` w is copied bit for bit (`xyz` masks the
// first three lanes); without, w is zero and stays zero.
// @ts-ignore: decorator
@inline function scaleXYZ(keepW: bool, v: v128, inv: v128, xyz: v128, k: i32): v128 {
  const s = k == 0 ? lane0(inv) : k == 1 ? lane1(inv) : k == 2 ? lane2(inv) : lane3(inv);
  return keepW ? v128.bitselect(f32x4.mul(v, s), v, xyz) : f32x4.mul(v, s);
}

// 1 / |xyz| of a, b, c, d (their squares given, w zeroed), or 0 where the
// length is zero or not finite.
// @ts-ignore: decorator
@inline function inverseLengths(a: v128, b: v128, c: v128, d: v128, one: v128): v128 {
  const s = hsum4(a, b, c, d);
  return v128.and(f32x4.div(one, f32x4.sqrt(s)), f32x4.gt(s, f32x4.splat(0)));
}

// renormalizeDirections with `keepW` a constant: normals (w zero) need no
// masking.
// @ts-ignore: decorator
@inline function renormalizeFour(keepW: bool, p: usize, end: usize): void {
  const one = f32x4.splat(1);
  const xyz = i32x4.shuffle(f32x4.eq(one, one), f32x4.splat(0), 0, 1, 2, 4);
  for (; p + 48 < end; p += 64) {
    const a = v128.load(p), b = v128.load(p, 16), c = v128.load(p, 32), d = v128.load(p, 48);
    const am = keepW ? v128.and(a, xyz) : a, bm = keepW ? v128.and(b, xyz) : b;
    const cm = keepW ? v128.and(c, xyz) : c, dm = keepW ? v128.and(d, xyz) : d;
    const inv = inverseLengths(f32x4.mul(am, am), f32x4.mul(bm, bm), f32x4.mul(cm, cm), f32x4.mul(dm, dm), one);
    v128.store(p, scaleXYZ(keepW, a, inv, xyz, 0));
    v128.store(p, scaleXYZ(keepW, b, inv, xyz, 1), 16);
    v128.store(p, scaleXYZ(keepW, c, inv, xyz, 2), 32);
    v128.store(p, scaleXYZ(keepW, d, inv, xyz, 3), 48);
  }
  for (; p < end; p += 16) {
    const a = v128.load(p), am = v128.and(a, xyz), a2 = f32x4.mul(am, am);
    v128.store(p, scaleXYZ(true, a, inverseLengths(a2, a2, a2, a2, one), xyz, 0));
  }
}

/**
 * Renormalizes the `count` directions at `p` in place, four per step (paper
 * 003's 4-wide renormalization): one square root and one division for four
 * directions, where one of each per direction made renormalizing cost as
 * much as skinning. xyz become xyz / |xyz| (zero when |xyz| is zero); w is
 * kept, and must be zero unless `keepW`.
 */
export function renormalizeDirections(keepW: bool, p: usize, count: u32): void {
  const end = p + (<usize>count << 4);
  if (keepW) renormalizeFour(true, p, end);
  else renormalizeFour(false, p, end);
}

// Widens the box at `bounds` to the positions from `p` to `end`, just
// written (in L1): a pass of its own keeps the bounds out of the run loop's
// registers, where the held columns and two vertices fill them.
// @ts-ignore: decorator
@inline export function runBounds(bounds: usize, p: usize, end: usize): void {
  let lo = v128.load(bounds), hi = v128.load(bounds, 16);
  for (; p + 48 < end; p += 64) {
    const u = v128.load(p), v = v128.load(p, 16), s = v128.load(p, 32), t = v128.load(p, 48);
    lo = vmin(lo, vmin(vmin(u, v), vmin(s, t)));
    hi = vmax(hi, vmax(vmax(u, v), vmax(s, t)));
  }
  for (; p + 16 < end; p += 32) {
    const u = v128.load(p), v = v128.load(p, 16);
    lo = vmin(lo, vmin(u, v));
    hi = vmax(hi, vmax(u, v));
  }
  if (p < end) {
    const u = v128.load(p);
    lo = vmin(lo, u);
    hi = vmax(hi, u);
  }
  v128.store(bounds, lo);
  v128.store(bounds, hi, 16);
}
