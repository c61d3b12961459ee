// Bulk copies inside the core's memory: one call for many blocks, at
// memory speed (`memory.copy`), where a copy through JavaScript typed
// arrays of shared memory runs at a fraction of it (a task-parallel
// frame's palette snapshot).

import { COPY_BYTES, COPY_FROM, COPY_TO, JOB_BYTES } from "./abi";
import { field } from "./common";

/** Copies each job row's `COPY_BYTES` bytes from `COPY_FROM` to `COPY_TO`. */
export function copyBlocksBatch(jobs: usize, jobCount: i32): void {
  for (let i = 0; i < jobCount; i++) {
    const row = jobs + <usize>i * JOB_BYTES;
    memory.copy(<usize>field<u32>(row, COPY_TO), <usize>field<u32>(row, COPY_FROM), <usize>field<u32>(row, COPY_BYTES));
  }
}
