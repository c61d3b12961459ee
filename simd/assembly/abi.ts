// The core's calling convention, shared word for word by the AssemblyScript
// kernels and the TypeScript side (`simd/_abi.ts` re-exports it), so that
// the two cannot disagree. Plain constants only: this file is compiled by
// both AssemblyScript and TypeScript.

/** Words per batch job row (the longest job, padded to 16 bytes). */
export const JOB_WORDS = 12;
/** Bytes per batch job row. */
export const JOB_BYTES = 48;
/** Skinning flag: transform normals. */
export const SKIN_NORMALS = 1;
/** Skinning flag: transform tangents (xyz), copying the handedness in w. */
export const SKIN_TANGENTS = 2;
/** Skinning flag: renormalize transformed normals and tangents. */
export const SKIN_RENORMALIZE = 4;
/** Bytes per layer entry of `blendLayersBatch`: pose, mask, weight (f32), reference. */
export const LAYER_ENTRY_BYTES = 16;
