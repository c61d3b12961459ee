// Skeleton transforms on 3x4 joint matrices: one matrix per iteration, the
// SIMD inside each product (the seed's "compressed calculation").
// Semantics: `localToModel`, `modelToLocal` and `multiplyMatrices` of
// simd/scalar/mod.ts.
//
// V8 bounds-checks every memory access and rematerializes every v128
// constant at each use (a zero costs an instruction per use, a mask three),
// so rows stay in registers where a chain allows it, and the zero vector is
// derived from an argument once per call.

import {
  HIERARCHY_COUNT, HIERARCHY_IN, HIERARCHY_OUT, HIERARCHY_PARENTS, JOB_BYTES, MATRIX_BYTES, MULTIPLY_A,
  MULTIPLY_B, MULTIPLY_COUNT, MULTIPLY_OUT,
} from "./abi";
import { field, madd } from "./common";


/** c - a * b, four lanes (fused in the relaxed build). */
// @ts-ignore: decorator
@inline function nmadd(a: v128, b: v128, c: v128): v128 {
  if (ASC_FEATURE_RELAXED_SIMD) return f32x4.relaxed_nmadd(a, b, c);
  return f32x4.sub(c, f32x4.mul(a, b));
}

/**
 * `(0, 0, 0, a.w)`, from a blend with a zero vector: how row `a` of A picks
 * up its translation through the implicit `0 0 0 1` row of B.
 */
// @ts-ignore: decorator
@inline function translation(a: v128, zero: v128): v128 {
  return f32x4.shuffle(zero, a, 0, 1, 2, 7);
}

/**
 * Row `a` of A times B (rows `b0..b2`). The sum is a tree: in a chain of
 * joints this is the loop-carried path, 10 cycles instead of 13 for a
 * chain of fused multiply-adds.
 */
// @ts-ignore: decorator
@inline function rowTree(
  a: v128,
  b0: v128,
  b1: v128,
  b2: v128,
  zero: v128,
): v128 {
  const p = f32x4.add(
    f32x4.mul(f32x4.shuffle(a, a, 0, 0, 0, 0), b0),
    f32x4.mul(f32x4.shuffle(a, a, 1, 1, 1, 1), b1),
  );
  return f32x4.add(
    p,
    madd(f32x4.shuffle(a, a, 2, 2, 2, 2), b2, translation(a, zero)),
  );
}

/** Row `a` of A times B as a chain of multiply-adds: fewest operations. */
// @ts-ignore: decorator
@inline export function rowChain(
  a: v128,
  b0: v128,
  b1: v128,
  b2: v128,
  zero: v128,
): v128 {
  return madd(
    f32x4.shuffle(a, a, 2, 2, 2, 2),
    b2,
    madd(
      f32x4.shuffle(a, a, 1, 1, 1, 1),
      b1,
      madd(f32x4.shuffle(a, a, 0, 0, 0, 0), b0, translation(a, zero)),
    ),
  );
}

/**
 * A zero vector computed from `n`, an argument that is >= 0 whenever the
 * caller's loop runs, so that V8 keeps it in a register.
 */
// @ts-ignore: decorator
@inline export function zeroFrom(n: i32): v128 {
  return i32x4.splat(<i32>(<u32>n >> 31));
}

/**
 * Local to model space over joints `first..last`:
 * `model[i] = model[parents[i]] * local[i]`, a root (`parents[i] < 0`)
 * copying `local[i]`. Parents come before their children.
 */
export function localToModel(
  local: usize,
  model: usize,
  parents: usize,
  first: i32,
  last: i32,
): void {
  const zero = zeroFrom(last - first);
  // model[i - 1] stays in registers: in chains (parent == i - 1, the usual
  // case in depth-first joint orders) reloading it would add a
  // store-to-load forwarding round trip to the dependency chain.
  let c0 = i32x4.splat(0), c1 = c0, c2 = c0;
  let held = -1;
  for (let i = first; i <= last; i++) {
    const p = <i32>load<i16>(parents + (<usize>i << 1));
    const l = local + <usize>i * MATRIX_BYTES;
    const b0 = v128.load(l);
    const b1 = v128.load(l, 16);
    const b2 = v128.load(l, 32);
    if (p < 0) {
      c0 = b0;
      c1 = b1;
      c2 = b2;
    } else {
      if (p != held) {
        const m = model + <usize>p * MATRIX_BYTES;
        c0 = v128.load(m);
        c1 = v128.load(m, 16);
        c2 = v128.load(m, 32);
      }
      c0 = rowTree(c0, b0, b1, b2, zero);
      c1 = rowTree(c1, b0, b1, b2, zero);
      c2 = rowTree(c2, b0, b1, b2, zero);
    }
    const o = model + <usize>i * MATRIX_BYTES;
    v128.store(o, c0);
    v128.store(o, c1, 16);
    v128.store(o, c2, 32);
    held = i;
  }
}

/** Batch form: job words `local, model, parents, count` (joints 0..count-1). */
export function localToModelBatch(jobs: usize, jobCount: i32): void {
  for (let j = 0; j < jobCount; j++, jobs += JOB_BYTES) {
    localToModel(
      field<u32>(jobs, HIERARCHY_IN),
      field<u32>(jobs, HIERARCHY_OUT),
      field<u32>(jobs, HIERARCHY_PARENTS),
      0,
      field<i32>(jobs, HIERARCHY_COUNT) - 1,
    );
  }
}

/**
 * Model to local space over joints `last` down to `first`:
 * `local[i] = inverse(model[parents[i]]) * model[i]`, a root copying
 * `model[i]`. `local` may equal `model`.
 */
export function modelToLocal(
  model: usize,
  local: usize,
  parents: usize,
  first: i32,
  last: i32,
): void {
  const zero = zeroFrom(last - first);
  // The parent's rows of one iteration are, in a chain, the next
  // iteration's own matrix (and a sibling's parent): keep them. model[p]
  // is still unwritten then even in place, as the walk only goes down.
  let a0 = i32x4.splat(0), a1 = a0, a2 = a0;
  let held = -1;
  for (let i = last; i >= first; i--) {
    const p = <i32>load<i16>(parents + (<usize>i << 1));
    let b0: v128, b1: v128, b2: v128;
    if (i == held) {
      b0 = a0;
      b1 = a1;
      b2 = a2;
    } else {
      const m = model + <usize>i * MATRIX_BYTES;
      b0 = v128.load(m);
      b1 = v128.load(m, 16);
      b2 = v128.load(m, 32);
    }
    const o = local + <usize>i * MATRIX_BYTES;
    if (p < 0) {
      v128.store(o, b0);
      v128.store(o, b1, 16);
      v128.store(o, b2, 32);
      continue;
    }
    if (p != held) {
      const m = model + <usize>p * MATRIX_BYTES;
      a0 = v128.load(m);
      a1 = v128.load(m, 16);
      a2 = v128.load(m, 32);
      held = p;
    }
    // inverse(R) has the columns k0 = a1 x a2, k1 = a2 x a0, k2 = a0 x a1
    // over det = a0 . k0 (lane 3 of the products is unused garbage).
    const a0yzx = f32x4.shuffle(a0, a0, 1, 2, 0, 3);
    const a0zxy = f32x4.shuffle(a0, a0, 2, 0, 1, 3);
    const a1yzx = f32x4.shuffle(a1, a1, 1, 2, 0, 3);
    const a1zxy = f32x4.shuffle(a1, a1, 2, 0, 1, 3);
    const a2yzx = f32x4.shuffle(a2, a2, 1, 2, 0, 3);
    const a2zxy = f32x4.shuffle(a2, a2, 2, 0, 1, 3);
    const k0 = nmadd(a1zxy, a2yzx, f32x4.mul(a1yzx, a2zxy));
    const k1 = nmadd(a2zxy, a0yzx, f32x4.mul(a2yzx, a0zxy));
    const k2 = nmadd(a0zxy, a1yzx, f32x4.mul(a0yzx, a1zxy));
    const d = f32x4.mul(a0, k0);
    const det = f32x4.add(
      f32x4.add(
        f32x4.shuffle(d, d, 0, 0, 0, 0),
        f32x4.shuffle(d, d, 1, 1, 1, 1),
      ),
      f32x4.shuffle(d, d, 2, 2, 2, 2),
    );
    const inv = f32x4.div(f32x4.splat(1), det);
    // inverse(A) * B = inverse(R) * (B - [0 | t_A]).
    b0 = f32x4.sub(b0, translation(a0, zero));
    b1 = f32x4.sub(b1, translation(a1, zero));
    b2 = f32x4.sub(b2, translation(a2, zero));
    const r0 = madd(
      f32x4.shuffle(k2, k2, 0, 0, 0, 0),
      b2,
      madd(
        f32x4.shuffle(k1, k1, 0, 0, 0, 0),
        b1,
        f32x4.mul(f32x4.shuffle(k0, k0, 0, 0, 0, 0), b0),
      ),
    );
    const r1 = madd(
      f32x4.shuffle(k2, k2, 1, 1, 1, 1),
      b2,
      madd(
        f32x4.shuffle(k1, k1, 1, 1, 1, 1),
        b1,
        f32x4.mul(f32x4.shuffle(k0, k0, 1, 1, 1, 1), b0),
      ),
    );
    const r2 = madd(
      f32x4.shuffle(k2, k2, 2, 2, 2, 2),
      b2,
      madd(
        f32x4.shuffle(k1, k1, 2, 2, 2, 2),
        b1,
        f32x4.mul(f32x4.shuffle(k0, k0, 2, 2, 2, 2), b0),
      ),
    );
    v128.store(o, f32x4.mul(r0, inv));
    v128.store(o, f32x4.mul(r1, inv), 16);
    v128.store(o, f32x4.mul(r2, inv), 32);
  }
}

/** Batch form: job words `model, local, parents, count` (joints 0..count-1). */
export function modelToLocalBatch(jobs: usize, jobCount: i32): void {
  for (let j = 0; j < jobCount; j++, jobs += JOB_BYTES) {
    modelToLocal(
      field<u32>(jobs, HIERARCHY_IN),
      field<u32>(jobs, HIERARCHY_OUT),
      field<u32>(jobs, HIERARCHY_PARENTS),
      0,
      field<i32>(jobs, HIERARCHY_COUNT) - 1,
    );
  }
}

/** `out[0] = a[0] * b[0]`: one matrix at each pointer. */
// @ts-ignore: decorator
@inline function multiplyOne(
  a: usize,
  b: usize,
  out: usize,
  zero: v128,
): void {
  const b0 = v128.load(b);
  const b1 = v128.load(b, 16);
  const b2 = v128.load(b, 32);
  const a0 = v128.load(a);
  const a1 = v128.load(a, 16);
  const a2 = v128.load(a, 32);
  v128.store(out, rowChain(a0, b0, b1, b2, zero));
  v128.store(out, rowChain(a1, b0, b1, b2, zero), 16);
  v128.store(out, rowChain(a2, b0, b1, b2, zero), 32);
}

/** `out[i] = a[i] * b[i]` for `count` matrices. */
export function multiplyMatrices(
  a: usize,
  b: usize,
  out: usize,
  count: i32,
): void {
  const zero = zeroFrom(count);
  let i = 0;
  // Four per iteration, the pointers advanced between them rather than
  // folded into offsets: the same three offsets share V8's bounds-check
  // limits, and the per-iteration loop overhead is paid once per four.
  for (; i + 4 <= count; i += 4) {
    multiplyOne(a, b, out, zero);
    a += MATRIX_BYTES;
    b += MATRIX_BYTES;
    out += MATRIX_BYTES;
    multiplyOne(a, b, out, zero);
    a += MATRIX_BYTES;
    b += MATRIX_BYTES;
    out += MATRIX_BYTES;
    multiplyOne(a, b, out, zero);
    a += MATRIX_BYTES;
    b += MATRIX_BYTES;
    out += MATRIX_BYTES;
    multiplyOne(a, b, out, zero);
    a += MATRIX_BYTES;
    b += MATRIX_BYTES;
    out += MATRIX_BYTES;
  }
  for (; i < count; i++) {
    multiplyOne(a, b, out, zero);
    a += MATRIX_BYTES;
    b += MATRIX_BYTES;
    out += MATRIX_BYTES;
  }
}

/** Batch form of {@link multiplyMatrices}: job words `a, b, out, count`. */
export function multiplyMatricesBatch(jobs: usize, jobCount: i32): void {
  for (let j = 0; j < jobCount; j++, jobs += JOB_BYTES) {
    multiplyMatrices(
      field<u32>(jobs, MULTIPLY_A),
      field<u32>(jobs, MULTIPLY_B),
      field<u32>(jobs, MULTIPLY_OUT),
      field<i32>(jobs, MULTIPLY_COUNT),
    );
  }
}
