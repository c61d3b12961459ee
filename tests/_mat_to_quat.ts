/**
 * Inputs of `matToQuat` shared by its test files: joint matrices made from
 * poses.
 *
 * @module
 */

import type fc from "fast-check";
import { concatMatrices, type Trs, trsArb, trsMatrix } from "./_arbitrary.ts";

/** Matrices of `joints`, followed by `extra` NaN matrices. */
export function matricesOf(joints: readonly Trs[], extra = 0): Float32Array {
  return concatMatrices([
    ...joints.map(trsMatrix),
    ...Array.from({ length: extra }, () => new Float32Array(12).fill(NaN)),
  ]);
}

/** Random poses, negative scales included. */
export const signedTrs: fc.Arbitrary<Trs> = trsArb({ negativeScale: true });
