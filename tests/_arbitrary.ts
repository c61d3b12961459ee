/**
 * Shared helpers of the kernel tests (`*_test.ts` next to this file):
 *
 * - seeded fast-check arbitraries for unit quaternions, TRS joint poses,
 *   affine 3x4 matrices with scale, hierarchies (parents before children),
 *   skin influences and bind meshes;
 * - {@linkcode acrossBuilds}, which runs one input through the three core
 *   builds (one {@linkcode Arena} per build: buffers allocated in that
 *   build's core, inputs copied in, freed afterwards), and
 *   {@linkcode Arena.writesOnly}, which checks that a kernel call wrote
 *   nothing in the core's heap outside its output buffers;
 * - comparisons (bit-exact and within a tolerance), layout conversions to
 *   the 4x4 column-major matrices of gl-matrix and three.js, and
 *   {@linkcode assertRejected}, which checks that a call throws the right
 *   error and writes nothing to any core's memory.
 *
 * The seed is fixed so that runs are reproducible; set `MARROW_SEED` to
 * another integer to explore other inputs (a failure message names the seed).
 *
 * They live in files by what they give: `_arbitrary_numbers.ts` (seeding,
 * numbers), `_arbitrary_transforms.ts` (rotations, poses, matrices,
 * hierarchies), `_arbitrary_skins.ts` (influences, meshes), `_arena.ts`
 * (builds, cores, arenas, bad input) and `_compare.ts` (comparisons); this
 * file gathers them for the tests that import from one place.
 *
 * @module
 */

export * from "./_arbitrary_numbers.ts";
export * from "./_arbitrary_transforms.ts";
export * from "./_arbitrary_skins.ts";
export * from "./_arena.ts";
export * from "./_compare.ts";
