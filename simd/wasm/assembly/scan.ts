// Input scans the checked wrappers and systems run before a kernel writes
// anything, and the scans that keep overflowed values from being published.

import { JOB_BYTES, SCAN_COUNT, SCAN_PTR } from "./abi";
import { field } from "./common";

/**
 * Index of the first non-finite float among `count` floats at `ptr`, or -1.
 * `ptr` must be 4-byte aligned.
 */
export function firstNonFinite(ptr: usize, count: i32): i32 {
  return firstBeyond(ptr, count, Infinity);
}

/**
 * Index of the first float among `count` floats at `ptr` whose magnitude is
 * not below `limit` (NaN never is), or -1. `ptr` must be 4-byte aligned.
 */
export function firstBeyond(ptr: usize, count: i32, limit: f32): i32 {
  const inf = f32x4.splat(limit);
  let i = 0;
  // A lane is finite when |x| < inf; NaN compares false.
  for (; i + 16 <= count; i += 16) {
    const p = ptr + (<usize>i << 2);
    const a = f32x4.lt(f32x4.abs(v128.load(p)), inf);
    const b = f32x4.lt(f32x4.abs(v128.load(p, 16)), inf);
    const c = f32x4.lt(f32x4.abs(v128.load(p, 32)), inf);
    const d = f32x4.lt(f32x4.abs(v128.load(p, 48)), inf);
    if (!v128.all_true<i32>(v128.and(v128.and(a, b), v128.and(c, d)))) break;
  }
  for (; i < count; i++) {
    if (!(Mathf.abs(load<f32>(ptr + (<usize>i << 2))) < limit)) return i;
  }
  return -1;
}

/**
 * Index of the first job with a float whose magnitude is not below `limit`,
 * or -1. Job words 0 and 1 are the pointer and the float count.
 */
export function firstBeyondBatch(jobs: usize, jobCount: i32, limit: f32): i32 {
  for (let i = 0; i < jobCount; i++) {
    const row = jobs + <usize>i * JOB_BYTES;
    if (firstBeyond(<usize>field<u32>(row, SCAN_PTR), field<i32>(row, SCAN_COUNT), limit) >= 0) return i;
  }
  return -1;
}

/** The job row size this core was compiled with, for the ABI agreement test. */
export function jobBytes(): i32 {
  return JOB_BYTES;
}
