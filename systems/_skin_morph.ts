/**
 * The skinning systems' morph hook: a job row of an entity with
 * MorphWeights reads its morphed bind streams instead of its skin's.
 *
 * @module
 */

import { JOB_WORDS, SKIN_NORMALS_IN, SKIN_POSITIONS, SKIN_TANGENTS_IN } from "../simd/abi.ts";
import type { SkinRowWriter } from "../components/internal.ts";

/**
 * Points row `row` of `rows` (written by `writer`) at the morphed streams
 * `morphed` (byte offsets of positions, normals, tangents; 0 keeps the
 * skin's), and makes the writer rewrite the row's mesh words next time.
 */
export function redirectToMorph(
  rows: Uint32Array,
  row: number,
  morphed: readonly number[],
  writer: SkinRowWriter,
): void {
  const at = row * JOB_WORDS;
  if (morphed[0] !== 0) rows[at + SKIN_POSITIONS] = morphed[0];
  if (morphed[1] !== 0) rows[at + SKIN_NORMALS_IN] = morphed[1];
  if (morphed[2] !== 0) rows[at + SKIN_TANGENTS_IN] = morphed[2];
  writer.forgetRow(row);
}
