// Collapsed-palette skinning over a palette transposed once per call into
// columns (paper 003): with columns, `C * p` is three multiply-adds of
// splatted coordinates and the collapse is multiply-adds too, so a vertex
// needs no shuffle at all, where the row form needs a transpose-add per
// position and a transpose per vertex for normals and tangents. Shuffles
// run on one port on x86; they bounded the row form. Semantics are those
// of skinVertices in reference.ts.

import { madd } from "./common";
import { NORMALS, RENORMALIZE, TANGENTS, unit, unitW } from "./skin_common";

/** Bytes per transposed joint: columns c0, c1, c2, c3, each (x, y, z, 0). */
// @ts-ignore: decorator
@inline export const COLUMN_BYTES = 64;

// Byte address of transposed joint `joint`.
// @ts-ignore: decorator
@inline function columns(base: usize, joint: u32): usize {
  return base + (<usize>joint << 6);
}

/**
 * Writes the columns of the first `jointCount` 3x4 matrices at `palette`
 * to `scratch` (64 bytes per joint), with the implicit fourth row zero.
 */
export function transposePalette(palette: usize, jointCount: i32, scratch: usize): void {
  const z = f32x4.splat(0);
  for (let j = 0; j < jointCount; j++) {
    const m = palette + <usize>j * 48, t = scratch + (<usize>j << 6);
    const r0 = v128.load(m), r1 = v128.load(m, 16), r2 = v128.load(m, 32);
    const t0 = i32x4.shuffle(r0, r1, 0, 4, 1, 5);
    const t1 = i32x4.shuffle(r0, r1, 2, 6, 3, 7);
    const t2 = i32x4.shuffle(r2, z, 0, 4, 1, 5);
    const t3 = i32x4.shuffle(r2, z, 2, 6, 3, 7);
    v128.store(t, i32x4.shuffle(t0, t2, 0, 1, 4, 5));
    v128.store(t, i32x4.shuffle(t0, t2, 2, 3, 6, 7), 16);
    v128.store(t, i32x4.shuffle(t1, t3, 0, 1, 4, 5), 32);
    v128.store(t, i32x4.shuffle(t1, t3, 2, 3, 6, 7), 48);
  }
}

// `v = c0 * x + c1 * y + c2 * z + acc` for the vertex at `at`, its
// coordinates splatted by loads (a load port, not the shuffle port).
// @ts-ignore: decorator
@inline function apply(c0: v128, c1: v128, c2: v128, acc: v128, at: usize): v128 {
  return madd(
    c0,
    v128.load32_splat(at),
    madd(c1, v128.load32_splat(at, 4), madd(c2, v128.load32_splat(at, 8), acc)),
  );
}

// `count` vertices whose first `K` (1..4) influences are used, `n` stored
// per vertex, through transposed joints at `cols`. `capped` (n > K) scales
// the weights by the inverse of their sum; a single used influence is its
// joint's matrix. Every input is loaded exactly (no over-read).
// @ts-ignore: decorator
@inline export function skinColumnsRun(
  K: i32,
  mode: i32,
  renormalize: bool,
  capped: bool,
  n: u32,
  count: u32,
  cols: usize,
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
  // Held, not rematerialized: (0, 0, 0, 1), zero and the xyz mask.
  const e3 = unitW(<i32>count);
  const zero = f32x4.sub(e3, e3);
  const xyz = i32x4.eq(e3, zero);
  for (; o < end; o += 16, jp += jStride, wp += wStride) {
    let c0: v128, c1: v128, c2: v128, c3: v128;
    if (K == 1) {
      // Rigid: no weight work (a single influence's weight is 1 after the
      // renormalization every skin asset makes; see reference.ts).
      const a = columns(cols, load<u16>(jp));
      c0 = v128.load(a);
      c1 = v128.load(a, 16);
      c2 = v128.load(a, 32);
      c3 = v128.load(a, 48);
    } else {
      let w0 = v128.load32_splat(wp), w1 = v128.load32_splat(wp, 4);
      let w2 = zero, w3 = zero;
      if (K >= 3) w2 = v128.load32_splat(wp, 8);
      if (K == 4) w3 = v128.load32_splat(wp, 12);
      if (capped) {
        let sum = load<f32>(wp) + load<f32>(wp, 4);
        if (K >= 3) sum += load<f32>(wp, 8);
        if (K == 4) sum += load<f32>(wp, 12);
        const s = f32x4.splat(<f32>1 / sum);
        w0 = f32x4.mul(w0, s);
        w1 = f32x4.mul(w1, s);
        w2 = f32x4.mul(w2, s);
        w3 = f32x4.mul(w3, s);
      }
      let a0: usize, a1: usize, a2: usize = 0, a3: usize = 0;
      if (K == 2) {
        const jj = load<u32>(jp);
        a0 = columns(cols, jj & 0xffff);
        a1 = columns(cols, jj >>> 16);
      } else if (K == 3) {
        const jj = load<u32>(jp);
        a0 = columns(cols, jj & 0xffff);
        a1 = columns(cols, jj >>> 16);
        a2 = columns(cols, load<u16>(jp, 4));
      } else {
        const jj = load<u64>(jp);
        const lo = <u32>jj, hi = <u32>(jj >>> 32);
        a0 = columns(cols, lo & 0xffff);
        a1 = columns(cols, lo >>> 16);
        a2 = columns(cols, hi & 0xffff);
        a3 = columns(cols, hi >>> 16);
      }
      c0 = madd(v128.load(a1), w1, f32x4.mul(v128.load(a0), w0));
      c1 = madd(v128.load(a1, 16), w1, f32x4.mul(v128.load(a0, 16), w0));
      c2 = madd(v128.load(a1, 32), w1, f32x4.mul(v128.load(a0, 32), w0));
      c3 = madd(v128.load(a1, 48), w1, f32x4.mul(v128.load(a0, 48), w0));
      if (K >= 3) {
        c0 = madd(v128.load(a2), w2, c0);
        c1 = madd(v128.load(a2, 16), w2, c1);
        c2 = madd(v128.load(a2, 32), w2, c2);
        c3 = madd(v128.load(a2, 48), w2, c3);
      }
      if (K == 4) {
        c0 = madd(v128.load(a3), w3, c0);
        c1 = madd(v128.load(a3, 16), w3, c1);
        c2 = madd(v128.load(a3, 32), w3, c2);
        c3 = madd(v128.load(a3, 48), w3, c3);
      }
    }
    // Lane 3 of every column is ±0, so w comes out as exactly 1.
    v128.store(outPositions + o, apply(c0, c1, c2, f32x4.add(c3, e3), positions + o));
    if (mode & NORMALS) {
      // From +0, so that w stays +0 as the reference writes it.
      let nv = apply(c0, c1, c2, zero, normals + o);
      if (renormalize) nv = unit(nv);
      v128.store(outNormals + o, nv);
    }
    if (mode & TANGENTS) {
      const t = tangents + o;
      if (renormalize) {
        const tv = unit(apply(c0, c1, c2, zero, t));
        v128.store(outTangents + o, v128.or(tv, v128.andnot(v128.load(t), xyz)));
      } else {
        // Handedness rides in lane 3 of the accumulator: ±0 * x + w = w.
        v128.store(outTangents + o, apply(c0, c1, c2, v128.andnot(v128.load(t), xyz), t));
      }
    }
  }
}
