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
/** Words per IK job row: one chain (see `simd/_abi.ts` for the fields). */
export const IK_JOB_WORDS = 28;
/** Bytes per IK job row. */
export const IK_JOB_BYTES = 112;
/** IK job kind: two-bone IK (start, mid, end joints). */
export const IK_TWO_BONE = 0;
/** IK job kind: aim IK (one joint). */
export const IK_AIM = 1;
