// The multiply-inverse-bind system's kernel: the palette checked as it is
// written, and the model matrices of a good row saved as they are read.

import { JOB_BYTES, MATRIX_BYTES, MULTIPLY_A, MULTIPLY_B, MULTIPLY_COUNT, MULTIPLY_KEEP, MULTIPLY_OUT } from "./abi";
import { field } from "./common";
import { rowChain, zeroFrom } from "./skeleton";

/**
 * `multiplyOne` of skeleton.ts, returning `ok` with the lanes cleared where
 * a row it wrote has a magnitude not below `bound` (NaN included):
 * compares, as `firstBeyond` makes them, not a running maximum (whose NaN
 * rule costs several instructions a lane).
 */
// @ts-ignore: decorator
@inline function multiplyOneBounded(
  a: usize,
  b: usize,
  out: usize,
  zero: v128,
  bound: v128,
  ok: v128,
): v128 {
  const b0 = v128.load(b);
  const b1 = v128.load(b, 16);
  const b2 = v128.load(b, 32);
  const r0 = rowChain(v128.load(a), b0, b1, b2, zero);
  const r1 = rowChain(v128.load(a, 16), b0, b1, b2, zero);
  const r2 = rowChain(v128.load(a, 32), b0, b1, b2, zero);
  v128.store(out, r0);
  v128.store(out, r1, 16);
  v128.store(out, r2, 32);
  const below = v128.and(
    f32x4.lt(f32x4.abs(r0), bound),
    v128.and(f32x4.lt(f32x4.abs(r1), bound), f32x4.lt(f32x4.abs(r2), bound)),
  );
  return v128.and(ok, below);
}

/**
 * `multiplyMatricesBatch` that checks what it writes, as
 * `firstBeyondBatch` would afterwards without reading it again: the first
 * job whose output holds a float whose magnitude is not below `limit` (NaN
 * included), or -1. Every job is computed either way. Job word 4, `keep`,
 * when not 0: a job whose output is all below `limit` also copies its `a`
 * matrices there, while they are still in the cache (the fault isolation's
 * last good model matrices, saved in the pass that reads them anyway).
 */
export function multiplyMatricesCheckedBatch(jobs: usize, jobCount: i32, limit: f32): i32 {
  const bound = f32x4.splat(limit);
  let first = -1;
  for (let j = 0; j < jobCount; j++, jobs += JOB_BYTES) {
    let a = <usize>field<u32>(jobs, MULTIPLY_A), b = <usize>field<u32>(jobs, MULTIPLY_B);
    let out = <usize>field<u32>(jobs, MULTIPLY_OUT);
    const count = field<i32>(jobs, MULTIPLY_COUNT);
    const from = a;
    const zero = zeroFrom(count);
    let ok = i32x4.splat(-1);
    let i = 0;
    // Four per iteration, as multiplyMatrices: the loop's overhead shared.
    for (; i + 4 <= count; i += 4) {
      ok = multiplyOneBounded(a, b, out, zero, bound, ok);
      a += MATRIX_BYTES;
      b += MATRIX_BYTES;
      out += MATRIX_BYTES;
      ok = multiplyOneBounded(a, b, out, zero, bound, ok);
      a += MATRIX_BYTES;
      b += MATRIX_BYTES;
      out += MATRIX_BYTES;
      ok = multiplyOneBounded(a, b, out, zero, bound, ok);
      a += MATRIX_BYTES;
      b += MATRIX_BYTES;
      out += MATRIX_BYTES;
      ok = multiplyOneBounded(a, b, out, zero, bound, ok);
      a += MATRIX_BYTES;
      b += MATRIX_BYTES;
      out += MATRIX_BYTES;
    }
    for (; i < count; i++) {
      ok = multiplyOneBounded(a, b, out, zero, bound, ok);
      a += MATRIX_BYTES;
      b += MATRIX_BYTES;
      out += MATRIX_BYTES;
    }
    if (!v128.all_true<i32>(ok)) {
      if (first < 0) first = j;
      continue;
    }
    const keep = <usize>field<u32>(jobs, MULTIPLY_KEEP);
    if (keep != 0) copyMatrices(from, keep, count);
  }
  return first;
}

/** Copies `count` matrices from `from` to `to` (not overlapping), 16 bytes at a time. */
// @ts-ignore: decorator
@inline function copyMatrices(from: usize, to: usize, count: i32): void {
  const end = from + <usize>count * MATRIX_BYTES;
  for (; from < end; from += 16, to += 16) v128.store(to, v128.load(from));
}
