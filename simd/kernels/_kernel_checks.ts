/**
 * Argument checks of the checked kernels in `kernels.ts`: each throws a
 * `TypeError` or `RangeError` naming the kernel, argument and index.
 *
 * @module
 */

import {
  Core,
  type CoreBuffer,
  type MatrixBuffer,
  type ParentIndices,
  type PoseBuffer,
} from "../memory/core.ts";
import { MATRIX_FLOATS, poseFloats } from "../memory/layout.ts";
import { describeValue, findNonFinitePose } from "../memory/internal.ts";
import { coreKernels } from "../memory/internal.ts";
import type { SkinOptions } from "./kernels.ts";

export function sameCore(kernel: string, buffers: Record<string, unknown>): Core {
  let core: Core | undefined;
  for (const [name, buffer] of Object.entries(buffers)) {
    if (buffer === undefined) continue;
    const owner = (buffer as Partial<CoreBuffer>)?.core;
    if (!(owner instanceof Core)) {
      throw new TypeError(
        `${kernel}: ${name}: expected a buffer of a Marrow core, got ${describe(buffer)}`,
      );
    }
    if ((buffer as CoreBuffer).freed) {
      throw new TypeError(`${kernel}: ${name}: the buffer was freed`);
    }
    if (core && owner !== core) {
      throw new TypeError(`${kernel}: ${name}: belongs to another core than the other arguments`);
    }
    core = owner;
  }
  return core!;
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (typeof value !== "object") return typeof value;
  return value.constructor?.name ?? "object";
}

export function checkType<T>(
  kernel: string,
  name: string,
  value: unknown,
  type: abstract new (...args: never[]) => T,
): asserts value is T {
  if (!(value instanceof type)) {
    throw new TypeError(`${kernel}: ${name}: expected a ${type.name}, got ${describe(value)}`);
  }
}

export function checkRange(
  kernel: string,
  name: string,
  value: number,
  limits: Record<string, number>,
): void {
  const max = Math.min(...Object.values(limits));
  if (!Number.isInteger(value) || value < 0 || value > max) {
    const sizes = Object.entries(limits).map(([buffer, size]) => `${buffer} holds ${size}`).join(
      ", ",
    );
    throw new RangeError(
      `${kernel}: ${name}: expected a whole number 0..${max}, got ${
        describeValue(value)
      } (${sizes})`,
    );
  }
}

export function checkAtLeast(
  kernel: string,
  name: string,
  have: number,
  need: number,
  what: string,
): void {
  if (have < need) {
    throw new RangeError(`${kernel}: ${name}: has ${have} ${what}, needs at least ${need}`);
  }
}

/** Returns false when the range is empty (nothing to do). */
export function checkJointRange(
  kernel: string,
  first: number,
  last: number,
  parents: ParentIndices,
  ...buffers: MatrixBuffer[]
): boolean {
  const limit = Math.min(parents.jointCount, ...buffers.map((b) => b.count));
  if (!Number.isInteger(first) || first < 0) {
    throw new RangeError(
      `${kernel}: first: expected a whole number >= 0, got ${describeValue(first)}`,
    );
  }
  if (!Number.isInteger(last) || last < -1 || last >= limit) {
    throw new RangeError(
      `${kernel}: last: expected a joint index below ${limit}, got ${describeValue(last)}`,
    );
  }
  return first <= last;
}

export function maxInfluences(kernel: string, options: SkinOptions): number {
  if (typeof options !== "object" || options === null) {
    throw new TypeError(`${kernel}: options: expected an object, got ${describe(options)}`);
  }
  const cap = options.maxInfluences ?? 255;
  if (!Number.isInteger(cap) || cap < 1) {
    throw new RangeError(
      `${kernel}: options.maxInfluences: expected a whole number >= 1, got ${describeValue(cap)}`,
    );
  }
  return Math.min(cap, 255);
}

/** Scans matrices `from..to-1` for non-finite values in the core. */
export function checkMatrices(
  kernel: string,
  name: string,
  buffer: MatrixBuffer,
  from: number,
  to: number,
): void {
  if (to <= from) return;
  const start = buffer.byteOffset + from * MATRIX_FLOATS * 4;
  const bad = coreKernels(buffer.core).firstNonFinite(start, (to - from) * MATRIX_FLOATS);
  if (bad < 0) return;
  const value = buffer.array[from * MATRIX_FLOATS + bad];
  throw new RangeError(
    `${kernel}: ${name}: matrix ${from + Math.floor(bad / MATRIX_FLOATS)} element ${
      bad % MATRIX_FLOATS
    } is ${value}`,
  );
}

/** Scans the pose of joints `0..count-1` for non-finite values. */
export function checkPose(kernel: string, name: string, pose: PoseBuffer, count: number): void {
  // The core scans whole groups fast; only on a hit do we look lane by lane,
  // since the lanes past `count` are not part of this call.
  if (coreKernels(pose.core).firstNonFinite(pose.byteOffset, poseFloats(count)) < 0) return;
  const bad = findNonFinitePose(pose.array, count);
  if (bad) throw new RangeError(`${kernel}: ${name}: joint ${bad[0]} ${bad[1]} is ${bad[2]}`);
}
