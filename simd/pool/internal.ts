/**
 * What other folders may use of `simd/pool/` besides its public modules: the
 * private files' names other layers need, in one place, so that a `_` file stays
 * private to its folder (`deno task rules`, rule `private-import`).
 *
 * @internal
 * @module
 */

export {
  BATCH_NAMES,
  type BatchName,
  chunkBoundsInto,
  fixedWords,
  rowCostsInto,
  sharesInto,
  taggedNumbers,
  threadsOf,
} from "./_parallel_kernels.ts";
export { type Share, type ThreadPool } from "./_pool.ts";
